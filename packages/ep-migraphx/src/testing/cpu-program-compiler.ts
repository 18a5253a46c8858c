/**
 * Test doubles for the MIGraphX seam. `CpuProgramCompiler` "compiles" a partition by loading its ONNX
 * bytes into an ep-cpu session and, like a real static MIGraphX program, refuses inputs whose shapes
 * differ from the ones it was compiled for. It counts compiles and watches for overlapping runs.
 * `CpuProgramSerializer` saves a program as its request (the ONNX and shapes) and loads it back.
 */
import { InferenceSession, SwitchyardError, Tensor, loadModel } from '@switchyard/core';
import type { CompiledProgram, CompileRequest, CompilerIdentity, ProgramCompiler, ProgramSerializer } from '../program/program-compiler.js';

export class CpuProgram implements CompiledProgram {
  running = 0;
  maxConcurrentRuns = 0;
  runs = 0;
  disposed = false;

  constructor(
    readonly request: CompileRequest,
    readonly session: InferenceSession,
    readonly runDelayMs: number,
  ) {}

  async run(inputs: ReadonlyMap<string, Tensor>): Promise<Tensor[]> {
    if (this.disposed) throw new Error('run after dispose');
    this.running++;
    this.maxConcurrentRuns = Math.max(this.maxConcurrentRuns, this.running);
    try {
      for (const [name, dims] of this.request.inputShapes) {
        const t = inputs.get(name);
        if (!t || t.dims.join('x') !== dims.join('x')) {
          throw new SwitchyardError('RUNTIME', `program for ${name}[${dims}] given ${t ? `[${t.dims}]` : 'nothing'}`);
        }
      }
      if (this.runDelayMs > 0) await new Promise((r) => setTimeout(r, this.runDelayMs));
      const out = await this.session.run(Object.fromEntries(inputs));
      this.runs++;
      return this.session.outputNames.map((n) => out[n] as Tensor);
    } finally {
      this.running--;
    }
  }

  dispose(): void {
    this.disposed = true;
    void this.session.release();
  }
}

export class CpuProgramCompiler implements ProgramCompiler {
  readonly requests: CompileRequest[] = [];
  readonly programs: CpuProgram[] = [];

  constructor(
    readonly identity: CompilerIdentity = { version: '2.16.0', target: 'ref', deviceArch: 'host-x64' },
    readonly options: { runDelayMs?: number; compileDelayMs?: number } = {},
  ) {}

  get compiles(): number {
    return this.requests.length;
  }

  async compile(request: CompileRequest): Promise<CpuProgram> {
    this.requests.push(request);
    if (this.options.compileDelayMs) await new Promise((r) => setTimeout(r, this.options.compileDelayMs));
    const session = await InferenceSession.fromModel(await loadModel(request.onnx), { executionProviders: ['cpu'] });
    const program = new CpuProgram(request, session, this.options.runDelayMs ?? 0);
    this.programs.push(program);
    return program;
  }
}

/** Saves the request behind a program; loading rebuilds it on ep-cpu. Counts both. */
export class CpuProgramSerializer implements ProgramSerializer {
  saves = 0;
  loads = 0;
  constructor(readonly compiler: CpuProgramCompiler) {}

  async save(program: CompiledProgram): Promise<Uint8Array> {
    if (!(program instanceof CpuProgram)) throw new Error('not a CpuProgram');
    this.saves++;
    const { onnx, ...rest } = program.request;
    const json = JSON.stringify({ ...rest, inputShapes: [...rest.inputShapes], calibration: rest.calibration.length, onnx: Buffer.from(onnx).toString('base64') });
    return new TextEncoder().encode(json);
  }

  async load(bytes: Uint8Array): Promise<CompiledProgram> {
    const parsed = JSON.parse(new TextDecoder().decode(bytes)) as Omit<CompileRequest, 'onnx' | 'inputShapes' | 'calibration'> & { onnx: string; inputShapes: Array<[string, number[]]> };
    this.loads++;
    const request: CompileRequest = { ...parsed, onnx: Buffer.from(parsed.onnx, 'base64'), inputShapes: new Map(parsed.inputShapes), calibration: [] };
    const session = await InferenceSession.fromModel(await loadModel(request.onnx), { executionProviders: ['cpu'] });
    return new CpuProgram(request, session, 0);
  }
}
