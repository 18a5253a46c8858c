/** Arena layouts for symbolic input dims, laid out per binding at run time. */
import { describe, expect, it } from 'vitest';
import { InferenceSession } from './inference-session.js';
import { DynamicArenas } from './dynamic-arena.js';
import { Tensor } from '../tensor/tensor.js';
import { buildModel } from '../testing/build-model.js';
import { hostTestProvider } from '../testing/host-test-ep.js';
import type { ExecutionPlan } from './execution-plan.js';
import { buildPlan } from './build-plan.js';
import { KernelRegistry } from '../registry/kernel-registry.js';
import { inferShapes } from '../shape-inference/index.js';
import { defineKernel } from '../registry/kernel-def.js';
import type { ExecutionProvider } from '../ep/execution-provider.js';

/** x [batch, 4] → Relu → Neg → Relu → Add(x) → out: intermediates shaped [batch, 4] by inference. */
function chain() {
  return buildModel({
    inputs: [['x', 'float32', ['batch', 4]]],
    outputs: [['out', 'float32', ['batch', 4]]],
    nodes: [
      { op: 'Relu', inputs: ['x'], outputs: ['a'] },
      { op: 'Neg', inputs: ['a'], outputs: ['b'] },
      { op: 'Relu', inputs: ['b'], outputs: ['c'] },
      { op: 'Add', inputs: ['c', 'x'], outputs: ['out'] },
    ],
  });
}

async function planOf(): Promise<ExecutionPlan> {
  const model = chain();
  inferShapes(model.graph);
  const ep = hostTestProvider();
  const registry = new KernelRegistry();
  for (const k of ep.kernels ?? []) registry.register(k);
  return buildPlan(model.graph, { providers: [ep], registry, skipped: [], memoryPattern: true, threads: 1 });
}

const input = (rows: number) => new Tensor('float32', Float32Array.from({ length: rows * 4 }, (_, i) => (i % 3) - 1), [rows, 4]);

/** If on the host test EP: runs the branch its condition picks. */
const hostIf = defineKernel({
  ep: 'hosttest',
  domain: '',
  opType: 'If',
  sinceVersion: 1,
  create: ({ attrs }) => ({
    run: (ctx) => ctx.runSubgraph((ctx.input(0).data as Uint8Array)[0] ? attrs.graph('then_branch') : attrs.graph('else_branch'), new Map()),
  }),
});

