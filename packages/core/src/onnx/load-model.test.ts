/** Structure of real backend-test models, checked against facts read from the models with ONNX's own tools. */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { AttributeReader } from '../ir/attributes.js';
import { SwitchyardError } from '../errors.js';
import { Graph, subgraphsOf } from '../ir/graph.js';
import { decodeOptional, decodeSequence, decodeTensor, loadModel, readTensorName } from './index.js';
import { TESTDATA, hasTestData } from './fixtures/reference.js';

const node = (t: string) => `${TESTDATA}/node/${t}/model.onnx`;

describe.skipIf(!hasTestData)('loadModel on backend-test models', () => {
  test('test_abs: one Abs node, opset 13 default domain, typed input and output', async () => {
    const m = await loadModel(node('test_abs'));
    expect(m.irVersion).toBeGreaterThanOrEqual(3);
    expect(m.producerName).toBe('backend-test');
    expect(m.graph.nodes).toHaveLength(1);
    const [n] = m.graph.nodes;
    expect(n).toMatchObject({ id: 0, opType: 'Abs', domain: '', inputs: ['x'], outputs: ['y'] });
    expect(m.opsetImports.get('')).toBeGreaterThanOrEqual(6);
    expect(m.graph.opsetFor('')).toBe(m.opsetImports.get(''));
    expect(m.graph.inputs).toEqual([{ name: 'x', type: { kind: 'tensor', elemType: 'float32', shape: [3, 4, 5] } }]);
    expect(m.graph.parent).toBeUndefined();
  });

  test('test_conv_with_strides_padding: attribute values and shapes', async () => {
    const m = await loadModel(node('test_conv_with_strides_padding'));
    expect(m.opsetImports).toEqual(new Map([['', 11]]));
    const conv = m.graph.nodes[0];
    const a = new AttributeReader(conv);
    expect(conv.opType).toBe('Conv');
    expect(a.ints('kernel_shape')).toEqual([3, 3]);
    expect(a.ints('pads')).toEqual([1, 1, 1, 1]);
    expect(a.ints('strides')).toEqual([2, 2]);
    expect(m.graph.typeOf('x')).toEqual({ kind: 'tensor', elemType: 'float32', shape: [1, 1, 7, 5] });
    expect(m.graph.typeOf('W')).toEqual({ kind: 'tensor', elemType: 'float32', shape: [1, 1, 3, 3] });
  });

  test('test_if: both branches are subgraphs whose parent is the main graph', async () => {
    const m = await loadModel(node('test_if'));
    const ifNode = m.graph.nodes[0];
    expect(ifNode.opType).toBe('If');
    const then = new AttributeReader(ifNode).graph('then_branch');
    const otherwise = new AttributeReader(ifNode).graph('else_branch');
    expect(then).toBeInstanceOf(Graph);
    expect(then.parent).toBe(m.graph);
    expect(otherwise.parent).toBe(m.graph);
    expect(then.name).toBe('then_body');
    expect(then.nodes.map((n) => n.opType)).toEqual(['Constant']);
    // Subgraphs import no opsets of their own: they inherit the model's.
    expect(then.opsetFor('')).toBe(11);
    expect(m.graph.typeOf('cond')).toEqual({ kind: 'tensor', elemType: 'bool', shape: [] });
  });

  test('test_loop11: body nodes, node ids, Constant tensors kept as nodes', async () => {
    const m = await loadModel(node('test_loop11'));
    const loop = m.graph.nodes[0];
    expect(loop.inputs).toEqual(['trip_count', 'cond', 'y']);
    expect(loop.outputs).toEqual(['res_y', 'res_scan']);
    const body = new AttributeReader(loop).graph('body');
    expect(body.parent).toBe(m.graph);
    expect(body.nodes.map((n) => n.opType)).toEqual(['Identity', 'Constant', 'Constant', 'Add', 'Unsqueeze', 'Unsqueeze', 'Slice', 'Add', 'Identity']);
    expect(body.nodes.map((n) => n.id)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(body.nextNodeId()).toBe(9);
    const x = new AttributeReader(body.nodes[1]).tensor('value')!;
    expect(x.type).toBe('float32');
    expect(Array.from(x.data as Float32Array)).toEqual([1, 2, 3, 4, 5]);
    const one = new AttributeReader(body.nodes[2]).tensor('value')!;
    expect(one.type).toBe('int64');
    expect(one.dims).toEqual([]);
    expect(one.data).toEqual(new BigInt64Array([1n]));
    expect(new AttributeReader(body.nodes[4]).ints('axes')).toEqual([0]);
    expect(body.inputs.map((v) => v.name)).toEqual(['iter_count', 'cond_in', 'y_in']);
    expect(body.typeOf('iter_count')).toEqual({ kind: 'tensor', elemType: 'int64', shape: [] });
  });

  test('test_scan9_sum: Scan body and int attribute', async () => {
    const m = await loadModel(node('test_scan9_sum'));
    expect(m.opsetImports.get('')).toBe(9);
    const scan = m.graph.nodes[0];
    expect(new AttributeReader(scan).int('num_scan_inputs')).toBe(1);
    const body = new AttributeReader(scan).graph('body');
    expect(body.parent).toBe(m.graph);
    expect(body.nodes.map((n) => [n.opType, n.inputs, n.outputs])).toEqual([
      ['Add', ['sum_in', 'next'], ['sum_out']],
      ['Identity', ['sum_out'], ['scan_out']],
    ]);
    expect(subgraphsOf(scan)).toEqual([body]);
  });

  test('test_if_seq: subgraph outputs typed as sequences', async () => {
    const m = await loadModel(node('test_if_seq'));
    const then = new AttributeReader(m.graph.nodes[0]).graph('then_branch');
    expect(then.nodes.map((n) => n.opType)).toEqual(['Constant', 'SequenceConstruct']);
    expect(then.outputs[0].type?.kind).toBe('sequence');
    expect(m.graph.outputs[0].type).toMatchObject({ kind: 'sequence', elem: { kind: 'tensor', elemType: 'float32' } });
  });

  test('test_sequence_insert_at_back: sequence-typed input with an int64 element type and no shape', async () => {
    const m = await loadModel(node('test_sequence_insert_at_back'));
    expect(m.graph.inputs[0]).toEqual({ name: 'sequence', type: { kind: 'sequence', elem: { kind: 'tensor', elemType: 'int64' } } });
    expect(m.graph.inputs[1].type).toEqual({ kind: 'tensor', elemType: 'int64', shape: [3] });
  });

  test('test_optional_get_element_sequence: optional of sequence type', async () => {
    const m = await loadModel(node('test_optional_get_element_sequence'));
    expect(m.opsetImports.get('')).toBe(15);
    expect(m.graph.inputs[0].type).toMatchObject({ kind: 'optional', elem: { kind: 'sequence', elem: { kind: 'tensor', elemType: 'int32' } } });
  });

  test('test_constant: the Constant node stays a node with its tensor', async () => {
    const m = await loadModel(node('test_constant'));
    expect(m.graph.nodes).toHaveLength(1);
    const c = m.graph.nodes[0];
    expect(c.opType).toBe('Constant');
    const t = new AttributeReader(c).tensor('value')!;
    expect(t.dims).toEqual([5, 5]);
    // numpy.random.seed(0); randn(5, 5) — the first values of the standard sequence.
    expect(Array.from((t.data as Float32Array).slice(0, 3))).toEqual([Math.fround(1.7640524), Math.fround(0.4001572), Math.fround(0.978738)]);
    expect(m.graph.initializers.size).toBe(0);
  });

  test('pytorch-converted ConvTranspose2d: initializers listed as inputs (IR 3), opset 6', async () => {
    const m = await loadModel(`${TESTDATA}/pytorch-converted/test_ConvTranspose2d/model.onnx`);
    expect(m.irVersion).toBe(3);
    expect(m.opsetImports).toEqual(new Map([['', 6]]));
    expect(m.graph.name).toBe('torch-jit-export');
    expect(m.graph.inputs.map((v) => v.name)).toEqual(['0', '1', '2']);
    expect([...m.graph.initializers.keys()]).toEqual(['1', '2']);
    expect(m.graph.initializers.get('1')!.dims).toEqual([3, 4, 3, 3]);
    expect(m.graph.initializers.get('2')!.dims).toEqual([4]);
    const a = new AttributeReader(m.graph.nodes[0]);
    expect(a.ints('strides')).toEqual([3, 2]);
    expect(a.ints('output_padding')).toEqual([1, 1]);
    expect(a.int('group')).toBe(1);
  });

  test('raw_data tensors are copied out of the file buffer into aligned storage', async () => {
    // Load from a buffer whose data starts at an odd offset, so views into it could never be aligned.
    const file = readFileSync(`${TESTDATA}/pytorch-converted/test_Conv2d/model.onnx`);
    const shifted = new Uint8Array(file.length + 1);
    shifted.set(file, 1);
    const m = await loadModel(shifted.subarray(1));
    for (const t of m.graph.initializers.values()) {
      const d = t.data as Float32Array;
      expect(d.byteOffset % 4).toBe(0);
      expect(d.buffer).not.toBe(shifted.buffer);
    }
  });

  test('data files: tensor names, sequences, optionals', () => {
    const dir = `${TESTDATA}/node`;
    const absIn = readFileSync(`${dir}/test_abs/test_data_set_0/input_0.pb`);
    expect(readTensorName(absIn)).toBe('x');
    const x = decodeTensor(absIn);
    expect(x.dims).toEqual([3, 4, 5]);
    const absOut = decodeTensor(readFileSync(`${dir}/test_abs/test_data_set_0/output_0.pb`));
    expect(Array.from(absOut.data as Float32Array)).toEqual(Array.from(x.data as Float32Array, Math.abs));

    const seq = decodeSequence(readFileSync(`${dir}/test_sequence_insert_at_back/test_data_set_0/input_0.pb`));
    expect(seq.length).toBeGreaterThan(0);
    expect(seq.every((t) => t.type === 'int64')).toBe(true);
    const inserted = decodeTensor(readFileSync(`${dir}/test_sequence_insert_at_back/test_data_set_0/input_1.pb`));
    const out = decodeSequence(readFileSync(`${dir}/test_sequence_insert_at_back/test_data_set_0/output_0.pb`));
    expect(out).toHaveLength(seq.length + 1);
    expect(out[out.length - 1].data).toEqual(inserted.data);

    expect(decodeOptional(readFileSync(`${dir}/test_optional_has_element_empty/test_data_set_0/input_0.pb`))).toBeNull();
    const optSeq = decodeOptional(readFileSync(`${dir}/test_optional_get_element_sequence/test_data_set_0/input_0.pb`));
    expect(Array.isArray(optSeq)).toBe(true);
    const optTensor = decodeOptional(readFileSync(`${dir}/test_optional_get_element/test_data_set_0/input_0.pb`));
    expect(optTensor).not.toBeNull();
    expect(Array.isArray(optTensor)).toBe(false);
  });

  test('a missing model file is a clear INVALID_ARGUMENT error', async () => {
    await expect(loadModel('/nonexistent/model.onnx')).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    await expect(loadModel('/nonexistent/model.onnx')).rejects.toBeInstanceOf(SwitchyardError);
  });
});
