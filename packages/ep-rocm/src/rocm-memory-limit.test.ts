/**
 * gpuMemLimit over everything the rocm EP allocates, and its memoryEstimate, with a stand-in for the
 * addon: its ExecutionPlan runs Add/Relu/Copy steps over a host "arena" laid out exactly as the
 * description says, and each build takes LIBRARY_BYTES from a pretend default arena (the libraries'
 * workspaces), so what the EP charges can be checked against what the plans hold.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { InferenceSession, SwitchyardError, Tensor, type Model } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import type { NativeHipBinding } from '@switchyard/native-hip';
import { RocmExecutionProvider } from './rocm-provider.js';
import type { PlanDescription } from './plan/plan-description.js';
import { CUBLAS_WORKSPACE_BYTES } from './plan/plan-footprint.js';

const MiB = 2 ** 20;
const LIBRARY_BYTES = 3 * MiB;
const N = 65536; // elements of x and of the weight: 256 KiB each

class StandInPlan {
  static built: StandInPlan[] = [];
  readonly arenaBytes: number;
  readonly stepCount: number;
  readonly stepNotes: string[] = [];
  disposed = false;
  readonly #heap: Float32Array;

  constructor(
    readonly description: PlanDescription,
    library: { inUse: number; reserved: number },
  ) {
    this.arenaBytes = description.arenaBytes;
    this.stepCount = description.steps.length;
    this.#heap = new Float32Array(Math.ceil(description.arenaBytes / 4));
    for (const c of description.constants) this.#view(c.buffer).set(c.data as Float32Array);
    library.inUse += LIBRARY_BYTES;
    library.reserved += LIBRARY_BYTES;
    StandInPlan.built.push(this);
  }

  #view(id: number): Float32Array {
    const b = this.description.buffers[id];
    if (b.dtype !== 1 || b.offset % 4 !== 0 || b.offset + b.bytes > this.arenaBytes) throw new Error(`stand-in: buffer ${id} is not a float32 view inside the arena`);
    return this.#heap.subarray(b.offset / 4, (b.offset + b.bytes) / 4);
  }

  async run(inputs: ArrayBufferView[], outputs: ArrayBufferView[]): Promise<void> {
    if (this.disposed) throw new Error('stand-in: run after dispose');
    inputs.forEach((src, i) => this.#view(this.description.inputs[i]).set(src as Float32Array));
    for (const s of this.description.steps) {
      const [a, b] = s.inputs.map((id) => this.#view(id));
      const y = this.#view(s.outputs[0]);
      if (s.op === 'Add') for (let i = 0; i < y.length; i++) y[i] = a[i] + b[i % b.length];
      else if (s.op === 'Relu') for (let i = 0; i < y.length; i++) y[i] = Math.max(0, a[i]);
      else if (s.op === 'Copy') y.set(a);
      else throw new Error(`stand-in: no step ${s.op}`);
    }
    outputs.forEach((dst, i) => (dst as Float32Array).set(this.#view(this.description.outputs[i])));
  }

  dispose(): void {
    this.disposed = true;
  }
}

function standInProvider(options: Record<string, unknown>, blas: 'cuBLAS' | 'rocBLAS' = 'rocBLAS'): RocmExecutionProvider {
  const library = { inUse: 0, reserved: 0 };
  const binding = {
    ExecutionPlan: class extends StandInPlan {
      constructor(d: PlanDescription) {
        super(d, library);
      }
    },
    planStepOps: () => ['Add', 'Relu', 'Copy', 'MatMul'],
    blasInfo: () => ({ available: true, backend: blas }),
    defaultArenaStats: () => ({ ...library }),
    DeviceArena: class {},
  } as unknown as NativeHipBinding;
  const device = { index: 0, name: 'stand-in', arch: 'gfx90a', major: 9, minor: 0, totalMemory: 64 * 2 ** 30, computeUnits: 1, warpSize: 64, usable: true };
  const probe = { ok: true, binding, runtime: { platform: 'amd', runtime: 'HIP', runtimeVersion: 0, driverVersion: 0, compiledArchs: ['gfx90a'] }, devices: [device] };
  return new (class extends RocmExecutionProvider {
    override async init(): Promise<void> {
      this.initWith(binding, probe as unknown as Parameters<RocmExecutionProvider['initWith']>[1]);
    }
  })(options);
}

/** y = Relu(x + w): w a 256 KiB initializer. */
function addReluModel(batch: number | string, op: 'Add' | 'MatMul' = 'Add'): Model {
  const w = Float32Array.from({ length: op === 'Add' ? N : 64 * 64 }, (_, i) => ((i % 7) - 3) / 4);
  const width = op === 'Add' ? N : 64;
  return buildModel({
    inputs: [['x', 'float32', [batch, width]]],
    outputs: [['y', 'float32', [batch, width]]],
    initializers: { w: new Tensor('float32', w, op === 'Add' ? [N] : [64, 64]) },
    nodes: [
      { op, inputs: ['x', 'w'], outputs: ['s'] },
      { op: 'Relu', inputs: ['s'], outputs: ['y'] },
    ],
  });
}

