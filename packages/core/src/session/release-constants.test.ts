/** Constants that every reader packed for itself are dropped by the session (and freed when it owns them). */
import { describe, expect, it } from 'vitest';
import { InferenceSession } from './inference-session.js';
import { ConstantReleaser } from './release-constants.js';
import { Tensor } from '../tensor/tensor.js';
import { Graph } from '../ir/graph.js';
import { encodeModel } from '../onnx/index.js';
import { buildModel, type NodeSpec } from '../testing/build-model.js';
import { defineKernel, type KernelDef } from '../registry/kernel-def.js';
import type { ExecutionProvider } from '../ep/execution-provider.js';

const f32 = (data: number[], dims: number[]) => new Tensor('float32', Float32Array.from(data), dims);

/**
 * An EP whose Mul copies a constant B at creation ("packs" it) and says so; its Add reads B at run
 * time like any kernel. `seen` collects the constant tensors the packing kernels were given.
 */
function packingProvider(seen: Tensor[] = []): ExecutionProvider {
  const mul: KernelDef = defineKernel({
    ep: 'packer',
    domain: '',
    opType: 'Mul',
    sinceVersion: 1,
    create: (init) => {
      const constB = init.constantInputs.get(1);
      if (constB) seen.push(constB);
      const packed = constB ? Float32Array.from(constB.data as Float32Array) : undefined;
      return {
        releasedConstants: packed ? [1] : undefined,
        run: (ctx) => {
          const a = ctx.input(0);
          const b = packed ?? (ctx.input(1).data as Float32Array);
          const out = ctx.output(0, 'float32', a.dims);
          const x = a.data as Float32Array;
          for (let i = 0; i < x.length; i++) out.data[i] = x[i] * b[i % b.length];
          return [out];
        },
      };
    },
  });
  const add: KernelDef = defineKernel({
    ep: 'packer',
    domain: '',
    opType: 'Add',
    sinceVersion: 1,
    create: () => ({
      run: (ctx) => {
        const a = ctx.input(0);
        const b = ctx.input(1).data as Float32Array;
        const out = ctx.output(0, 'float32', a.dims);
        const x = a.data as Float32Array;
        for (let i = 0; i < x.length; i++) out.data[i] = x[i] + b[i % b.length];
        return [out];
      },
    }),
  });
  return { name: 'packer', kernels: [mul, add] };
}

function model(nodes: NodeSpec[], output: string) {
  return buildModel({
    inputs: [['x', 'float32', [2, 2]]],
    outputs: [[output, 'float32', [2, 2]]],
    initializers: { w: f32([1, 2, 3, 4], [2, 2]), v: f32([10, 20, 30, 40], [2, 2]) },
    nodes,
  });
}

const opts = (seen?: Tensor[]) => ({ executionProviders: [packingProvider(seen)], disableCpuFallback: true, graphOptimizationLevel: 'disabled' as const });
const values = (t: unknown) => Array.from((t as Tensor).data as Float32Array);
const x = f32([1, -1, 2, -2], [2, 2]);

describe('releasing packed constants', () => {
  it('drops a constant once its only reader packed it; runs and types are unchanged', async () => {
    const m = model([{ op: 'Mul', inputs: ['x', 'w'], outputs: ['y'] }], 'y');
    const w = m.graph.initializers.get('w')!;
    const s = await InferenceSession.fromModel(m, opts());
    expect(s.model.graph.initializers.has('w')).toBe(false);
    expect(s.model.graph.typeOf('w')).toEqual({ kind: 'tensor', elemType: 'float32', shape: [2, 2] });
    expect(s.optimization.memory.releasedConstantBytes).toBe(16);
    for (let i = 0; i < 2; i++) expect(values((await s.run({ x })).y)).toEqual([1, -2, 6, -8]);
    // fromModel: the caller's tensor is only dropped, never detached.
    expect(Array.from(w.data as Float32Array)).toEqual([1, 2, 3, 4]);
    await s.release();
  });

  it('keeps a constant that another kernel still reads at run time', async () => {
    const m = model(
      [
        { op: 'Mul', inputs: ['x', 'w'], outputs: ['p'] },
        { op: 'Add', inputs: ['p', 'w'], outputs: ['y'] },
      ],
      'y',
    );
    const s = await InferenceSession.fromModel(m, opts());
    expect(s.model.graph.initializers.has('w')).toBe(true);
    expect(s.optimization.memory.releasedConstantBytes).toBeUndefined();
    expect(values((await s.run({ x })).y)).toEqual([2, 0, 9, -4]);
    await s.release();
  });

  it('releases a constant read by two packing kernels only when both packed it', async () => {
    const m = model(
      [
        { op: 'Mul', inputs: ['x', 'w'], outputs: ['p'] },
        { op: 'Mul', inputs: ['p', 'w'], outputs: ['q'] },
        { op: 'Add', inputs: ['q', 'v'], outputs: ['y'] },
      ],
      'y',
    );
    const s = await InferenceSession.fromModel(m, opts());
    expect([...s.model.graph.initializers.keys()]).toEqual(['v']);
    expect(values((await s.run({ x })).y)).toEqual([11, 16, 48, 8]);
    await s.release();
  });

  it('keeps constants when profiling, which reports every input shape', async () => {
    const m = model([{ op: 'Mul', inputs: ['x', 'w'], outputs: ['y'] }], 'y');
    const s = await InferenceSession.fromModel(m, { ...opts(), enableProfiling: true, profileFilePrefix: '/tmp/switchyard-release-test' });
    expect(s.model.graph.initializers.has('w')).toBe(true);
    await s.release();
  });

  it('frees the buffer of a released constant when the session decoded the model itself', async () => {
    const seen: Tensor[] = [];
    const bytes = encodeModel(model([{ op: 'Mul', inputs: ['x', 'w'], outputs: ['y'] }], 'y'));
    const s = await InferenceSession.create(bytes, opts(seen));
    expect(seen).toHaveLength(1);
    // Detached: the session's copy of the weights is gone, the packed one serves the runs.
    expect((seen[0].data as Float32Array).length).toBe(0);
    expect(values((await s.run({ x })).y)).toEqual([1, -2, 6, -8]);
    await s.release();
  });
});

