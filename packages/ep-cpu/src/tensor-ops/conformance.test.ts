/**
 * The tensor family against the ONNX backend test data: each single-node model is loaded, its node
 * looked up in a registry of these kernels (so opset ranges and dtype constraints are exercised too),
 * run on the stored inputs and compared with the stored outputs.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KernelRegistry, decodeValue, loadModel, type AttributeValue, type RuntimeValue } from '@switchyard/core';
import { compareValues, runKernel, type PlainAttribute } from '@switchyard/core/testing';
import { tensorKernels } from '../kernels/tensor-kernels.js';

const ROOT = '/usr/share/libonnx-testdata/data/node';

const PREFIXES = [
  'compress', 'concat', 'constant', 'constantofshape', 'depthtospace', 'edge_pad', 'einsum', 'expand', 'eyelike', 'flatten',
  'gather', 'identity', 'nonzero', 'onehot', 'optional', 'range', 'reflect_pad', 'reshape', 'reversesequence', 'scatter',
  'sequence_insert', 'shape', 'size', 'slice', 'spacetodepth', 'split', 'squeeze', 'tile', 'top_k', 'transpose',
  'tril', 'triu', 'unique', 'unsqueeze',
];

function plainAttribute(a: AttributeValue): PlainAttribute {
  switch (a.type) {
    case 'int':
    case 'ints':
    case 'string':
    case 'strings':
    case 'tensor':
      return a.value;
    case 'float':
      return { float: a.value };
    case 'floats':
      return { floats: a.value };
    default:
      throw new Error(`attribute type ${a.type} is not used by these tests`);
  }
}

const tests = existsSync(ROOT)
  ? readdirSync(ROOT)
      .filter((n) => n.startsWith('test_') && !n.endsWith('_expanded'))
      .filter((n) => PREFIXES.some((p) => n === `test_${p}` || n.startsWith(`test_${p}_`)))
      .filter((n) => !n.startsWith('test_sequence_map'))
      .sort()
  : [];

const registry = new KernelRegistry();
registry.registerAll(tensorKernels);

describe.skipIf(tests.length === 0)('tensor kernels on ONNX backend node tests', () => {
  it.each(tests)('%s', async (name) => {
    const dir = join(ROOT, name);
    const model = await loadModel(join(dir, 'model.onnx'));
    const graph = model.graph;
    expect(graph.nodes).toHaveLength(1);
    const node = graph.nodes[0];
    const found = registry.lookup('cpu', node, graph);
    if (!found.ok) throw new Error(`no kernel: ${found.reason.message}`);
    const attributes = Object.fromEntries([...node.attributes].map(([k, v]) => [k, plainAttribute(v)]));
    const sets = readdirSync(dir).filter((d) => d.startsWith('test_data_set_'));
    expect(sets.length).toBeGreaterThan(0);
    for (const set of sets) {
      const read = (file: string, type: Parameters<typeof decodeValue>[1]) => decodeValue(readFileSync(join(dir, set, file)), type);
      const feeds = new Map<string, RuntimeValue>();
      graph.inputs.forEach((vi, i) => {
        const file = `input_${i}.pb`;
        if (existsSync(join(dir, set, file))) feeds.set(vi.name, read(file, vi.type));
      });
      for (const [k, t] of graph.initializers) if (!feeds.has(k)) feeds.set(k, t);
      const inputs = node.inputs.map((n) => (n === '' ? undefined : feeds.get(n)));
      const outputs = await runKernel(found.def, inputs, { attributes, opset: graph.opsetFor('')!, outputs: node.outputs.length });
      graph.outputs.forEach((vi, i) => {
        const expected = read(`output_${i}.pb`, vi.type);
        const at = node.outputs.indexOf(vi.name);
        const problem = compareValues(outputs[at], expected);
        expect(problem, `${set} output ${vi.name}`).toBeUndefined();
      });
    }
  });
});
