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
/**
 * Problems below these sizes run in TypeScript unless the provider says otherwise (`smallOpsInTs`):
 * a oneDNN call's fixed cost (primitive lookup, argument marshalling, the addon crossing) is more
 * than their work. `node bench/small-ops.mjs 2` on the 2-core CI machine (one-node sessions, p50,
 * oneDNN vs TS): Softmax [1,10] 9.7 vs 5.3 µs, [4,64] 10.0 vs 6.6, [1,1000] 7.3 vs 19.4; Gemm 1x64x10
 * (640 multiply-adds) 8.5 vs 3.8 µs, 1x128x64 (8192) 8.4 vs 9.4, 1x256x256 12.5 vs 67.3. The
 * crossovers move between runs (Softmax 100–1000 elements, Gemm ~8000 multiply-adds); these sizes sit
 * below both. The demo model's classifier head (Gemm 1x64x10, Softmax [1,10]) is where it shows.
 */
export const SMALL_GEMM_MACS = 2048;
export const SMALL_SOFTMAX_ELEMENTS = 128;

/**
 * Elementwise outputs below these sizes run in TypeScript: the native call (argument checks, the addon
 * crossing, ~0.5 µs) costs more than the loop. `node bench/elementwise.mjs 1 --part=ops` on the shared
 * 2-core AVX-512 machine (one-node sessions, p50, TS / native): Relu 0.61x at 256 elements, 1.07x at
 * 1024, 2.7x at 8192; Add 0.71x, 1.08x, 4.6x; a per-row Mul 0.90x, 1.09x, 2.7x; Clip 0.94x, 1.45x, 3.4x;
 * Sigmoid (its TS form calls Math.exp) 0.91x at 64, 1.92x at 256, 13x at 8192. So: 1024 elements, and
 * 128 for programs with a transcendental instruction.
 */
export const SMALL_ELEMENTWISE_ELEMENTS = 1024;
export const SMALL_TRANSCENDENTAL_ELEMENTS = 128;

/**
 * The same for the dtype-generic kernels (movement-support.ts): data movement (Transpose, Slice, Concat,
 * Split, Gather, Pad, Expand, Tile, Cast, …), the reductions and the normalizations, by the elements of
 * the tensor they write (Split, the reductions: read). `node bench/small-ops.mjs 2 --generic-only` (one-
 * node sessions, p50 µs native/TS, two runs on the shared 2-core machine): a session run costs ~2 µs
 * either way, so up to a few hundred elements they tie — Transpose [n/8, 8]ᵀ 256: 3.2/2.7, 3.4/2.4;
 * 512: 2.9/3.2, 2.5/2.6; 1024: 2.6/3.3. Concat 256: 2.6/1.9, 2.6/2.1; 512: 2.8/2.4, 3.0/2.4; 4096:
 * 6.4/7.9. Math pays sooner: ReduceMean [n/64, 64] 256: 2.3/2.6, 2.2/2.8; InstanceNormalization 256:
 * 2.9/2.4, 2.8/2.3; 512: 2.5/3.1, 2.7/3.0; Cast float32→float16 512: 1.8/3.2. Shape arithmetic (a few
 * int64s) stays in TypeScript.
 */
export const SMALL_MOVE_ELEMENTS = 512;
export const SMALL_REDUCE_ELEMENTS = 256;
export const SMALL_NORM_ELEMENTS = 256;

/** "n ...: faster in TypeScript" when a static problem is below `limit`; true otherwise (or when not static). */
export function smallProblem(work: number | undefined, limit: number, what: string): true | string {
  return work !== undefined && work < limit ? `${work} ${what}: faster in TypeScript than through a native call` : true;
}

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
 * Below this much work (multiply-adds) a native call runs inline on the JavaScript thread; above it,
 * on the addon's oneDNN thread (native_queue.h) while the event loop stays free. 2^29 MACs is about
 * 10 ms on one AVX2 core, so an inline call holds the event loop for ~10 ms at most: every op of
 * ResNet-50 b1 and BERT-base b1 runs inline, most of ResNet-50 b8's convolutions hop.
 * Why so high: the hop is not cheap (waking the oneDNN thread and settling the Promise back cost
 * ~0.1–0.2 ms per call on the 2-core machine), and while both threads run OpenMP teams libgomp
 * throttles the spinning of both (native_queue.cc). Measured at 2 threads, p50: MobileNetV2 b1
 * 17.6 ms with a 2^23 bound vs 8.8 ms with everything inline; BERT-base 221 ms with 2^27 (the FFN
 * products hopped) vs 148 ms with 2^29. Everything inline would block the loop for 40 ms per
 * convolution at ResNet-50 b8 for no speed gain (1.23× ORT either way).
 */
