/** Native errors (plain Errors with a `code`) → SwitchyardErrors that name the node. */
import { SwitchyardError, type ErrorCode, type Node } from '@switchyard/core';

const CODES: ReadonlySet<string> = new Set<ErrorCode>([
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
]);

function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && CODES.has(code);
}

/** Wraps whatever the addon threw, keeping its code; the original stays as `cause`. */
export function fromNativeError(node: Node, error: unknown): SwitchyardError {
  if (error instanceof SwitchyardError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const code = error instanceof Error && 'code' in error && isErrorCode(error.code) ? error.code : 'RUNTIME';
  return new SwitchyardError(code, `node '${node.name}' (${node.opType}, onednn): ${message}`, { cause: error });
}

/** Runs `fn` synchronously, rethrowing native failures as SwitchyardErrors (the inline path: no promise). */
export function withNodeErrors<T>(node: Node, fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    throw fromNativeError(node, error);
  }
}

/** Runs `fn`, rethrowing native failures as SwitchyardErrors. */
export async function withNativeErrors<T>(node: Node, fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw fromNativeError(node, error);
  }
}