const sessionOptions = (ep: RocmExecutionProvider) => ({ executionProviders: [ep], graphOptimizationLevel: 'disabled' as const });

afterEach(() => {
  StandInPlan.built = [];
});

describe('rocm gpuMemLimit counts plans and library workspaces', () => {
  it("reserves a static partition's plan at session creation: its arena (with the weights) and what its build took", async () => {
    const ep = standInProvider({ gpuMemLimit: 64 * MiB });
    const session = await InferenceSession.fromModel(addReluModel(1), sessionOptions(ep));
    expect(session.placement.nodes.every((n) => n.ep === 'rocm')).toBe(true);
    // Before any run: no plan is built, its memory is reserved.
    expect(StandInPlan.built).toHaveLength(0);
    const admitted = ep.memoryUsage!;
    expect(admitted.byKind.plans).toBeGreaterThanOrEqual(3 * N * 4); // w, x and y at least
    expect(admitted.byKind.libraries).toBe(0); // no BLAS step, and rocBLAS keeps its own workspace

    const x = Float32Array.from({ length: N }, (_, i) => ((i % 11) - 5) / 3);
    const y = (await session.run({ x: new Tensor('float32', x, [1, N]) })).y as Tensor;
    const got = y.data as Float32Array;
    for (const i of [0, 1, 5, 77, N - 1]) expect(got[i]).toBeCloseTo(Math.max(0, x[i] + ((i % 7) - 3) / 4), 6);

    const [plan] = StandInPlan.built;
    const used = ep.memoryUsage!;
    expect(used.byKind.plans).toBe(plan.arenaBytes); // the plan built is the plan reserved
    expect(admitted.byKind.plans).toBe(plan.arenaBytes);
    expect(used.byKind.libraries).toBe(LIBRARY_BYTES); // measured on the default arena
    expect(used.inUseBytes).toBe(plan.arenaBytes + LIBRARY_BYTES);
    const weights = plan.description.constants.reduce((a, c) => a + plan.description.buffers[c.buffer].bytes, 0);
    expect(weights).toBe(N * 4);

    // session.memoryPlan: the EP's figures, which add up to what the plan holds except the libraries' measured share.
    const rocm = session.memoryPlan.devices.find((d) => d.device === 'rocm:0')!;
    expect(rocm.activationSource).toBe('provider');
    expect(rocm.weightsBytes).toBe(weights);
    expect(rocm.weightsBytes + rocm.activationBytes + rocm.workspaceBytes).toBe(plan.arenaBytes);

    await session.release();
    expect(plan.disposed).toBe(true);
    expect(ep.memoryUsage!.inUseBytes).toBe(0);
    expect(ep.memoryUsage!.peakBytes).toBe(plan.arenaBytes + LIBRARY_BYTES);
  });

  it('refuses session creation with OUT_OF_MEMORY when the plan alone passes the limit, saying what and how much', async () => {
    const ep = standInProvider({ gpuMemLimit: 512 * 1024 });
    const error = await InferenceSession.fromModel(addReluModel(1), sessionOptions(ep)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SwitchyardError);
    expect((error as SwitchyardError).code).toBe('OUT_OF_MEMORY');
    expect((error as Error).message).toMatch(/rocm:0: the plan of '.+' \(float32\[1, 65536\]\) needs \d+ bytes \(\d\.\d MiB\), which would pass gpuMemLimit \(524288 bytes; nothing in use\)/);
    expect(StandInPlan.built).toHaveLength(0); // refused before anything was allocated
  });

  it('charges the BLAS workspace a cuBLAS plan stream takes, and refuses when that passes the limit', async () => {
    const ep = standInProvider({ gpuMemLimit: 8 * MiB }, 'cuBLAS');
    const error = await InferenceSession.fromModel(addReluModel(1, 'MatMul'), sessionOptions(ep)).catch((e: unknown) => e);
    expect((error as SwitchyardError).code).toBe('OUT_OF_MEMORY');
    expect((error as Error).message).toMatch(/the library workspaces of the plan of .* needs 33554432 bytes \(32\.0 MiB\).*\d+ bytes in use: plans \d+/);
    const roomy = standInProvider({ gpuMemLimit: 64 * MiB }, 'cuBLAS');
    const session = await InferenceSession.fromModel(addReluModel(1, 'MatMul'), sessionOptions(roomy));
    expect(roomy.memoryUsage!.byKind.libraries).toBe(CUBLAS_WORKSPACE_BYTES);
    const rocm = session.memoryPlan.devices.find((d) => d.device === 'rocm:0')!;
    expect(rocm.workspaceBytes).toBeGreaterThanOrEqual(CUBLAS_WORKSPACE_BYTES);
    await session.release();
    expect(roomy.memoryUsage!.inUseBytes).toBe(0);
  });

  it('a first run whose plan build takes library workspace past the limit fails with OUT_OF_MEMORY and frees the plan', async () => {
    const probe = standInProvider({ gpuMemLimit: 1e12 });
    const measure = await InferenceSession.fromModel(addReluModel(1), sessionOptions(probe));
    const arena = probe.memoryUsage!.byKind.plans;
    await measure.release();
    const ep = standInProvider({ gpuMemLimit: arena + MiB });
    const session = await InferenceSession.fromModel(addReluModel(1), sessionOptions(ep));
    const error = await session.run({ x: new Tensor('float32', new Float32Array(N), [1, N]) }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/rocm:0: the library workspace taken for the plan of .* needs 3145728 bytes \(3\.0 MiB\), which would pass gpuMemLimit/);
    expect(StandInPlan.built.at(-1)!.disposed).toBe(true);
    expect(ep.memoryUsage!.inUseBytes).toBe(0);
    await session.release();
  });

  it('memoryPlan counts the weights as the plans hold them: float16 under fp16, not the float32 initializers', async () => {
    const ep = standInProvider({ gpuMemLimit: 1e12, fp16: true });
    const session = await InferenceSession.fromModel(addReluModel(1), sessionOptions(ep));
    const rocm = session.memoryPlan.devices.find((d) => d.device === 'rocm:0')!;
    expect(rocm.weightsBytes).toBe(N * 2);
    // Admitted (described, not built): the same arena the estimate adds up to.
    expect(rocm.weightsBytes + rocm.activationBytes + rocm.workspaceBytes).toBe(ep.memoryUsage!.byKind.plans);
    expect(StandInPlan.built).toHaveLength(0);
    await session.release();
  });

  it('a symbolic batch leaves the charge to the first run, one plan per shape, each released with the session', async () => {
    const ep = standInProvider({ gpuMemLimit: 1e12 });
    const session = await InferenceSession.fromModel(addReluModel('batch'), sessionOptions(ep));
    expect(ep.memoryUsage!.inUseBytes).toBe(0);
    // memoryPlanFor describes the plan at the given batch without building it.
    const planned = session.memoryPlanFor({ x: [3, N] }).devices.find((d) => d.device === 'rocm:0')!;
    expect(StandInPlan.built).toHaveLength(0);
    await session.run({ x: new Tensor('float32', new Float32Array(3 * N), [3, N]) });
    await session.run({ x: new Tensor('float32', new Float32Array(N), [1, N]) });
    const [b3, b1] = StandInPlan.built;
    expect(planned.weightsBytes + planned.activationBytes + planned.workspaceBytes).toBe(b3.arenaBytes);
    expect(ep.memoryUsage!.byKind.plans).toBe(b3.arenaBytes + b1.arenaBytes);
    expect(ep.memoryUsage!.byKind.libraries).toBe(2 * LIBRARY_BYTES);
    await session.release();
    expect(ep.memoryUsage!.inUseBytes).toBe(0);
  });
});
