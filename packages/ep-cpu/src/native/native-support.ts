/** What the native kernel defs share: static-shape questions, thread counts, and the sync/async choice. */
import { SwitchyardError, type Graph, type Node, type Tensor, type ValueType } from '@switchyard/core';
import type { NativeBinding } from './binding.js';

/** Fully known dims of a tensor type, or undefined when any is symbolic or unknown. */
export function staticDims(type: ValueType | undefined): number[] | undefined {
  if (type?.kind !== 'tensor' || !type.shape) return undefined;
  const dims: number[] = [];
  for (const d of type.shape) {
    if (typeof d !== 'number') return undefined;
    dims.push(d);
  }
  return dims;
}

/** Rank of a value when shape inference (or an initializer) fixed it. */
export function staticRank(graph: Graph, name: string): number | undefined {
  const type = graph.typeOf(name);
  return type?.kind === 'tensor' ? type.shape?.length : undefined;
}

/** Why a value is not a float32 tensor (undefined when it is). Unknown dtypes are declined, not guessed. */
export function float32Reason(graph: Graph, name: string, what: string): string | undefined {
  const elemType = graph.elemTypeOf(name);
  if (elemType === undefined) return `${what} dtype is unknown at session creation; onednn serves float32 only`;
  if (elemType !== 'float32') return `${what} is ${elemType}; onednn serves float32 only`;
  return undefined;
}

/** A requested count (0 = default) as the team size the addon will actually use: the cache key. */
export function effectiveThreads(binding: NativeBinding, requested: number): number {
  if (requested > 0) return requested;
  let fallback = defaultThreadsOf.get(binding);
  if (fallback === undefined) defaultThreadsOf.set(binding, (fallback = binding.runtimeInfo().defaultThreads));
  return fallback;
}

const defaultThreadsOf = new WeakMap<NativeBinding, number>();

/**
 * Below this many multiply-adds a run stays on the calling thread. The libuv hop costs 50–150 µs
 * per call (measured: a SqueezeNet 1x1 conv, 0.2 ms sync vs 0.37 ms async), so small and medium
 * products are much faster inline; 2^23 MACs is a few tenths of a millisecond on one core, which
 * bounds how long a sync run holds the event loop.
 */
export const SYNC_MAC_LIMIT = 1 << 23;

/** Where and on how many threads one native call runs. */
export interface NativeDispatch {
  /** Run on the calling (JavaScript) thread rather than the addon's oneDNN thread. */
  inline: boolean;
  /** The OpenMP team size to build and run the primitive with (part of its cache key). */
  threads: number;
}

/**
 * Small work runs inline on ONE thread; larger work goes to the addon's oneDNN thread with the
 * session's thread count. Why one: OpenMP gives every thread that opens a parallel region its own
 * team, whose workers keep spinning after each region. Inline calls with a team of two on the JS
 * thread left that team spinning while the oneDNN thread's team ran the next large op: three busy
 * threads on two cores. Keeping teams off the JS thread leaves one team in the process.
 */
export function dispatchFor(binding: NativeBinding, requested: number, work: number, inlineBelow = SYNC_MAC_LIMIT): NativeDispatch {
  return work < inlineBelow ? { inline: true, threads: 1 } : { inline: false, threads: effectiveThreads(binding, requested) };
}

/**
 * Team size for the addon's synchronous functions (GELU, Softmax, LayerNorm, LSTM: always inline),
 * by the same rule as dispatchFor: one thread for small work; only large work opens a team on the
 * JS thread, where it pays for itself.
 */
export function inlineThreads(binding: NativeBinding, requested: number, work: number): number {
  return dispatchFor(binding, requested, work).threads;
}

export function hasZeroDim(dims: readonly number[]): boolean {
  return dims.some((d) => d === 0);
}

/** The Float32Array behind input `what` of `node`, or a clear error when the tensor is not float32. */
export function float32Data(node: Node, t: Tensor, what: string): Float32Array {
  const data = t.type === 'float32' ? t.data : undefined;
  if (!(data instanceof Float32Array)) {
    throw new SwitchyardError('INVALID_ARGUMENT', `node '${node.name}' (${node.opType}, onednn): ${what} is ${t.type}, expected float32`);
  }
  return data;
}