export const SYNC_MAC_LIMIT = 1 << 29;

/** The bound for memory-bound work (pools, layout reorders), in elements: ~2–8 ms at 1–4 ns each. */
export const SYNC_ELEMENT_LIMIT = 1 << 21;

/**
 * The bound for the elementwise engine, in output elements: its loops stream at ~0.3 ns an element for
 * a simple op on one AVX-512 core (3.3M-element Add: 1.0 ms, Relu: 0.5 ms, a fused HardSwish: 1.1 ms),
 * so 2^23 elements hold the event loop ~3 ms for such a program (~15 ms for a chain of transcendentals),
 * where the hop to the oneDNN thread (0.1–0.2 ms) would cost a tenth of the op.
 */
export const SYNC_ELEMENTWISE_LIMIT = 1 << 23;

/** Where and on how many threads one native call runs. */
export interface NativeDispatch {
  /** Run on the calling (JavaScript) thread rather than the addon's oneDNN thread. */
  inline: boolean;
  /** The OpenMP team size to build and run the primitive with (part of its cache key). */
  threads: number;
}

/**
 * The least work (multiply-adds) a primitive's thread must get before a team is worth it. oneDNN forks
 * its OpenMP team for every primitive it executes, however small, and the region's static split waits
 * for every thread: a few µs while the team still spins, a futex wake-up once it sleeps, and a whole
 * scheduler slice when the machine is oversubscribed and the woken thread waits for a core (see
 * native/src/parallel.h). onnxruntime's pool lets the caller run the shards a late worker has not
 * taken; a static OpenMP split cannot, so small problems get a smaller team, down to one thread (no
 * region at all). 2^18 multiply-adds are ~25 µs on one core, so a warm fork costs under a tenth of
 * what a second thread saves. Measured on the shared 2-core AVX-512 machine, streaming VAD (convs of
 * 0.2–0.3M MACs), 2 threads, 3,000 runs: p50 / p90 0.208 / 55.3 ms with 2^16, 0.131 / 0.42 ms with
 * 2^18, 0.135 / 0.51 ms with 2^20 (0.240 / 85.1 ms with every primitive on the full team).
 */
export const MIN_MACS_PER_THREAD = 1 << 18;

/** The same for memory-bound work (pools, reorders, resizes), in elements: the elementwise engine's 32K split. */
export const MIN_ELEMENTS_PER_THREAD = 1 << 15;

/**
 * The team for `work` units of work: one thread per `perThread` units, at most the session's count.
 * Session creation builds a static shape's primitive with the count its runs will ask for, so the two
 * share one primitive (and the weights it packed).
 */
export function teamFor(binding: NativeBinding, requested: number, work: number, perThread = MIN_MACS_PER_THREAD): number {
  const team = effectiveThreads(binding, requested);
  const useful = Math.floor(work / perThread);
  return useful >= team ? team : Math.max(1, useful);
}

/** Inline below `inlineBelow` units of work, else on the oneDNN thread; a team sized by `teamFor` either way. */
export function dispatchFor(
  binding: NativeBinding,
  requested: number,
  work: number,
  inlineBelow = SYNC_MAC_LIMIT,
  perThread = MIN_MACS_PER_THREAD,
): NativeDispatch {
  return { inline: work < inlineBelow, threads: teamFor(binding, requested, work, perThread) };
}

/** Element-wise equal dims (cheaper than comparing joined strings on every run). */
export function sameDims(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
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
