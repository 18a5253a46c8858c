/** Error codes Switchyard raises; `code` lets callers branch without parsing messages. */
export type ErrorCode =
  | 'INVALID_ARGUMENT'
  | 'INVALID_MODEL'
  | 'INVALID_SHAPE'
  | 'INVALID_GRAPH'
  | 'UNSUPPORTED'
  | 'NO_PROVIDER'
  | 'EP_FAILED'
  | 'RUNTIME'
  | 'OUT_OF_MEMORY'
  | 'RELEASED'
  /** A run stopped early: its AbortSignal fired, `runOptions.terminate` was set, or `timeoutMs` passed. */
  | 'ABORTED'
  /** A bug in Switchyard itself (an optimizer pass left the graph malformed, say): please report it. */
  | 'INTERNAL';

export class SwitchyardError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SwitchyardError';
    this.code = code;
  }
}

const ERROR_CODES: ReadonlySet<string> = new Set<ErrorCode>([
  'INVALID_ARGUMENT',
  'INVALID_MODEL',
  'INVALID_SHAPE',
  'INVALID_GRAPH',
  'UNSUPPORTED',
  'NO_PROVIDER',
  'EP_FAILED',
  'RUNTIME',
  'OUT_OF_MEMORY',
  'RELEASED',
  'ABORTED',
  'INTERNAL',
]);

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && ERROR_CODES.has(code);
}

/**
 * What a native addon threw (an Error whose `code` the addon's coded errors set: @switchyard/native-toolkit's
 * CodedError / ThrowJs) as a SwitchyardError with the same code, its message prefixed by `context`. A code that
 * is not a Switchyard code (a GPU status name such as 'hipErrorNoDevice') becomes `fallback`; the original stays
 * as `cause`, code and all. A SwitchyardError passes through unchanged.
 */
export function fromNativeError(error: unknown, context: string, fallback: ErrorCode = 'RUNTIME'): SwitchyardError {
  if (error instanceof SwitchyardError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const code = error instanceof Error && 'code' in error && isErrorCode(error.code) ? error.code : fallback;
  return new SwitchyardError(code, `${context}: ${message}`, { cause: error });
}

/**
 * A run stopped early on the caller's request (AbortSignal, `terminate`, `timeoutMs`). Named
 * `AbortError` like the DOM's, so code written for `fetch` cancellation recognises it.
 */
export class AbortError extends SwitchyardError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ABORTED', message, options);
    this.name = 'AbortError';
  }
}
