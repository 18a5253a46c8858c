/** `ProgramCompiler` and `ProgramSerializer` over the addon, i.e. over MIGraphX's C API. */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BYTES_PER_ELEMENT, SwitchyardError, fromNativeError, Tensor, isDataType, viewData, type NumericDataType } from '@switchyard/core';
import type { MigraphxNativeBinding, NativeProgram, NativeTensor } from '../native/binding.js';
import type { CompiledProgram, CompileRequest, CompilerIdentity, ProgramCompiler, ProgramSerializer } from './program-compiler.js';

/** migraphx_save's format for cached programs (MIGraphX's default). */
export const SAVE_FORMAT = 'msgpack';

function toNative(name: string, t: Tensor): NativeTensor {
  const data = t.data;
  if (Array.isArray(data)) throw new SwitchyardError('UNSUPPORTED', `migraphx EP: '${name}' is a ${t.type} tensor, which MIGraphX cannot take`);
  return { name, type: t.type, dims: [...t.dims], data: data as ArrayBufferView };
}

function fromNative(out: { type: string; dims: number[]; data: ArrayBuffer }, index: number): Tensor {
  if (!isDataType(out.type) || out.type === 'string') {
    throw new SwitchyardError('UNSUPPORTED', `migraphx EP: output ${index} has type ${out.type}, which Switchyard cannot hold`);
  }
  const type = out.type as NumericDataType;
  const size = out.data.byteLength / BYTES_PER_ELEMENT[type];
  return new Tensor(type, viewData(type, out.data, 0, size), out.dims);
}

export class NativeCompiledProgram implements CompiledProgram {
  constructor(readonly native: NativeProgram) {}

  async run(inputs: ReadonlyMap<string, Tensor>): Promise<Tensor[]> {
    let outputs: Awaited<ReturnType<NativeProgram['run']>>;
    try {
      outputs = await this.native.run([...inputs].map(([name, t]) => toNative(name, t)));
    } catch (error) {
      // The addon's coded errors (INVALID_ARGUMENT, RELEASED, RUNTIME, ...) keep their codes.
      throw fromNativeError(error, 'MIGraphX program run');
    }
    return outputs.map(fromNative);
  }

  dispose(): void {
    this.native.dispose();
  }
}

export class NativeProgramCompiler implements ProgramCompiler {
  /** `deviceId`: the GPU programs are compiled on and run on; undefined on host targets. */
  constructor(
    readonly binding: MigraphxNativeBinding,
    readonly identity: CompilerIdentity,
    readonly deviceId?: number,
  ) {}

  async compile(request: CompileRequest): Promise<CompiledProgram> {
    try {
      const native = await this.binding.compileOnnx(request.onnx, {
        inputShapes: [...request.inputShapes].map(([n, d]) => [n, [...d]]),
        defaultDimValue: request.defaultDimValue,
        quantization: request.quantization,
        calibration: request.calibration.map((set) => Object.entries(set).map(([n, t]) => toNative(n, t))),
        target: request.target,
        offloadCopy: request.offloadCopy,
        exhaustiveTune: request.exhaustiveTune,
        fastMath: request.fastMath,
        ...(this.deviceId === undefined ? {} : { deviceId: this.deviceId }),
      });
      return new NativeCompiledProgram(native);
    } catch (error) {
      if (error instanceof SwitchyardError) throw error;
      throw new SwitchyardError('EP_FAILED', `MIGraphX could not compile partition '${request.name}': ${(error as Error).message}`, { cause: error });
    }
  }
}

/** `migraphx_save`/`migraphx_load` write and read files: bytes go through a private temporary folder. */
export class NativeProgramSerializer implements ProgramSerializer {
  /** `deviceId`: the GPU loaded programs go to; undefined on host targets. */
  constructor(
    readonly binding: MigraphxNativeBinding,
    readonly deviceId?: number,
  ) {}

  async #withTemporary<T>(use: (path: string) => Promise<T>): Promise<T> {
    const dir = await mkdtemp(join(tmpdir(), 'switchyard-mgx-'));
    try {
      return await use(join(dir, 'program.mxr'));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  save(program: CompiledProgram): Promise<Uint8Array> {
    if (!(program instanceof NativeCompiledProgram)) return Promise.reject(new TypeError('NativeProgramSerializer saves programs of NativeProgramCompiler only'));
    return this.#withTemporary(async (path) => {
      await program.native.save(path, SAVE_FORMAT);
      return new Uint8Array(await readFile(path));
    });
  }

  load(bytes: Uint8Array): Promise<CompiledProgram> {
    return this.#withTemporary(async (path) => {
      await writeFile(path, bytes);
      return new NativeCompiledProgram(await this.binding.loadProgram(path, SAVE_FORMAT, this.deviceId));
    });
  }
}
