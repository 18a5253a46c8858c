/** Native errors (plain Errors with a `code`) → SwitchyardErrors that name the node. */
import { fromNativeError as fromCodedError, type Node, type SwitchyardError } from '@switchyard/core';

/** Wraps whatever the addon threw, keeping its code; the original stays as `cause`. */
export function fromNativeError(node: Node, error: unknown): SwitchyardError {
  return fromCodedError(error, `node '${node.name}' (${node.opType}, onednn)`);
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
