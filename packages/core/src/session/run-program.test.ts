/** The numbered form of a plan: slots, liveness, skipped copies, clock reads; and runs that depend on them. */
import { describe, expect, it } from 'vitest';
import type { ExecutionProvider } from '../ep/execution-provider.js';
import type { Model } from '../ir/graph.js';
import { KernelRegistry } from '../registry/kernel-registry.js';
import { inferShapes } from '../shape-inference/index.js';
import { Tensor } from '../tensor/tensor.js';
import { buildModel } from '../testing/build-model.js';
import { hostTestProvider } from '../testing/host-test-ep.js';
import { buildPlan } from './build-plan.js';
import type { ExecutionPlan } from './execution-plan.js';
import { InferenceSession } from './inference-session.js';
import { StepKind, programOf, type RunProgram } from './run-program.js';

async function planOf(model: Model, providers: ExecutionProvider[] = [hostTestProvider()]): Promise<ExecutionPlan> {
  inferShapes(model.graph);
  const registry = new KernelRegistry();
  for (const ep of providers) for (const k of ep.kernels ?? []) registry.register(k);
  return buildPlan(model.graph, { providers, registry, skipped: [], memoryPattern: true, threads: 1 });
}

/** Step i's input, output and freed value names. */
function io(p: RunProgram, i: number): { inputs: string[]; outputs: string[]; frees: string[] } {
  const names = (from: number, to: number) => Array.from(p.io.subarray(from, to), (s) => (s < 0 ? '' : p.names[s]));
  const b = p.bounds;
  return { inputs: names(b[3 * i], b[3 * i + 1]), outputs: names(b[3 * i + 1], b[3 * i + 2]), frees: names(b[3 * i + 2], b[3 * i + 3]) };
}

/** x → Relu → r1 → Neg → r2; Add(r1, r2) → a; Mul(a, k) → out. r1 is read twice, k is a constant. */
function diamond(): Model {
  return buildModel({
    inputs: [['x', 'float32', [2, 2]]],
    outputs: [['out', 'float32', [2, 2]]],
    nodes: [
      { op: 'Relu', inputs: ['x'], outputs: ['r1'], name: 'relu' },
      { op: 'Neg', inputs: ['r1'], outputs: ['r2'], name: 'neg' },
      { op: 'Add', inputs: ['r1', 'r2'], outputs: ['a'], name: 'add' },
      { op: 'Mul', inputs: ['a', 'k'], outputs: ['out'], name: 'mul' },
    ],
    initializers: { k: new Tensor('float32', Float32Array.of(2, 2, 2, 2), [2, 2]) },
  });
}

/**
 * A device EP that takes the whole graph as one fused partition computing `x + w0 + w1 + …` over its
 * initializers. It counts uploads and disposals of the device tensors it hands out.
 */
function fusingProvider() {
  const stats = { toDevice: 0, toHost: 0, disposed: 0 };
  const memory = new WeakMap<object, Float32Array>();
  const store = (data: Float32Array, dims: readonly number[]): Tensor => {
    const handle = { location: 'fz:0', download: async () => data.slice(), dispose: () => void stats.disposed++ };
    memory.set(handle, data);
    return Tensor.fromDevice('float32', dims, handle);
  };
  const ep: ExecutionProvider = {
    name: 'fz',
    device: 'fz:0',
    getCapability: (graph) => ({ capabilities: [{ kind: 'fused', nodes: [...graph.nodes], name: 'fz_0' }], declined: new Map() }),
    compile: async (partition) => {
      const weights = [...partition.graph.initializers.values()].map((t) => t.data as Float32Array);
      return {
        run: (inputs) => {
          const x = memory.get((inputs[0] as Tensor).deviceData!)!;
          const y = x.map((v, i) => weights.reduce((acc, w) => acc + w[i], v));
          return partition.outputNames.map(() => store(y, (inputs[0] as Tensor).dims));
        },
      };
    },
    copyToDevice: async (t) => {
      stats.toDevice++;
      return store((t.data as Float32Array).slice(), t.dims);
    },
    copyToHost: async (t) => {
      stats.toHost++;
      return new Tensor('float32', memory.get(t.deviceData!)!.slice(), t.dims);
    },
  };
  return { ep, stats };
}

/** x + w0 + w1 + w2 on [3], all fused. */
function weighted(): Model {
  const w = (v: number) => new Tensor('float32', Float32Array.of(v, v, v), [3]);
  return buildModel({
    inputs: [['x', 'float32', [3]]],
    outputs: [['y', 'float32', [3]]],
    nodes: [
      { op: 'Add', inputs: ['x', 'w0'], outputs: ['a'] },
      { op: 'Add', inputs: ['a', 'w1'], outputs: ['b'] },
      { op: 'Add', inputs: ['b', 'w2'], outputs: ['y'] },
    ],
    initializers: { w0: w(1), w1: w(10), w2: w(100) },
  });
}

