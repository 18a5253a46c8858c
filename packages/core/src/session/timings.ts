/** Where a session's time goes: once at creation, and per run (for `switchyard bench`). */

/** Milliseconds spent in each phase of `InferenceSession.create` / `fromModel`. */
export interface CreationTimings {
  /** Reading and decoding the ONNX file (0 for `fromModel`). */
  parseMs: number;
  /** Creating and initializing the execution providers (opening devices, loading libraries). */
  providersMs: number;
  /** Shape inference and graph optimization, the EPs' fusions included. */
  optimizeMs: number;
  /** Partitioning, copy insertion, kernel preparation and partition compilation, memory planning. */
  prepareMs: number;
}

/** Milliseconds of one run by phase (`InferenceSession.runWithTimings`). */
export interface RunTimings {
  /** Wall time of the whole run. */
  totalMs: number;
  /**
   * Kernel and compiled-partition steps of the main graph (a control-flow node counts with its bodies).
   * On an asynchronous device this is launch time: waiting for queued work lands in the next copy.
   */
  execMs: number;
  /** Copies between devices, graph inputs and outputs included. */
  copyMs: number;
  /** How many copies ran. */
  copies: number;
  /** The rest: feed checks, scheduling, yields to the event loop. */
  otherMs: number;
}

/** What the executor adds to while a timed run walks the main graph's plan. */
export interface PhaseClock {
  execMs: number;
  copyMs: number;
  copies: number;
}
