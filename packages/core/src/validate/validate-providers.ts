/**
 * `validateProviders`: is a run on some EPs *right*, not merely running? Runs one model on the tested
 * EP list and on a reference list with the same feeds and compares every output element.
 */
import { SwitchyardError } from '../errors.js';
import type { ExecutionProviderConfig } from '../ep/execution-provider.js';
import { InferenceSession } from '../session/inference-session.js';
import type { SessionOptions } from '../session/session-options.js';
import type { Placement } from '../partition/placement.js';
import type { Tensor } from '../tensor/tensor.js';
import type { RuntimeValue } from '../registry/kernel-def.js';
import { randomFeeds } from './random-feeds.js';
import { valueDifferences, type OutputDifference } from './output-difference.js';
import type { Precision, ValidationTolerance } from './tolerance.js';

export interface ValidateProvidersOptions {
  /** The EP list under test, in priority order (CPU is appended unless `disableCpuFallback`). */
  executionProviders: readonly ExecutionProviderConfig[];
  /** The EP list whose results count as right. Default `['cpu']`. */
  reference?: readonly ExecutionProviderConfig[];
  /** Options for both sessions (optimization level, threads, …). */
  sessionOptions?: Omit<SessionOptions, 'executionProviders'>;
  /** Options for the reference session only, over `sessionOptions`. */
  referenceSessionOptions?: Omit<SessionOptions, 'executionProviders'>;
  /** Feeds by input name; inputs not given get seeded random values (symbolic dims as 1). */
  feeds?: Readonly<Record<string, Tensor>>;
  /** Seed of the random feeds. Default 42. */
  seed?: number;
  /** The precision the tested EPs compute in when lower than the output types say (an fp16 mode). */
  precision?: Precision;
  /** Replaces the precision's tolerance for every float output. */
  tolerance?: Partial<ValidationTolerance>;
  /** Called with each session after its run, before it is released (to write a profile, read its placement). */
  onSession?: (side: 'tested' | 'reference', session: InferenceSession) => void | Promise<void>;
}

/** What each side ran on. */
export interface ValidatedSide {
  providers: Array<{ name: string; nodes: number }>;
  skipped: Placement['skipped'];
  runMs: number;
}

export interface ValidationReport {
  passed: boolean;
  outputs: OutputDifference[];
  /** The feeds used: type, dims, and whether they were random. */
  feeds: Array<{ name: string; type: string; dims: number[]; random: boolean }>;
  tested: ValidatedSide;
  reference: ValidatedSide;
}

async function runSide(
  model: string | Uint8Array,
  providers: readonly ExecutionProviderConfig[],
  options: Omit<SessionOptions, 'executionProviders'>,
  feeds: (session: InferenceSession) => Record<string, Tensor>,
): Promise<{ outputs: Record<string, unknown>; side: ValidatedSide; session: InferenceSession; used: Record<string, Tensor> }> {
  const sessionOptions: SessionOptions = { ...options, executionProviders: providers };
  // create's overloads take a path or bytes, not the union.
  const session = await (typeof model === 'string' ? InferenceSession.create(model, sessionOptions) : InferenceSession.create(model, sessionOptions));
  try {
    const used = feeds(session);
    const started = performance.now();
    const outputs = await session.run(used);
    const runMs = performance.now() - started;
    const side = { providers: session.placement.providers.map((p) => ({ name: p.name, nodes: p.nodes })), skipped: session.placement.skipped, runMs };
    return { outputs, side, session, used };
  } catch (err) {
    await session.release();
    throw err;
  }
}

/** Runs `model` on both EP lists with the same feeds and compares every output. */
export async function validateProviders(model: string | Uint8Array, options: ValidateProvidersOptions): Promise<ValidationReport> {
  if (!options || !Array.isArray(options.executionProviders) || options.executionProviders.length === 0) {
    throw new SwitchyardError('INVALID_ARGUMENT', 'validateProviders: executionProviders must list the EPs to test');
  }
  const given = options.feeds ?? {};
  let feeds: Record<string, Tensor> | undefined;
  let inputNames: readonly string[] = [];
  const tested = await runSide(model, options.executionProviders, options.sessionOptions ?? {}, (s) => {
    inputNames = s.inputNames;
    return (feeds = randomFeeds(s.inputMetadata, given, options.seed ?? 42));
  });
  // The tested side's outputs are all we keep of it: free its memory before the reference loads.
  await finish('tested', tested.session, options.onSession);
  const reference = await runSide(model, options.reference ?? ['cpu'], { ...options.sessionOptions, ...options.referenceSessionOptions }, () => feeds!);
  await finish('reference', reference.session, options.onSession);
  const outputs: OutputDifference[] = [];
  for (const [name, expected] of Object.entries(reference.outputs)) {
    outputs.push(...valueDifferences(name, tested.outputs[name] as RuntimeValue | undefined, expected as RuntimeValue, options.precision, options.tolerance));
  }
  return {
    passed: outputs.every((o) => o.passed),
    outputs,
    feeds: inputNames.map((n) => ({ name: n, type: feeds![n].type, dims: [...feeds![n].dims], random: !(n in given) })),
    tested: tested.side,
    reference: reference.side,
  };
}

async function finish(side: 'tested' | 'reference', session: InferenceSession, hook: ValidateProvidersOptions['onSession']): Promise<void> {
  try {
    await hook?.(side, session);
  } finally {
    await session.release();
  }
}
