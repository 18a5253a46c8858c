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

const ROOT = '/usr/share/libonnx-testdata/data';

const PREFIXES = [
  'compress', 'concat', 'constant', 'constantofshape', 'depthtospace', 'edge_pad', 'einsum', 'expand', 'eyelike', 'flatten',
  'gather', 'identity', 'nonzero', 'onehot', 'optional', 'range', 'reflect_pad', 'reshape', 'reversesequence', 'scatter',
  'sequence_insert', 'shape', 'size', 'slice', 'spacetodepth', 'split', 'squeeze', 'tile', 'top_k', 'transpose',
  'tril', 'triu', 'unique', 'unsqueeze',
];

/** Models elsewhere in the data that use only this family's ops (older opsets, multi-node sequences). */
const OTHER_TESTS = [
  'pytorch-converted/test_ConstantPad2d', 'pytorch-converted/test_Embedding', 'pytorch-converted/test_Embedding_sparse',
  'pytorch-converted/test_PixelShuffle', 'pytorch-converted/test_ReflectionPad2d', 'pytorch-converted/test_ReplicationPad2d',
  'pytorch-converted/test_ZeroPad2d', 'pytorch-operator/test_operator_chunk', 'pytorch-operator/test_operator_concat2',
  'pytorch-operator/test_operator_flatten', 'pytorch-operator/test_operator_index', 'pytorch-operator/test_operator_pad',
  'pytorch-operator/test_operator_permute2', 'pytorch-operator/test_operator_repeat', 'pytorch-operator/test_operator_repeat_dim_overflow',
  'pytorch-operator/test_operator_view', 'simple/test_expand_shape_model1', 'simple/test_expand_shape_model2',
  'simple/test_expand_shape_model3', 'simple/test_expand_shape_model4', 'simple/test_sequence_model1', 'simple/test_sequence_model2',
  'simple/test_sequence_model3', 'simple/test_sequence_model4', 'simple/test_sequence_model5', 'simple/test_sequence_model6',
  'simple/test_sequence_model7', 'simple/test_sequence_model8',
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

const nodeDir = join(ROOT, 'node');
const tests = existsSync(nodeDir)
  ? [
      ...readdirSync(nodeDir)
        .filter((n) => n.startsWith('test_') && !n.endsWith('_expanded') && !n.startsWith('test_sequence_map'))
        .filter((n) => PREFIXES.some((p) => n === `test_${p}` || n.startsWith(`test_${p}_`)))
        .sort()
        .map((n) => `node/${n}`),
      ...OTHER_TESTS.filter((t) => existsSync(join(ROOT, t))),
    ]
  : [];

const registry = new KernelRegistry();
registry.registerAll(tensorKernels);

describe.skipIf(tests.length === 0)('tensor kernels on ONNX backend node tests', () => {
  it.each(tests)('%s', async (id) => {
    const dir = join(ROOT, id);
    const model = await loadModel(join(dir, 'model.onnx'));
    const graph = model.graph;
    const opset = graph.opsetFor('')!;
    const kernels = graph.nodes.map((node) => {
      const found = registry.lookup('cpu', node, graph);
      if (!found.ok) throw new Error(`${node.opType}: no kernel: ${found.reason.message}`);
      return found.def;
    });
    const fed = graph.inputs.filter((vi) => !graph.initializers.has(vi.name));
    const sets = readdirSync(dir).filter((d) => d.startsWith('test_data_set_'));
    expect(sets.length).toBeGreaterThan(0);
    for (const set of sets) {
      const read = (file: string, type: Parameters<typeof decodeValue>[1]) => decodeValue(readFileSync(join(dir, set, file)), type);
      const values = new Map<string, RuntimeValue>(graph.initializers);
      fed.forEach((vi, i) => {
        const file = `input_${i}.pb`;
        if (existsSync(join(dir, set, file))) values.set(vi.name, read(file, vi.type));
      });
      // The nodes are in topological order: run each kernel on the values so far.
      for (const [n, node] of graph.nodes.entries()) {
        const attributes = Object.fromEntries([...node.attributes].map(([k, v]) => [k, plainAttribute(v)]));
        const inputs = node.inputs.map((name) => (name === '' ? undefined : values.get(name)));
        const outputs = await runKernel(kernels[n], inputs, { attributes, opset, outputs: node.outputs.length });
        node.outputs.forEach((name, i) => name && values.set(name, outputs[i]));
      }
      graph.outputs.forEach((vi, i) => {
        const problem = compareValues(values.get(vi.name), read(`output_${i}.pb`, vi.type));
        expect(problem, `${set} output ${vi.name}`).toBeUndefined();
      });
    }
  });
});
