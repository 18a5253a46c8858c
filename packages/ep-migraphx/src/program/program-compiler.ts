/**
 * The seam between the EP and MIGraphX: compiling one partition's ONNX bytes for one set of input
 * shapes into a program, running it, and saving/loading it. The native binding implements it; tests
 * use doubles that count compiles or run the ONNX on ep-cpu.
 */
import type { Tensor } from '@switchyard/core';

export type Quantization = 'none' | 'fp16' | 'bf16' | 'int8';

/** Feeds by program parameter name, for int8 calibration. */
export type CalibrationSet = Readonly<Record<string, Tensor>>;

export interface CompileRequest {
  /** Label for messages (the partition's name). */
  name: string;
  /** The partition as a standalone ONNX model. */
  onnx: Uint8Array;
  /** Concrete dims for every input (MIGraphX's `set_input_parameter_shape`): programs are static. */
  inputShapes: ReadonlyMap<string, readonly number[]>;
  /** For symbolic dims not fixed by `inputShapes` (`set_default_dim_value`). */
  defaultDimValue: number;
  quantization: Quantization;
  /** int8 only: the data `migraphx_quantize_int8` calibrates with. */
  calibration: readonly CalibrationSet[];
  /** MIGraphX target name: 'gpu', 'ref', 'cpu'. */
  target: string;
  offloadCopy: boolean;
  exhaustiveTune: boolean;
  fastMath: boolean;
}

/**
 * A compiled program. Not safe to run concurrently with itself (MIGraphX runs a program in its own
 * context and scratch memory): callers serialize runs per program (`SerializedProgram`).
 */
export interface CompiledProgram {
  /** Runs with every parameter given by name; outputs in the ONNX graph's output order, on the host. */
  run(inputs: ReadonlyMap<string, Tensor>): Promise<Tensor[]>;
  dispose(): void;
}

/** What identifies the compiler in cache keys: a program compiled by one never loads into another. */
export interface CompilerIdentity {
  /** MIGraphX (library) version. */
  version: string;
  target: string;
  /** Device architecture the code was generated for (`gfx90a`, or `host-x64` for CPU targets). */
  deviceArch: string;
}

export interface ProgramCompiler {
  readonly identity: CompilerIdentity;
  compile(request: CompileRequest): Promise<CompiledProgram>;
}

/** Turns compiled programs into bytes and back (`migraphx_save` / `migraphx_load`), for the disk cache. */
export interface ProgramSerializer {
  save(program: CompiledProgram): Promise<Uint8Array>;
  load(bytes: Uint8Array): Promise<CompiledProgram>;
}
