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