describe('initializers that are also graph inputs', () => {
  /** `w` is an initializer and a graph input: a default the caller may feed over. */
  function overridable(irVersion: number) {
    const m = model([{ op: 'Mul', inputs: ['x', 'w'], outputs: ['y'] }], 'y');
    m.graph.inputs.push({ name: 'w', type: { kind: 'tensor', elemType: 'float32', shape: [2, 2] } });
    m.irVersion = irVersion;
    return m;
  }

  it('are not handed to kernels as constants from IR version 4 on: a fed value wins', async () => {
    const seen: Tensor[] = [];
    const s = await InferenceSession.fromModel(overridable(8), opts(seen));
    expect(seen).toEqual([]);
    expect(s.model.graph.initializers.has('w')).toBe(true);
    expect(values((await s.run({ x })).y)).toEqual([1, -2, 6, -8]);
    expect(values((await s.run({ x, w: f32([2, 2, 2, 2], [2, 2]) })).y)).toEqual([2, -2, 4, -4]);
  });

  it('are constants before IR version 4, where every initializer had to be listed as an input', async () => {
    const seen: Tensor[] = [];
    const s = await InferenceSession.fromModel(overridable(3), opts(seen));
    expect(seen).toHaveLength(1);
    expect(values((await s.run({ x })).y)).toEqual([1, -2, 6, -8]);
  });
});

describe('ConstantReleaser', () => {
  function graphWith(initializers: Record<string, Tensor>): Graph {
    const g = new Graph({
      name: 'g',
      inputs: [{ name: 'x', type: { kind: 'tensor', elemType: 'float32', shape: [4] } }],
      outputs: [{ name: 'y' }],
      initializers: new Map(Object.entries(initializers)),
      opsetImports: new Map([['', 17]]),
    });
    g.addNode({ opType: 'Mul', domain: '', inputs: ['x', 'w'], outputs: ['y'], attributes: new Map() });
    return g;
  }
  const steps = (g: Graph) => g.nodes.map((node) => ({ kind: 'unit' as const, unit: { kind: 'single' as const, node } as never, rename: new Map(), inputs: node.inputs, outputs: node.outputs }));

  it('does not free a buffer another initializer still views', async () => {
    const shared = new Float32Array([1, 2, 3, 4, 5, 6, 7, 8]);
    const w = new Tensor('float32', shared.subarray(0, 4), [4]);
    const v = new Tensor('float32', shared.subarray(4), [4]);
    const g = graphWith({ w, v });
    const r = new ConstantReleaser(g, steps(g), 'free');
    r.kernelBuilt(['x', 'w'], { run: () => [], releasedConstants: [1] });
    await r.flush(true);
    expect([...r.released.keys()]).toEqual(['w']);
    expect(Array.from(v.data as Float32Array)).toEqual([5, 6, 7, 8]);
  });

  it('keeps a constant a subgraph returns as its output, which no node inside reads', () => {
    const g = graphWith({ w: f32([1, 2, 3, 4], [4]) });
    const branch = new Graph({ name: 'then', opsetImports: new Map(), parent: g, outputs: [{ name: 'w' }] });
    g.outputs.push({ name: 'z' });
    g.addNode({ opType: 'If', domain: '', inputs: ['c'], outputs: ['z'], attributes: new Map([['then_branch', { type: 'graph', value: branch }], ['else_branch', { type: 'graph', value: branch }]]) });
    const r = new ConstantReleaser(g, steps(g), 'drop');
    r.kernelBuilt(['x', 'w'], { run: () => [], releasedConstants: [1] });
    expect(g.initializers.has('w')).toBe(true);
    expect(r.released.size).toBe(0);
  });

  it('frees a buffer no initializer holds any more; "drop" and "keep" leave it alone', async () => {
    for (const mode of ['free', 'drop', 'keep'] as const) {
      const w = f32([1, 2, 3, 4], [4]);
      const g = graphWith({ w });
      const r = new ConstantReleaser(g, steps(g), mode);
      r.kernelBuilt(['x', 'w'], { run: () => [], releasedConstants: [1] });
      await r.flush(true);
      expect(g.initializers.has('w')).toBe(mode === 'keep');
      expect((w.data as Float32Array).length).toBe(mode === 'free' ? 0 : 4);
    }
  });
});
