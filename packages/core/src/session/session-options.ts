/**
 * Session and run options, named as onnxruntime-node names them where the concept is the same.
 * `check-options.ts` holds what each accepts; an option missing there is refused as unknown.
 */
import type { ExecutionProviderConfig } from '../ep/execution-provider.js';

import type { GraphOptimizationLevel } from '../optimize/types.js';

export type { GraphOptimizationLevel };

export interface SessionOptions {
  /** EPs in priority order: names (`'rocm'`), `{name, ...options}` objects, or EP instances. CPU is appended last. Default: every registered EP by priority, then CPU. */
  executionProviders?: readonly ExecutionProviderConfig[];
  /** Do not append the CPU EP; an EP listed in `executionProviders` that cannot start fails `create`. Default false. */
  disableCpuFallback?: boolean;
  /**
   * Default `'all'`: every pass Switchyard has (basic: constant folding, dead code, identities, common
   * sub-expressions; extended/all: the passes EPs contribute). onnxruntime's `'layout'` is taken as `'all'`
   * (Switchyard's layout passes run at `'all'`).
   */
  graphOptimizationLevel?: GraphOptimizationLevel | 'layout';
  /** Writes the optimized model (before partitioning) to this path as ONNX. */
  optimizedModelFilePath?: string;
  /** Records per-node timings; `endProfiling()` writes a Chrome trace. Default false. */
  enableProfiling?: boolean;
  /** File name prefix of the profile. Default `switchyard_profile`. */
  profileFilePrefix?: string;
  /** Threads a node's kernel may use, at most 1024. Default: 0 = the EP's choice (all cores for CPU). */
  intraOpNumThreads?: number;
  /** Log lines below this are dropped: 0 verbose, 1 info, 2 warning, 3 error, 4 fatal. Default: `env.logLevel` (warning). */
  logSeverityLevel?: 0 | 1 | 2 | 3 | 4;
  /** Prefix of log lines. Default `switchyard`. */
  logId?: string;
  /** Reuse one planned host arena for intermediate values. Default true. */
  enableMemPattern?: boolean;
  /** Keep graph outputs on their device (`'device'`) instead of copying them to the host. Per output or for all. Default `'cpu'`. */
  preferredOutputLocation?: 'cpu' | 'device' | Record<string, 'cpu' | 'device'>;
  /** Folder to resolve external data against when the model is given as bytes. */
  externalDataFolder?: string;
  /**
   * Sizes for symbolic dimensions, by name (`{ batch: 1 }`): the model's inputs (and every value whose
   * shape names the dimension) get that size, so shapes are fixed at creation and feeds must match.
   */
  freeDimensionOverrides?: Readonly<Record<string, number>>;
  /**
   * How nodes are assigned to EPs. `'first-capable'` (default, as onnxruntime): each node goes to the
   * first EP in `executionProviders` that can run it. `'cost'`: then each group of single nodes on a
   * device is weighed against running it on the host: the copies it causes (bytes over the EP's
   * `linkBandwidth`, default 12 GB/s, plus 10 µs per copy) against the compute the device saves (FLOPs
   * over each EP's `flopsPerSecond`); it moves to the host when the copies cost more. The placement
   * gives each weighed node's reason (`placement.nodes[i].reason`).
   */
  partitioning?: 'first-capable' | 'cost';
  /**
   * Largest single tensor (bytes) a run may allocate for a node's output. A shape read from an input
   * or computed at run time (ConstantOfShape, Expand, Tile, Resize, Range, …) that would need more
   * fails the run with an `OUT_OF_MEMORY` SwitchyardError instead of exhausting the process. Default
   * `DEFAULT_MAX_TENSOR_BYTES` (4 GiB).
   */
  maxTensorBytes?: number;

  // onnxruntime options accepted so that code written for it runs; they change nothing here (a
  // verbose log line says so). See docs/using-sessions.md.

  /** No effect: Switchyard runs a graph's nodes one after another (parallelism is inside kernels). */
  interOpNumThreads?: number;
  /** No effect: nodes always run in order (`'sequential'`). */
  executionMode?: 'sequential' | 'parallel';
  /** No effect: host arenas are planned per session (`enableMemPattern`). */
  enableCpuMemArena?: boolean;
  /** No effect: Switchyard has no verbose sub-levels. */
  logVerbosityLevel?: number;
  /** No effect: onnxruntime-web's WebGPU graph capture. */
  enableGraphCapture?: boolean;
  /** No effect: onnxruntime's session config entries. */
  extra?: Record<string, unknown>;
}

export interface RunOptions {
  /** Log lines of this run below this severity are dropped (0 verbose … 4 fatal). Default: the session's. */
  logSeverityLevel?: 0 | 1 | 2 | 3 | 4;
  /** Label of this run in its log lines and profile events. */
  tag?: string;
  /** No effect: Switchyard has no verbose sub-levels. */
  logVerbosityLevel?: number;
  /** No effect: onnxruntime's run config entries. */
  extra?: Record<string, unknown>;
  /**
   * Stops the run when it fires: between kernels, the run rejects with an `AbortError` (code
   * `ABORTED`). A signal that has already fired rejects before any work. The session stays usable.
   */
  signal?: AbortSignal;
  /**
   * onnxruntime's flag: set it to `true` on this options object while the run is in flight and the
   * run stops at the next kernel boundary with an `AbortError`.
   */
  terminate?: boolean;
  /** Stops the run with an `AbortError` once it has taken longer than this (ms, checked between kernels). Default: no limit. */
  timeoutMs?: number;
}

/** Default `SessionOptions.maxTensorBytes`: 4 GiB. */
export const DEFAULT_MAX_TENSOR_BYTES = 4 * 1024 ** 3;
