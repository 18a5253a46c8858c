/**
 * A test EP with its own "device memory": its kernels accept only tensors on its device, so a run
 * succeeds only if the core inserted copies at every boundary. It counts copies both ways.
 */
import { SwitchyardError } from '../errors.js';
import type { ExecutionProvider } from '../ep/execution-provider.js';
import { defineKernel, type KernelDef } from '../registry/kernel-def.js';
import { Tensor, type DeviceData } from '../tensor/tensor.js';

export interface MockDeviceOptions {
  name?: string;
  /** Ops it claims (float32 only). Supported: Relu, Add, Mul, Sub, Sigmoid, Neg, MatMul (2-D). */
  ops?: readonly string[];
  /** Stated for `partitioning: 'cost'` (ExecutionProvider.linkBandwidth / flopsPerSecond); unset: the defaults. */
  linkBandwidth?: number;
  flopsPerSecond?: number;
}

type Binary = (a: number, b: number) => number;
type Unary = (a: number) => number;
const BINARY: Record<string, Binary> = { Add: (a, b) => a + b, Mul: (a, b) => a * b, Sub: (a, b) => a - b };
const UNARY: Record<string, Unary> = { Relu: (a) => (a > 0 ? a : 0), Sigmoid: (a) => 1 / (1 + Math.exp(-a)), Neg: (a) => -a };

export class MockDeviceProvider implements ExecutionProvider {
  readonly name: string;
  readonly device: string;
  readonly kernels: KernelDef[];
  readonly linkBandwidth?: number;
  readonly flopsPerSecond?: number;
  copiesToDevice = 0;
  copiesToHost = 0;
  readonly #memory = new WeakMap<DeviceData, Float32Array>();

  constructor(options: MockDeviceOptions = {}) {
    this.name = options.name ?? 'mockdev';
    this.device = `${this.name}:0`;
    this.kernels = (options.ops ?? ['Relu', 'Add', 'Mul']).map((op) => (op === 'MatMul' ? this.#matMul() : this.#kernel(op)));
    this.linkBandwidth = options.linkBandwidth;
    this.flopsPerSecond = options.flopsPerSecond;
  }

  /** [M, K] × [K, N], static shapes. */
  #matMul(): KernelDef {
    return defineKernel({
      ep: this.name,
      domain: '',
      opType: 'MatMul',
      sinceVersion: 1,
      typeConstraints: { T: ['float32'] },
      supports: (node, graph) => {
        const [a, b] = node.inputs.map((n) => graph.typeOf(n));
        const ok = a?.kind === 'tensor' && b?.kind === 'tensor' && a.shape?.length === 2 && b.shape?.length === 2 && [...a.shape, ...b.shape].every((d) => typeof d === 'number') && a.shape[1] === b.shape[0];
        return ok ? true : 'operands must be static 2-D matrices';
      },
      create: () => ({
        implementation: 'mock',
        run: (ctx) => {
          const [a, b] = [ctx.input(0), ctx.input(1)];
          const [x, y] = [this.#read(a, 'MatMul'), this.#read(b, 'MatMul')];
          const [m, k, n] = [a.dims[0], a.dims[1], b.dims[1]];
          const out = new Float32Array(m * n);
          for (let i = 0; i < m; i++) for (let p = 0; p < k; p++) for (let j = 0; j < n; j++) out[i * n + j] += x[i * k + p] * y[p * n + j];
          return [this.#store(out, [m, n])];
        },
      }),
    });
  }

  #store(data: Float32Array, dims: readonly number[]): Tensor {
    const handle: DeviceData = { location: this.device, download: async () => data.slice() };
    this.#memory.set(handle, data);
    return Tensor.fromDevice('float32', dims, handle);
  }

  #read(t: Tensor, op: string): Float32Array {
    const data = t.deviceData && this.#memory.get(t.deviceData);
    if (!data) throw new SwitchyardError('RUNTIME', `${this.name} ${op}: input is on '${t.location}', not on ${this.device} (a copy is missing)`);
    return data;
  }

  #kernel(op: string): KernelDef {
    const unary = UNARY[op];
    const binary = BINARY[op];
    if (!unary && !binary) throw new SwitchyardError('INVALID_ARGUMENT', `MockDeviceProvider has no ${op}`);
    return defineKernel({
      ep: this.name,
      domain: '',
      opType: op,
      sinceVersion: 1,
      typeConstraints: { T: ['float32'] },
      supports: (node, graph) => {
        if (!binary) return true;
        const [a, b] = node.inputs.map((n) => graph.typeOf(n));
        const same = a?.kind === 'tensor' && b?.kind === 'tensor' && JSON.stringify(a.shape) === JSON.stringify(b.shape) && a.shape?.every((d) => typeof d === 'number');
        return same ? true : 'operands must have the same static shape (no broadcasting)';
      },
      create: () => ({
        implementation: 'mock',
        run: (ctx) => {
          const a = ctx.input(0);
          const x = this.#read(a, op);
          const out = new Float32Array(x.length);
          if (unary) for (let i = 0; i < x.length; i++) out[i] = unary(x[i]);
          else {
            const y = this.#read(ctx.input(1), op);
            for (let i = 0; i < x.length; i++) out[i] = binary(x[i], y[i]);
          }
          return [this.#store(out, a.dims)];
        },
      }),
    });
  }

  async copyToDevice(t: Tensor): Promise<Tensor> {
    if (t.type !== 'float32') throw new SwitchyardError('RUNTIME', `${this.name} holds float32 only, got ${t.type}`);
    this.copiesToDevice++;
    return this.#store((t.data as Float32Array).slice(), t.dims);
  }

  async copyToHost(t: Tensor): Promise<Tensor> {
    this.copiesToHost++;
    return new Tensor('float32', this.#read(t, 'copy').slice(), t.dims);
  }
}
