import { describe, expect, it } from 'vitest';
import { AttributeReader, Graph, KernelRegistry, SwitchyardError, Tensor, type DataType, type Dim, type KernelDef, type KernelRunContext, type Node } from '@switchyard/core';
import { loadNative } from './load-native.js';
import { nativeKernels } from './native-kernels.js';

// The addon itself is under test here, so SWITCHYARD_CPU_NATIVE=0 (which only steers the EP) is ignored.
const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const title = native.ok ? 'nativeKernels' : `nativeKernels (skipped: ${native.reason})`;

function typed(elemType: DataType, shape?: Dim[]) {
  return { kind: 'tensor' as const, elemType, shape };
}

/** A one-node graph with the given value types; `initializers` become constants. */
function oneNode(opType: string, inputs: Record<string, ReturnType<typeof typed> | Tensor>, attributes = new Map()) {
  const graph = new Graph({ opsetImports: new Map([['', 17]]) });
  for (const [name, v] of Object.entries(inputs)) {
    if (v instanceof Tensor) graph.initializers.set(name, v);
    else graph.valueInfo.set(name, { name, type: v });
  }
  const node = graph.addNode({ opType, inputs: Object.keys(inputs), outputs: ['y'], attributes });
  return { graph, node };
}

function contextFor(node: Node, inputs: Tensor[]): KernelRunContext {
  return {
    node,
    inputs,
    input: (i) => inputs[i],
    optionalInput: (i) => inputs[i],
    sequenceInput: () => [],
    output: (_i, type, dims) => Tensor.zeros(type, dims),
    runSubgraph: () => Promise.resolve([]),
    threads: 1,
  };
}

describe.skipIf(!native.ok)(title, () => {
  const binding = native.ok ? native.binding : undefined!;
  const defs = nativeKernels(binding);
  const def = (opType: string): KernelDef => defs.find((d) => d.opType === opType)!;

  it('registers beside each other and is found for float32 nodes', () => {
    const registry = new KernelRegistry();
    registry.registerAll(defs);
    const { graph, node } = oneNode('Conv', { x: typed('float32', [1, 3, 8, 8]), w: typed('float32', [4, 3, 3, 3]) });
    const found = registry.lookup('cpu', node, graph);
    expect(found.ok && found.def.implementation).toBe('onednn');
  });

  it('declines, with a reason, what the addon does not serve', () => {
    const conv = def('Conv');
    const f64 = oneNode('Conv', { x: typed('float64', [1, 3, 8, 8]), w: typed('float64', [4, 3, 3, 3]) });
    expect(conv.supports!(f64.node, f64.graph)).toMatch(/float64; onednn serves float32 only/);
    const unknownRank = oneNode('Conv', { x: typed('float32'), w: typed('float32') });
    expect(conv.supports!(unknownRank.node, unknownRank.graph)).toMatch(/weight rank is unknown/);
    const rank6 = oneNode('Conv', { x: typed('float32', [1, 1, 2, 2, 2, 2]), w: typed('float32', [1, 1, 1, 1, 1, 1]) });
    expect(conv.supports!(rank6.node, rank6.graph)).toMatch(/rank 6/);
    const fused = (activation: string) =>
      oneNode('FusedConv', { x: typed('float32', [1, 3, 8, 8]), w: typed('float32', [4, 3, 3, 3]) }, new Map([['activation', { type: 'string' as const, value: activation, bytes: new Uint8Array() }]]));
    const sigmoid = fused('Sigmoid');
    expect(def('FusedConv').supports!(sigmoid.node, sigmoid.graph)).toBe(true);
    const unknown = fused('Sigmoidish');
    expect(def('FusedConv').supports!(unknown.node, unknown.graph)).toMatch(/unknown activation 'Sigmoidish' \(Relu, .*Mish are served\)/);
    const mm = oneNode('MatMul', { a: typed('float32', ['batch', 4]), b: typed('float32') });
    expect(def('MatMul').supports!(mm.node, mm.graph)).toMatch(/ranks are unknown/);
    const ok = oneNode('MatMul', { a: typed('float32', ['batch', 4]), b: typed('float32', [4, 2]) });
    expect(def('MatMul').supports!(ok.node, ok.graph)).toBe(true);
  });

  it('builds the primitive at session creation when shapes are static (bad weights fail there, not at run)', () => {
    const w = new Tensor('float32', new Float32Array(4 * 5 * 9), [4, 5, 3, 3]);
    const { graph, node } = oneNode('Conv', { x: typed('float32', [1, 3, 8, 8]), w });
    const init = {
      node, graph, opset: 17, attrs: new AttributeReader(node), options: {}, threads: 1,
      inputTypes: [graph.typeOf('x'), graph.typeOf('w')], outputTypes: [undefined], constantInputs: new Map([[1, w]]),
    };
    expect(() => def('Conv').create(init)).toThrow(SwitchyardError);
    expect(() => def('Conv').create(init)).toThrow(/input has 3 channels/);
  });

  it('serves dynamic shapes lazily, one primitive per shape seen, with packed constant weights', async () => {
    const wData = new Float32Array(2 * 3 * 3).map((_, i) => (i % 5) - 2);
    const w = new Tensor('float32', wData, [2, 3, 3]);
    const { graph, node } = oneNode('Conv', { x: typed('float32', ['batch', 3, 'length']), w });
    const kernel = def('Conv').create({
      node, graph, opset: 17, attrs: new AttributeReader(node), options: {}, threads: 1,
      inputTypes: [graph.typeOf('x'), graph.typeOf('w')], outputTypes: [undefined], constantInputs: new Map([[1, w]]),
    });
    for (const [batch, length] of [[1, 5], [2, 9], [1, 5]]) {
      const x = new Tensor('float32', new Float32Array(batch * 3 * length).fill(1), [batch, 3, length]);
      const [y] = await kernel.run(contextFor(node, [x, w]));
      const t = y as Tensor;
      expect(t.dims).toEqual([batch, 2, length - 2]);
      // All-ones input: each output is the sum of its filter.
      const sums = [0, 1].map((m) => wData.slice(m * 9, m * 9 + 9).reduce((a, b) => a + b, 0));
      expect(Array.from(t.data as Float32Array)).toEqual(Array.from({ length: t.size }, (_, i) => sums[Math.floor(i / (length - 2)) % 2]));
    }
    kernel.dispose?.();
  });
});
