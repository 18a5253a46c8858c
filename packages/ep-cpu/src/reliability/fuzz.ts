/**
 * `pnpm fuzz [--seed N] [--cases N] [--first N] [--workers N] [--json FILE]`: the loader and session
 * fuzzer on the CPU EP, each case in a worker process (fuzz-worker.ts) so a crash, a hang or runaway
 * memory is caught and named by seed and case index. `--case I` replays one case in this process and
 * prints what it was and how it ended. Exits 1 when any case failed.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { formatFuzzSummary, fuzzCase, runFuzz, runFuzzCase } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';

const { values } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    cases: { type: 'string', default: '50000' },
    first: { type: 'string', default: '0' },
    workers: { type: 'string', default: '2' },
    case: { type: 'string' },
    json: { type: 'string' },
  },
});
const seed = Number(values.seed);
const replay = (s: number, index: number) => `pnpm fuzz --seed ${s} --case ${index}`;

if (values.case !== undefined) {
  const index = Number(values.case);
  const cpu = new CpuExecutionProvider();
  const c = fuzzCase(seed, index, '/tmp/switchyard-fuzz-replay/case');
  console.log(`case ${index} of seed ${seed}: ${c.kind} at level '${c.level}'\n  ${c.what}`);
  const result = await runFuzzCase(c, { providers: () => [cpu], maxTensorBytes: 64 * 1024 ** 2, runTimeoutMs: 3_000, workDir: '/tmp/switchyard-fuzz-replay' });
  console.log(result);
} else {
  const worker = fileURLToPath(new URL('./fuzz-worker.ts', import.meta.url));
  let done = 0;
  const summary = await runFuzz({
    worker: [process.execPath, '--import', 'tsx', worker],
    seed,
    cases: Number(values.cases),
    first: Number(values.first),
    workers: Number(values.workers),
    onCase: () => {
      if (++done % 1000 === 0) process.stderr.write(`fuzz: ${done} cases\n`);
    },
  });
  console.log(formatFuzzSummary(summary, replay));
  if (values.json) writeFileSync(values.json, JSON.stringify(summary, null, 2));
  process.exitCode = summary.failures.length ? 1 : 0;
}
