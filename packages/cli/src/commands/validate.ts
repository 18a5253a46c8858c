/**
 * `switchyard validate MODEL --ep rocm --reference cpu [--input name=file.npy …]`: runs both EP lists
 * on the same feeds and checks every output against the reference at the tolerance its precision
 * calls for. Exit code 0 when every output passes, 1 when one does not.
 */
import { validateProviders, type ExecutionProviderConfig, type Precision, type ValidationReport } from '@switchyard/core';
import { CliError } from '../cli-error.js';
import { resolveEpSpecs } from '../ep-options.js';
import { givenInputs } from '../feeds.js';
import { formatValidation } from '../format/validation.js';
import { sessionOptionsFrom, type Level, type SessionArgs } from '../session-args.js';

export interface ValidateArgs extends SessionArgs {
  model: string;
  /** `--reference` EP list (default cpu). */
  reference?: string[];
  referenceLevel?: Level;
  inputs: string[];
  precision?: Precision;
  atol?: number;
  rtol?: number;
  json: boolean;
}

const PRECISIONS: readonly Precision[] = ['fp64', 'fp32', 'fp16', 'bf16', 'int8', 'exact'];

export function parsePrecision(value: string | undefined): Precision | undefined {
  if (value === undefined) return undefined;
  if (!(PRECISIONS as string[]).includes(value)) throw new CliError(`--precision takes ${PRECISIONS.join('|')}, got '${value}'`);
  return value as Precision;
}

/** An EP option that says it computes in a lower precision (`fp16=1`, `bf16=1`, `int8=1`) implies that precision's tolerance. */
function impliedPrecision(configs: readonly ExecutionProviderConfig[]): Precision | undefined {
  for (const c of configs) {
    if (typeof c !== 'object' || c === null) continue;
    const o = c as unknown as Record<string, unknown>;
    if (o.int8 === true) return 'int8';
    if (o.bf16 === true) return 'bf16';
    if (o.fp16 === true) return 'fp16';
  }
  return undefined;
}

export async function validateCommand(args: ValidateArgs): Promise<number> {
  const { options, names } = sessionOptionsFrom(args);
  const reference = resolveEpSpecs(args.reference?.length ? args.reference : ['cpu'], undefined);
  const precision = args.precision ?? impliedPrecision(options.executionProviders ?? []);
  const { executionProviders, ...shared } = options;
  const report = await validateProviders(args.model, {
    executionProviders: executionProviders!,
    reference: reference.configs,
    sessionOptions: shared,
    // The reference writes no optimized model and no profile: those belong to the list under test.
    referenceSessionOptions: { graphOptimizationLevel: args.referenceLevel ?? args.level, optimizedModelFilePath: undefined, enableProfiling: false },
    feeds: givenInputs(args.inputs),
    precision,
    tolerance: args.atol !== undefined || args.rtol !== undefined ? { atol: args.atol, rtol: args.rtol } : undefined,
    onSession: (side, session) => {
      if (side === 'tested' && args.profile) session.endProfiling(args.profile);
    },
  });
  if (args.json) {
    process.stdout.write(JSON.stringify({ model: args.model, tested: names, reference: reference.names, ...(jsonSafe(report) as object) }, null, 2) + '\n');
  } else {
    process.stdout.write(formatValidation(args.model, names, reference.names, report) + '\n');
    if (args.saveOptimized) process.stdout.write(`Optimized model (tested list): ${args.saveOptimized}\n`);
    if (args.profile) process.stdout.write(`Profile of the tested run: ${args.profile}\n`);
  }
  return report.passed ? 0 : 1;
}

/** JSON has no Infinity or NaN: they are written as strings. */
function jsonSafe(report: ValidationReport): unknown {
  return JSON.parse(JSON.stringify(report, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v)));
}