describe('DynamicArenas', () => {
  it('lays out an arena for the sizes a run binds, once per binding', async () => {
    const plan = await planOf();
    expect(plan.arenaBytes).toBe(0);
    const arenas = DynamicArenas.for(plan)!;
    expect(arenas).toBeDefined();
    const two = arenas.planFor(new Map([['x', input(2)]]));
    // a, b, c are [2, 4] float32 on the host; their lifetimes let some share memory.
    expect(two.arenaSlots.get('a')?.bytes).toBe(32);
    expect(two.arenaSlots.get('c')?.bytes).toBe(32);
    expect(two.arenaBytes).toBeGreaterThanOrEqual(64);
    expect(arenas.planFor(new Map([['x', input(2)]]))).toBe(two);
    const five = arenas.planFor(new Map([['x', input(5)]]));
    expect(five.arenaSlots.get('a')?.bytes).toBe(80);
    expect(arenas.layouts).toBe(2);
    // The session's plan itself is never changed.
    expect(plan.arenaSlots.size).toBe(0);
  });

  it('is not used when the inputs have no symbolic dims', async () => {
    const plan = await planOf();
    plan.graph.inputs[0].type = { kind: 'tensor', elemType: 'float32', shape: [2, 4] };
    expect(DynamicArenas.for(plan)).toBeUndefined();
  });

  it('gives the same results as runs without memory patterns, across changing batch sizes', async () => {
    const opts = { executionProviders: [hostTestProvider()], disableCpuFallback: true };
    const withArena = await InferenceSession.fromModel(chain(), opts);
    const without = await InferenceSession.fromModel(chain(), { ...opts, enableMemPattern: false });
    for (const rows of [3, 1, 3, 6, 1]) {
      const x = input(rows);
      const [a, b] = await Promise.all([withArena.run({ x }), without.run({ x })]);
      const out = a.out as Tensor;
      expect(out.dims).toEqual([rows, 4]);
      expect(Array.from(out.data as Float32Array)).toEqual(Array.from((b.out as Tensor).data as Float32Array));
      // Outputs stay valid after later runs reuse the arena.
      const kept = Array.from(out.data as Float32Array);
      await withArena.run({ x: input(rows + 1) });
      expect(Array.from(out.data as Float32Array)).toEqual(kept);
    }
    await withArena.release();
    await without.release();
  });

  it('lays out arenas for a graph with control flow, keeping values a branch reads alive until it runs', async () => {
    // `a` has no reader in the main graph but the else branch: were its lifetime to end where it is
    // made, `c` or `d` would take its memory and the branch would read their values instead.
    const build = () => {
      const branch = (name: string, op: string, inputs: string[]) =>
        buildModel({ inputs: [], outputs: [[name, 'float32', ['batch', 4]]], nodes: [{ op, inputs, outputs: [name] }] }).graph;
      const model = buildModel({
        inputs: [
          ['x', 'float32', ['batch', 4]],
          ['flag', 'bool', []],
        ],
        outputs: [['out', 'float32', ['batch', 4]]],
        nodes: [
          { op: 'Relu', inputs: ['x'], outputs: ['a'] },
          { op: 'Neg', inputs: ['x'], outputs: ['c'] },
          { op: 'Relu', inputs: ['c'], outputs: ['d'] },
          { op: 'If', inputs: ['flag'], outputs: ['y'] },
          { op: 'Add', inputs: ['y', 'd'], outputs: ['out'] },
        ],
      });
      const ifNode = model.graph.nodes[3];
      ifNode.attributes.set('then_branch', { type: 'graph', value: branch('t', 'Add', ['d', 'x']) });
      ifNode.attributes.set('else_branch', { type: 'graph', value: branch('e', 'Mul', ['a', 'x']) });
      return model;
    };
    const provider = (): ExecutionProvider => ({ name: 'hosttest', kernels: [...hostTestProvider().kernels!, hostIf] });

    const model = build();
    inferShapes(model.graph);
    const registry = new KernelRegistry();
    for (const k of provider().kernels ?? []) registry.register(k);
    const plan = await buildPlan(model.graph, { providers: [provider()], registry, skipped: [], memoryPattern: true, threads: 1 });
    const laidOut = DynamicArenas.for(plan)!.planFor(new Map([['x', input(3)]]));
    expect(laidOut.arenaSlots.get('a')?.bytes).toBe(48);

    const opts = { executionProviders: [provider()], disableCpuFallback: true };
    const withArena = await InferenceSession.fromModel(build(), opts);
    const without = await InferenceSession.fromModel(build(), { ...opts, enableMemPattern: false });
    for (const rows of [3, 1, 3, 6, 1]) {
      for (const flag of [0, 1]) {
        const feeds = { x: input(rows), flag: new Tensor('bool', Uint8Array.of(flag), []) };
        const [a, b] = await Promise.all([withArena.run(feeds), without.run(feeds)]);
        expect((a.out as Tensor).dims).toEqual([rows, 4]);
        expect(Array.from((a.out as Tensor).data as Float32Array)).toEqual(Array.from((b.out as Tensor).data as Float32Array));
      }
    }
    await withArena.release();
    await without.release();
  });

  it('observes sizes no inference states and lays them out for the runs that follow', async () => {
    // The branches differ in shape ([batch, 4] or the constant [3, 4]), so y and n have no inferred size.
    const buffers: ArrayBufferLike[] = [];
    const recordingNeg = defineKernel({
      ep: 'hosttest',
      domain: '',
      opType: 'Neg',
      sinceVersion: 1,
      create: () => ({
        run: (ctx) => {
          const x = ctx.input(0);
          const out = ctx.output(0, 'float32', x.dims);
          const src = x.data as Float32Array;
          for (let i = 0; i < src.length; i++) out.data[i] = -src[i];
          buffers.push(out.data.buffer);
          return [out];
        },
      }),
    });
    const build = () => {
      const branch = (name: string, input: string) =>
        buildModel({ inputs: [], outputs: [[name, 'float32']], nodes: [{ op: 'Identity', inputs: [input], outputs: [name] }] }).graph;
      const model = buildModel({
        inputs: [
          ['x', 'float32', ['batch', 4]],
          ['flag', 'bool', []],
        ],
        outputs: [['out', 'float32']],
        initializers: { k: new Tensor('float32', Float32Array.from({ length: 12 }, (_, i) => i - 6), [3, 4]) },
        nodes: [
          { op: 'If', inputs: ['flag'], outputs: ['y'] },
          { op: 'Neg', inputs: ['y'], outputs: ['n'] },
          { op: 'Relu', inputs: ['n'], outputs: ['out'] },
        ],
      });
      const ifNode = model.graph.nodes[0];
      ifNode.attributes.set('then_branch', { type: 'graph', value: branch('t', 'x') });
      ifNode.attributes.set('else_branch', { type: 'graph', value: branch('e', 'k') });
      return model;
    };
    // A host pool that declines every request but counts the trims the session asks for.
    let trims = 0;
    const provider = (): ExecutionProvider => ({
      name: 'hosttest',
      kernels: [...hostTestProvider('hosttest', ['Relu', 'Identity']).kernels!, recordingNeg, hostIf],
      hostBuffer: () => undefined,
      trimHostBuffers: () => void trims++,
    });
    const withArena = await InferenceSession.fromModel(build(), { executionProviders: [provider()], disableCpuFallback: true });
    const without = await InferenceSession.fromModel(build(), { executionProviders: [provider()], disableCpuFallback: true, enableMemPattern: false });
    const runBoth = async (rows: number, flag: number) => {
      const feeds = { x: input(rows), flag: new Tensor('bool', Uint8Array.of(flag), []) };
      const [a, b] = [await withArena.run(feeds), await without.run(feeds)];
      expect((a.out as Tensor).dims).toEqual(flag ? [rows, 4] : [3, 4]);
      expect(Array.from((a.out as Tensor).data as Float32Array)).toEqual(Array.from((b.out as Tensor).data as Float32Array));
    };
    // The first run observes n's size; from the second on it comes from one reused arena buffer.
    buffers.length = 0;
    for (let run = 0; run < 4; run++) await runBoth(5, 1);
    const arenaRuns = buffers.filter((_, i) => i % 2 === 0);
    expect(arenaRuns[2]).toBe(arenaRuns[3]);
    expect(arenaRuns[2]).toBe(arenaRuns[1]);
    expect(arenaRuns[0]).not.toBe(arenaRuns[1]);
    // Once the observed sizes have slots, the pool's idle blocks may go: asked once, by withArena.
    expect(trims).toBe(1);
    // Other shapes and branches still compute correctly (a size that differs from its slot gets fresh memory).
    for (const [rows, flag] of [[5, 0], [2, 1], [5, 1], [3, 0], [7, 1], [5, 0]]) await runBoth(rows, flag);
    await withArena.release();
    await without.release();
  });
});
