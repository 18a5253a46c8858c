/**
 * `switchyard conformance [--ep cpu] [--expectations FILE] [--filter RE] [--update] [--root DIR]`:
 * runs the ONNX backend test suite and checks the outcome against the EP's expectation file.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { DEFAULT_BACKEND_TEST_ROOT, expectationsFrom, readExpectations, runBackendSuite, type Expectations } from '@switchyard/core/testing';
import { resolveEpSpecs } from '../ep-options.js';
import { CliError } from '../cli-error.js';

export interface ConformanceArgs {
  ep?: string[];
  epOptions?: string;
  expectations?: string;
  filter?: string;
  update: boolean;
  root?: string;
  verbose: boolean;
}

/** The expectation file an EP package ships (`@switchyard/ep-<name>/conformance-expectations.json`). */
function defaultExpectationFile(ep: string): string | undefined {
  try {
    return createRequire(import.meta.url).resolve(`@switchyard/ep-${ep}/conformance-expectations.json`);
  } catch {
    return undefined;
  }
}

export async function conformanceCommand(args: ConformanceArgs): Promise<number> {
  const { configs, names: eps } = resolveEpSpecs(args.ep?.length || args.epOptions ? args.ep : ['cpu'], args.epOptions);
  const root = args.root ?? DEFAULT_BACKEND_TEST_ROOT;
  if (!existsSync(root)) throw new CliError(`no backend test data at ${root}; install it with \`apt-get install libonnx-testdata\``);
  const file = args.expectations ?? defaultExpectationFile(eps[0]);
  const expectations: Expectations | undefined = file && existsSync(file) ? readExpectations(file) : undefined;
  const started = performance.now();
  const summary = await runBackendSuite({
    session: { executionProviders: configs, logSeverityLevel: 3 },
    expectations,
    root,
    filter: args.filter ? new RegExp(args.filter) : undefined,
    onResult: (r, i, n) => {
      if (args.verbose || (r.outcome !== 'passed' && !expectations?.tests[r.id])) {
        process.stdout.write(`[${i + 1}/${n}] ${r.outcome.padEnd(11)} ${r.id}${r.detail ? ` — ${r.detail}` : ''}\n`);
      }
    },
  });
  const secs = ((performance.now() - started) / 1000).toFixed(1);
  process.stdout.write(
    `\nONNX backend suite (${root}) on [${eps.join(', ')}]: ${summary.total} tests — ${summary.passed} passed, ${summary.failed} failed, ${summary.unsupported} unsupported${summary.random ? `, ${summary.random} random (dtype and shape only)` : ''} (${secs} s)\n`,
  );
  if (args.update) {
    if (!file) throw new CliError('--update needs --expectations FILE');
    writeFileSync(file, JSON.stringify(expectationsFrom(eps[0], summary, expectations), null, 2) + '\n');
    process.stdout.write(`wrote ${file}\n`);
    return 0;
  }
  if (!expectations) {
    process.stdout.write('no expectation file: outcomes not checked\n');
    return 0;
  }
  for (const r of summary.unexpectedFailures) {
    const listed = expectations.tests[r.id];
    process.stdout.write(`UNEXPECTED ${r.outcome.toUpperCase()}: ${r.id}${listed ? ` (listed as ${listed.outcome})` : ''} — ${r.detail ?? ''}\n`);
  }
  for (const r of summary.unexpectedPasses) process.stdout.write(`UNEXPECTED PASS: ${r.id} (listed as ${expectations.tests[r.id].outcome}: ${expectations.tests[r.id].reason})\n`);
  for (const id of summary.staleEntries) process.stdout.write(`STALE ENTRY: ${id} is listed but not in the suite\n`);
  const bad = summary.unexpectedFailures.length + summary.unexpectedPasses.length + summary.staleEntries.length;
  process.stdout.write(bad === 0 ? `expectations (${file}) match\n` : `${bad} outcome(s) differ from ${file}\n`);
  return bad === 0 ? 0 : 1;
}
