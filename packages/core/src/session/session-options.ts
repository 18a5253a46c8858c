/** Session and run options, named as onnxruntime-node names them where the concept is the same. */
import type { ExecutionProviderConfig } from '../ep/execution-provider.js';

import type { GraphOptimizationLevel } from '../optimize/types.js';

export type { GraphOptimizationLevel };

export interface SessionOptions {
  /** EPs in priority order: names (`'rocm'`), `{name, ...options}` objects, or EP instances. CPU is appended last. Default: every registered EP by priority, then CPU. */
  executionProviders?: readonly ExecutionProviderConfig[];
  /** Do not append the CPU EP. Nodes no listed EP can run then make `create` fail. Default false. */
  disableCpuFallback?: boolean;
  /** Default `'all'`: every pass Switchyard has (basic: constant folding, dead code, identities, common sub-expressions). */
  graphOptimizationLevel?: GraphOptimizationLevel;
  /** Writes the optimized model (before partitioning) to this path as ONNX. */
  optimizedModelFilePath?: string;
  /** Records per-node timings; `endProfiling()` writes a Chrome trace. Default false. */
  enableProfiling?: boolean;
  /** File name prefix of the profile. Default `switchyard_profile`. */
  profileFilePrefix?: string;
  /** Threads a node's kernel may use. Default: 0 = the EP's choice (all cores for CPU). */
  intraOpNumThreads?: number;
  /** 0 verbose, 1 info, 2 warning, 3 error, 4 fatal. Default 2. */
  logSeverityLevel?: 0 | 1 | 2 | 3 | 4;
  /** Prefix of log lines. */
  logId?: string;
  /** Reuse one planned host arena for intermediate values. Default true. */
  enableMemPattern?: boolean;
  /** Keep graph outputs on their device (`'device'`) instead of copying them to the host. Per output or for all. Default `'cpu'`. */
  preferredOutputLocation?: 'cpu' | 'device' | Record<string, 'cpu' | 'device'>;
  /** Folder to resolve external data against when the model is given as bytes. */
  externalDataFolder?: string;
  /**
   * Largest single tensor (bytes) a run may allocate for a node's output. A shape read from an input
   * or computed at run time (ConstantOfShape, Expand, Tile, Resize, Range, …) that would need more
   * fails the run with an `OUT_OF_MEMORY` SwitchyardError instead of exhausting the process. Default
   * `DEFAULT_MAX_TENSOR_BYTES` (4 GiB).
   */
  maxTensorBytes?: number;
}

export interface RunOptions {
  /** Overrides the session's log severity for this run. */
  logSeverityLevel?: 0 | 1 | 2 | 3 | 4;
  /** Label for log lines of this run. */
  tag?: string;
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
