/**
 * What `SessionOptions` and `RunOptions` accept. onnxruntime-node ignores names it does not know;
 * here an unknown name (a typo, an option of another runtime) is an error naming the valid ones, a
 * malformed value is an error saying what is expected, and the onnxruntime options Switchyard accepts
 * without acting on them are listed with why, for a verbose log line.
 */
import { SwitchyardError } from '../errors.js';
import type { RunOptions, SessionOptions } from './session-options.js';

interface OptionRule {
  /** Throws when the value is malformed (never called for `undefined`, which means "default"). */
  check(value: unknown, name: string): void;
  /** For options accepted for onnxruntime's sake that change nothing here: why. */
  noEffect?: string;
}

function fail(what: string, name: string, expected: string, value: unknown): never {
  const shown = typeof value === 'bigint' ? `${value}n` : typeof value === 'function' ? 'a function' : JSON.stringify(value);
  throw new SwitchyardError('INVALID_ARGUMENT', `${what}: ${name} must be ${expected}, got ${shown}`);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function rules(what: string) {
  const rule = (test: (v: unknown) => boolean, expected: string, noEffect?: string): OptionRule => ({
    check: (v, name) => {
      if (!test(v)) fail(what, name, expected, v);
    },
    noEffect,
  });
  return {
    boolean: (noEffect?: string) => rule((v) => typeof v === 'boolean', 'true or false', noEffect),
    string: () => rule((v) => typeof v === 'string', 'a string'),
    count: (noEffect?: string) => rule((v) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0, 'a non-negative integer', noEffect),
    integer: (noEffect?: string) => rule((v) => typeof v === 'number' && Number.isSafeInteger(v), 'an integer', noEffect),
    severity: () => rule((v) => v === 0 || v === 1 || v === 2 || v === 3 || v === 4, 'one of 0 (verbose), 1 (info), 2 (warning), 3 (error), 4 (fatal)'),
    oneOf: (values: readonly string[], noEffect?: string) => rule((v) => values.includes(v as string), `one of ${values.map((s) => `'${s}'`).join(', ')}`, noEffect),
    object: (noEffect?: string) => rule(isObject, 'an object', noEffect),
  };
}

const s = rules('InferenceSession.create');

const SESSION_OPTIONS: { readonly [K in keyof Required<SessionOptions>]: OptionRule } = {
  executionProviders: { check: (v, n) => Array.isArray(v) || fail('InferenceSession.create', n, 'an array of EP names, { name, ...options } objects or EP instances', v) },
  disableCpuFallback: s.boolean(),
  graphOptimizationLevel: s.oneOf(['disabled', 'basic', 'extended', 'layout', 'all']),
  optimizedModelFilePath: s.string(),
  enableProfiling: s.boolean(),
  profileFilePrefix: s.string(),
  intraOpNumThreads: s.count(),
  logSeverityLevel: s.severity(),
  logId: s.string(),
  enableMemPattern: s.boolean(),
  preferredOutputLocation: {
    check: (v, n) => {
      const where = (x: unknown) => x === 'cpu' || x === 'device';
      if (!where(v) && !(isObject(v) && Object.values(v).every(where))) {
        fail('InferenceSession.create', n, "'cpu', 'device', or an object mapping output names to 'cpu' or 'device'", v);
      }
    },
  },
  externalDataFolder: s.string(),
  // inference-session.ts's resolveMaxTensorBytes checks it where it reads it.
  maxTensorBytes: { check: () => {} },
  partitioning: s.oneOf(['first-capable', 'cost']),
  freeDimensionOverrides: {
    check: (v, n) => {
      if (!isObject(v)) fail('InferenceSession.create', n, 'an object mapping dimension names to sizes', v);
      for (const [dim, size] of Object.entries(v)) {
        if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 1) fail('InferenceSession.create', `${n}.${dim}`, 'a positive integer', size);
      }
    },
  },
  interOpNumThreads: s.count('nodes run one after another; intraOpNumThreads sets the threads inside a node'),
  executionMode: s.oneOf(['sequential', 'parallel'], "nodes always run one after another ('sequential')"),
  enableCpuMemArena: s.boolean('host memory is planned per session (enableMemPattern), not drawn from a shared arena'),
  logVerbosityLevel: s.integer('Switchyard has no verbose sub-levels'),
  enableGraphCapture: s.boolean("it is onnxruntime-web's WebGPU graph capture"),
  extra: s.object("onnxruntime's session config entries have no Switchyard equivalent"),
};

