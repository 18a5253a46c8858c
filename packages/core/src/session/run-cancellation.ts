/**
 * What may stop a run early: the caller's AbortSignal, onnxruntime's `terminate` flag on the run
 * options, and a `timeoutMs` deadline. The executor asks between kernels (and after every awaited
 * native step), so a run stops at the next kernel boundary; a kernel already running finishes first.
 */
import { AbortError, SwitchyardError } from '../errors.js';
import type { RunOptions } from './session-options.js';

/** The run options of a call that passed none: frozen, so such runs need no per-step stop check. */
export const NO_RUN_OPTIONS: RunOptions = Object.freeze({});

/** Throws an AbortError when the run should stop; otherwise returns. */
export type StopCheck = () => void;

function isAbortSignal(v: unknown): v is AbortSignal {
  return typeof v === 'object' && v !== null && typeof (v as AbortSignal).aborted === 'boolean' && typeof (v as AbortSignal).addEventListener === 'function';
}

function reasonText(reason: unknown): string {
  if (reason instanceof Error) return reason.message;
  return reason === undefined ? '' : String(reason);
}

/**
 * Validates the cancellation fields of `options` and returns the check for this run, or undefined
 * when nothing can stop it (the executor then pays nothing per step).
 */
export function stopCheckFor(given: RunOptions | null | undefined): StopCheck | undefined {
  const options = given ?? NO_RUN_OPTIONS;
  const { signal, timeoutMs } = options;
  if (signal !== undefined && !isAbortSignal(signal)) {
    throw new SwitchyardError('INVALID_ARGUMENT', 'runOptions.signal must be an AbortSignal');
  }
  if (timeoutMs !== undefined && (typeof timeoutMs !== 'number' || Number.isNaN(timeoutMs) || timeoutMs <= 0)) {
    throw new SwitchyardError('INVALID_ARGUMENT', `runOptions.timeoutMs must be a positive number of milliseconds, got ${String(timeoutMs)}`);
  }
  if (options.terminate !== undefined && typeof options.terminate !== 'boolean') {
    throw new SwitchyardError('INVALID_ARGUMENT', `runOptions.terminate must be a boolean, got ${typeof options.terminate}`);
  }
  const deadline = timeoutMs !== undefined && Number.isFinite(timeoutMs) ? performance.now() + timeoutMs : undefined;
  // `terminate` is read on every check: the caller may set it on this very object while the run is in
  // flight, so only an options object that cannot change (the frozen default) skips the check.
  if (!signal && deadline === undefined && options.terminate !== true && Object.isFrozen(options)) return undefined;
  return () => {
    if (signal?.aborted) {
      const why = reasonText(signal.reason);
      throw new AbortError(`the run was aborted${why ? `: ${why}` : ''}`, { cause: signal.reason });
    }
    if (options.terminate === true) throw new AbortError('the run was terminated (runOptions.terminate was set)');
    if (deadline !== undefined && performance.now() > deadline) throw new AbortError(`the run took longer than runOptions.timeoutMs (${timeoutMs} ms)`);
  };
}
