/**
 * CI's fixed-seed fuzz smoke on the CPU EP: 2,000 cases (mutated, truncated and bit-flipped
 * conformance models, random bytes and protobuf, hostile external data, deep nesting, wrong feeds,
 * random graphs) in two worker processes. Every case must end in a typed SwitchyardError or a
 * correct run; a crash, a hang, memory past the limit or an unchecked JS error fails the test and
 * prints the case with its replay command (`pnpm fuzz --seed S --case I`).
 * SWITCHYARD_FUZZ_CASES=n and SWITCHYARD_FUZZ_SEED=s change the run; `pnpm fuzz` runs 50,000.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { formatFuzzSummary, runFuzz } from '@switchyard/core/testing';

const CASES = Number(process.env.SWITCHYARD_FUZZ_CASES ?? 2000);
const SEED = Number(process.env.SWITCHYARD_FUZZ_SEED ?? 20261204);
const worker = fileURLToPath(new URL('./fuzz-worker.ts', import.meta.url));
const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));

describe.runIf(existsSync('/usr/share/libonnx-testdata/data/node'))('fuzz smoke (CPU EP)', () => {
  it(`${CASES} cases from seed ${SEED}: typed errors or correct runs only`, async () => {
    const summary = await runFuzz({ worker: [process.execPath, '--import', 'tsx', worker], cwd: repoRoot, seed: SEED, cases: CASES, workers: 2 });
    const report = formatFuzzSummary(summary, (s, i) => `pnpm fuzz --seed ${s} --case ${i}`);
    console.log(report);
    expect(summary.failures, report).toEqual([]);
    expect(summary.cases).toBe(CASES);
    // The cases must reach the runtime, not only the loader's first checks.
    expect(summary.ok).toBeGreaterThan(CASES / 10);
  }, 600_000);
});