/** onnxruntime options Switchyard refuses because ignoring them would change what the session loads. */
const UNSUPPORTED_SESSION_OPTIONS: Readonly<Record<string, string>> = {
  externalData:
    "externalData (onnxruntime-web's in-memory external data files) is not supported: pass the model as a path, or as bytes with externalDataFolder set to the folder holding its data files",
};

const r = rules('run');
const CHECKED_WHERE_USED: OptionRule = { check: () => {} };

const RUN_OPTIONS: { readonly [K in keyof Required<RunOptions>]: OptionRule } = {
  logSeverityLevel: r.severity(),
  tag: r.string(),
  logVerbosityLevel: r.integer('Switchyard has no verbose sub-levels'),
  extra: r.object("onnxruntime's run config entries have no Switchyard equivalent"),
  // Stopping a run early: run-cancellation.ts checks signal and timeoutMs where it reads them.
  terminate: r.boolean(),
  signal: CHECKED_WHERE_USED,
  timeoutMs: CHECKED_WHERE_USED,
};

/** Edit distance, for "did you mean" on a misspelt option. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const next = Math.min(row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = row[j];
      row[j] = next;
    }
  }
  return row[b.length];
}

function unknownOption(what: string, name: string, valid: readonly string[], extra = ''): SwitchyardError {
  // The closest names within a few edits (case ignored), so a typo points at what was meant.
  const lower = name.toLowerCase();
  const scored = valid.map((v) => ({ v, d: distance(v.toLowerCase(), lower) })).filter((c) => c.d <= Math.max(1, Math.floor(name.length / 5)));
  const best = Math.min(...scored.map((c) => c.d));
  const near = scored.filter((c) => c.d === best).map((c) => c.v);
  const hint = near.length ? ` (did you mean ${near.map((n) => `'${n}'`).join(' or ')}?)` : '';
  return new SwitchyardError('INVALID_ARGUMENT', `${what}: unknown option '${name}'${hint}${extra}; the options are ${valid.join(', ')}`);
}

interface Table {
  rules: Readonly<Record<string, OptionRule>>;
  /** Names accepted unchecked here (another module reads them). */
  accepted?: readonly string[];
  /** Names refused with their own explanation. */
  unsupported?: Readonly<Record<string, string>>;
  /** Added to the unknown-name error. */
  unknownHint?: () => string;
}

function checkAgainst(what: string, options: Record<string, unknown>, table: Table): string[] {
  const notes: string[] = [];
  const accepted = table.accepted ?? [];
  for (const name of Object.keys(options)) {
    const rule = table.rules[name];
    if (!rule) {
      if (accepted.includes(name)) continue;
      const why = table.unsupported?.[name];
      if (why) throw new SwitchyardError('UNSUPPORTED', `${what}: ${why}`);
      throw unknownOption(what, name, [...Object.keys(table.rules), ...accepted], table.unknownHint?.());
    }
    const value = options[name];
    if (value === undefined) continue;
    rule.check(value, name);
    if (rule.noEffect) notes.push(`option ${name} is accepted but has no effect: ${rule.noEffect}`);
  }
  return notes;
}

/**
 * Checks session options. Returns a note for each given option that has no effect here (logged at
 * verbose level). Throws for anything unknown or malformed.
 */
export function checkSessionOptions(options: unknown): string[] {
  if (options === undefined) return [];
  if (!isObject(options)) throw new SwitchyardError('INVALID_ARGUMENT', `InferenceSession.create: options must be an object, got ${JSON.stringify(options)}`);
  return checkAgainst('InferenceSession.create', options, { rules: SESSION_OPTIONS, unsupported: UNSUPPORTED_SESSION_OPTIONS });
}

/**
 * Checks run options (see `checkSessionOptions`). `outputNames` lets the error for an unknown name say
 * that it is not an output either: `run(feeds, x)` reads `x` as options when it names no output.
 */
export function checkRunOptions(options: unknown, outputNames?: readonly string[]): string[] {
  if (!isObject(options)) throw new SwitchyardError('INVALID_ARGUMENT', `run: options must be an object, got ${JSON.stringify(options)}`);
  const unknownHint = outputNames ? () => ` (nor is it an output: the model's outputs are ${outputNames.map((o) => `'${o}'`).join(', ')})` : undefined;
  return checkAgainst('run', options, { rules: RUN_OPTIONS, unknownHint });
}
