/** The shape of `switchyard_migraphx.node`, declared once. `[sync]`/`[async]` as in the C++ headers. */

/** One dlopen attempt: the candidate and why it was not kept (null when it was). */
export interface LibraryAttempt {
  path: string;
  error: string | null;
}

/** `loadLibrary(candidates)`: what was loaded, or why nothing was. Never thrown. */
export interface MigraphxLibraryReport {
  loaded: boolean;
  /** The candidate that loaded, as given. */
  path: string | null;
  /** The file it resolved to, symlinks followed. */
  realPath: string | null;
  /** From the versioned file name (`libmigraphx_c.so.3.0.70100` → `3.0.70100`): the C API has no version function. */
  version: string | null;
  /** The last dlopen error (or why a loaded file was rejected); null when loaded. */
  error: string | null;
  /** Every candidate tried in this call, in order (empty when a library was already kept earlier). */
  attempts: LibraryAttempt[];
  /** ONNX operators the library's parser registers, from `migraphx_get_onnx_operator_name_at_index`. */
  operators: string[] | null;
  operatorsError: string | null;
  /** Why this library's datatype numbering differs from the header the addon declares against; null when it matches. */
  dataTypeError: string | null;
  /** Entry points some versions lack. */
  optional: { quantizeBf16: boolean; exhaustiveTune: boolean } | null;
}

/** A host tensor crossing into the addon (its bytes are copied). */
export interface NativeTensor {
  name: string;
  /** A @switchyard/core DataType name that MIGraphX has a type for. */
  type: string;
  dims: number[];
  data: ArrayBufferView;
}

export interface NativeShape {
  /** A DataType name, or `migraphx:<n>` for MIGraphX types Switchyard has none for. */
  type: string;
  dims: number[];
}

export interface NativeCompileOptions {
  inputShapes: Array<[string, number[]]>;
  defaultDimValue: number;
  quantization: 'none' | 'fp16' | 'bf16' | 'int8';
  calibration: NativeTensor[][];
  target: string;
  offloadCopy: boolean;
  exhaustiveTune: boolean;
  fastMath: boolean;
  /** The GPU to compile on (HIP ordinal, made current on the worker thread); absent on host targets. */
  deviceId?: number;
}

/** `hipDevices()`: the GPUs the HIP runtime MIGraphX loaded sees, or why that is unknown. */
export interface HipDevicesReport {
  count: number | null;
  error: string | null;
}

/** A compiled MIGraphX program. Runs of one program are serialized natively as well. */
export interface NativeProgram {
  /** [async] */
  run(inputs: NativeTensor[]): Promise<Array<NativeShape & { data: ArrayBuffer }>>;
  /** [async] `migraphx_save` to `path` in `format` ('msgpack' or 'json'). */
  save(path: string, format: string): Promise<void>;
  /** [sync] */
  parameterShapes(): Array<NativeShape & { name: string }>;
  /** [sync] */
  outputShapes(): NativeShape[];
  /** [sync] Releases the program after a run in progress; later calls throw. */
  dispose(): void;
}

export interface MigraphxNativeBinding {
  /** [sync] Throws TypeError unless `candidates` is an array of strings. */
  loadLibrary(candidates: readonly string[]): MigraphxLibraryReport;
  /** [sync] null when the loaded library can create target `name`, else why not. Throws before `loadLibrary` has kept one. */
  targetError(name: string): string | null;
  /** [async] parse → quantize → compile; rejects with the failing C API call and its status. */
  compileOnnx(onnx: Uint8Array, options: NativeCompileOptions): Promise<NativeProgram>;
  /** [async] `migraphx_load` of a saved, compiled program, onto GPU `deviceId` (absent on host targets). */
  loadProgram(path: string, format: string, deviceId?: number): Promise<NativeProgram>;
  /** [sync] hipGetDeviceCount of the HIP runtime MIGraphX loaded; call after `targetError('gpu')` created the target. */
  hipDevices(): HipDevicesReport;
}

export function isMigraphxNativeBinding(value: unknown): value is MigraphxNativeBinding {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.loadLibrary === 'function' && typeof v.targetError === 'function' && typeof v.compileOnnx === 'function' && typeof v.loadProgram === 'function' && typeof v.hipDevices === 'function';
}