describe('programOf', () => {
  it('numbers every value once and points each step at its slots', async () => {
    const plan = await planOf(diamond());
    const p = programOf(plan);
    expect(new Set(p.names).size).toBe(p.names.length);
    expect([...p.slotOf].every(([name, s]) => p.names[s] === name)).toBe(true);
    expect(plan.steps.map((_, i) => io(p, i).inputs)).toEqual([['x'], ['r1'], ['r1', 'r2'], ['a', 'k']]);
    expect(plan.steps.map((_, i) => io(p, i).outputs)).toEqual([['r1'], ['r2'], ['a'], ['out']]);
    // Constants start in the template; nothing else does.
    expect(p.template[p.slotOf.get('k')!]).toBe(plan.constants.get('k'));
    expect(p.template.filter((v) => v !== undefined)).toHaveLength(1);
    expect(Array.from(p.outputs, (s) => p.names[s])).toEqual(['out']);
    // Cached: the same program every time.
    expect(programOf(plan)).toBe(p);
  });

  it('frees each value after its last reader, and never a graph output', async () => {
    const p = programOf(await planOf(diamond()));
    // r1 is read by neg and add: it must survive neg.
    expect([0, 1, 2, 3].map((i) => io(p, i).frees.sort())).toEqual([['x'], [], ['r1', 'r2'], ['a', 'k']]);
  });

  it('marks -1 for omitted inputs and outputs', async () => {
    const model = buildModel({
      inputs: [['x', 'float32', [4]]],
      outputs: [['y', 'float32', [4]]],
      nodes: [{ op: 'Relu', inputs: ['x', ''], outputs: ['y', ''] }],
    });
    const p = programOf(await planOf(model));
    const b = p.bounds;
    expect(Array.from(p.io.subarray(b[0], b[2])).map((s) => (s < 0 ? -1 : p.names[s]))).toEqual(['x', -1, 'y', -1]);
  });

  it('skips the copies of initializers a fused partition carries itself', async () => {
    const { ep } = fusingProvider();
    const plan = await planOf(weighted(), [ep]);
    const p = programOf(plan);
    const copied = plan.steps.flatMap((s, i) => (s.kind === 'copy' ? [`${s.source}:${p.kinds[i] === StepKind.Skip ? 'skip' : 'run'}`] : []));
    expect(copied.sort()).toEqual(['w0:skip', 'w1:skip', 'w2:skip', 'x:run', 'y:run']);
    expect(Array.from(p.live).every((i) => p.kinds[i] !== StepKind.Skip)).toBe(true);
    expect(p.live).toHaveLength(plan.steps.length - 3);
  });

  it('reads the clock once per run of small steps, and after every big one', async () => {
    const n = 40;
    const nodes = Array.from({ length: n }, (_, i) => ({ op: 'Relu', inputs: [i === 0 ? 'x' : `v${i}`], outputs: [i === n - 1 ? 'y' : `v${i + 1}`] }));
    const small = programOf(await planOf(buildModel({ inputs: [['x', 'float32', [16]]], outputs: [['y', 'float32', [16]]], nodes })));
    expect(Array.from(small.clockAfter).flatMap((c, i) => (c ? [i] : []))).toEqual([15, 31]);
    const big = programOf(await planOf(buildModel({ inputs: [['x', 'float32', [100000]]], outputs: [['y', 'float32', [100000]]], nodes })));
    expect(big.clockAfter.every((c) => c === 1)).toBe(true);
    const unknown = programOf(await planOf(buildModel({ inputs: [['x', 'float32', ['n']]], outputs: [['y', 'float32', ['n']]], nodes })));
    expect(unknown.clockAfter.every((c) => c === 1)).toBe(true);
  });
});

describe('runs of a fused partition', () => {
  it('upload only what the partition reads, and release device values after their last reader', async () => {
    const { ep, stats } = fusingProvider();
    const s = await InferenceSession.fromModel(weighted(), { executionProviders: [ep], disableCpuFallback: true });
    for (let run = 1; run <= 2; run++) {
      const out = await s.run({ x: new Tensor('float32', Float32Array.of(1, 2, 3), [3]) });
      expect(Array.from((out.y as Tensor).data as Float32Array)).toEqual([112, 113, 114]);
      // x goes up, y comes down; the initializers travel inside the partition.
      expect(stats).toEqual({ toDevice: run, toHost: run, disposed: 2 * run });
    }
    // The placement still shows where values cross devices.
    expect(s.placement.copies.map((c) => c.value).sort()).toEqual(['w0', 'w1', 'w2', 'x', 'y']);
    await s.release();
  });

  it('feeds a bound device tensor through without disposing it', async () => {
    const { ep, stats } = fusingProvider();
    const s = await InferenceSession.fromModel(weighted(), { executionProviders: [ep], disableCpuFallback: true, preferredOutputLocation: 'device' });
    const out = await s.run({ x: new Tensor('float32', Float32Array.of(0, 0, 0), [3]) });
    const y = out.y as Tensor;
    expect(y.location).toBe('fz:0');
    // Only the uploaded x was released: the output stays valid for the caller.
    expect(stats.disposed).toBe(1);
    expect(Array.from((await y.getData()) as Float32Array)).toEqual([111, 111, 111]);
  });
});
