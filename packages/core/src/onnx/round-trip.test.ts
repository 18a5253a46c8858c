/** encodeModel / encodeTensor: decode(encode(x)) equals x, and ONNX's own tools accept what we write. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { Graph, type AttributeValue, type Model } from '../ir/graph.js';
import { ALL_DATA_TYPES, ONNX_DATA_TYPE, SUB_BYTE_RANGE, type DataType, allocateData } from '../tensor/data-type.js';
import { Tensor } from '../tensor/tensor.js';
import { decodeTensor, encodeModel, encodeTensor, loadModel } from './index.js';
import {
  allTestModels,
  hasPythonOnnx,
  hasTestData,
  referenceModels,
  runPython,
  summarizeModel,
  summarizeTensor,
} from './fixtures/reference.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'switchyard-onnx-rt-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A tensor of `type` with distinct, recognisable values. */
function sampleTensor(type: DataType, dims: number[]): Tensor {
  const n = dims.reduce((a, b) => a * b, 1);
  const data = allocateData(type, n);
  for (let i = 0; i < data.length; i++) {
    if (Array.isArray(data)) data[i] = `s${i}-ü`;
    else if (data instanceof BigInt64Array) data[i] = BigInt(i) * -123456789012345n;
    else if (data instanceof BigUint64Array) data[i] = 2n ** 63n + BigInt(i);
    else if (type === 'bool') data[i] = i % 2;
    else if (SUB_BYTE_RANGE[type]) {
      const [lo, hi] = SUB_BYTE_RANGE[type]!;
      data[i] = lo + ((i * 37 + 5) % (hi - lo + 1));
    } else data[i] = (i * 37 + 5) % 200;
  }
  return new Tensor(type, data, dims);
}

function syntheticModel(): Model {
  const opsetImports = new Map([['', 17], ['com.example', 2]]);
  const main = new Graph({ name: 'main', opsetImports });
  const body = new Graph({ name: 'body', opsetImports: new Map(), parent: main });
  body.inputs = [{ name: 'b_in', type: { kind: 'tensor', elemType: 'float32', shape: [] } }];
  body.outputs = [{ name: 'b_out', type: { kind: 'tensor', elemType: 'float32' } }];
  body.addNode({ opType: 'Identity', inputs: ['b_in'], outputs: ['b_out'], name: 'inner' });
  main.inputs = [
    { name: 'x', type: { kind: 'tensor', elemType: 'float16', shape: ['batch', undefined, 3] }, docString: 'the input' },
    { name: 'seq', type: { kind: 'sequence', elem: { kind: 'tensor', elemType: 'int64' } } },
    { name: 'opt', type: { kind: 'optional', elem: { kind: 'sequence', elem: { kind: 'tensor', elemType: 'string', shape: [2] } } } },
    { name: 'm', type: { kind: 'map' } },
    { name: 'o', type: { kind: 'opaque' } },
    { name: 'u', type: { kind: 'unknown' } },
    { name: 'untyped' },
  ];
  main.outputs = [{ name: 'y', type: { kind: 'tensor', elemType: 'float32', shape: [1, 2] } }];
  main.valueInfo.set('mid', { name: 'mid', type: { kind: 'tensor', elemType: 'bfloat16', shape: [0, 7] } });
  for (const type of ALL_DATA_TYPES) main.initializers.set(`init_${type}`, sampleTensor(type, [2, 3]));
  main.initializers.set('scalar', sampleTensor('int64', []));
  main.initializers.set('empty', sampleTensor('float32', [0, 4]));
  const attributes = new Map<string, AttributeValue>([
    ['f', { type: 'float', value: Math.fround(0.1) }],
    ['i', { type: 'int', value: -42 }],
    ['big', { type: 'int', value: 2 ** 53 - 1 }],
    ['s', { type: 'string', value: 'héllo', bytes: new TextEncoder().encode('héllo') }],
    ['t', { type: 'tensor', value: sampleTensor('complex64', [2]) }],
    ['g', { type: 'graph', value: body }],
    ['fs', { type: 'floats', value: [1.5, -0, Infinity] }],
    ['is', { type: 'ints', value: [-1, 0, 9007199254740991] }],
    ['ss', { type: 'strings', value: ['a', '', 'ζ'] }],
    ['ts', { type: 'tensors', value: [sampleTensor('uint8', [3]), sampleTensor('string', [1])] }],
    ['gs', { type: 'graphs', value: [body] }],
    ['empty_ints', { type: 'ints', value: [] }],
  ]);
  const n = main.addNode({ opType: 'Custom', domain: 'com.example', inputs: ['x', '', 'seq'], outputs: ['y', ''], attributes });
  n.docString = 'a custom node';
  main.addNode({ opType: 'Relu', name: 'relu', inputs: ['y'], outputs: ['z'] });
  main.docString = 'main graph';
  return {
    irVersion: 8,
    opsetImports,
    producerName: 'switchyard-test',
    producerVersion: '0.0.1',
    domain: 'ai.test',
    modelVersion: 3,
    docString: 'synthetic',
    metadata: new Map([['author', 'me'], ['empty', '']]),
    graph: main,
    functionNames: [],
  };
}

describe('encodeModel round trip', () => {
  test('a synthetic model using every IR feature comes back equal', async () => {
    const m = syntheticModel();
    const back = await loadModel(encodeModel(m));
    expect(back).toEqual(m);
    // Tensor data sits in a private field that toEqual cannot see: the summary hashes it.
    expect(summarizeModel(back)).toEqual(summarizeModel(m));
    // Parent links and ids are part of the structure.
    const g = back.graph.nodes[0].attributes.get('g');
    expect(g?.type === 'graph' && g.value.parent).toBe(back.graph);
    expect(back.graph.nodes.map((n) => n.id)).toEqual([0, 1]);
    // Encoding is deterministic.
    expect(encodeModel(back)).toEqual(encodeModel(m));
  });

  test('encodeTensor / decodeTensor for every data type', () => {
    for (const type of ALL_DATA_TYPES) {
      for (const dims of [[], [0], [2, 3]]) {
        const t = sampleTensor(type, dims);
        const back = decodeTensor(encodeTensor(t, `t_${type}`));
        expect(back.type).toBe(type);
        expect(back.dims).toEqual(dims);
        expect(back.data).toEqual(t.data);
      }
    }
  });

  test.skipIf(!hasTestData)('every backend-test model survives encode → decode', async () => {
    for (const p of allTestModels()) {
      const m = await loadModel(p);
      const back = await loadModel(encodeModel(m));
      expect(summarizeModel(back), p).toEqual(summarizeModel(m));
      expect(back.graph.nodes.map((n) => n.id)).toEqual(m.graph.nodes.map((n) => n.id));
    }
  });
});

describe.skipIf(!hasPythonOnnx)('the onnx Python package reads what we write', () => {
  test('synthetic-model tensors of every data type: onnx decodes the same values', () => {
    const files: string[] = [];
    const expected: unknown[] = [];
    // /usr/bin/python3's onnx 1.12 predates the float8/4-bit/2-bit types (ONNX numbers 17+); their
    // packed layouts are checked against literal bytes from onnx 1.23 in sub-byte-tensors.test.ts.
    for (const type of ALL_DATA_TYPES.filter((t) => ONNX_DATA_TYPE[t] <= 16)) {
      const t = sampleTensor(type, [2, 3]);
      const file = path.join(tmp, `${type}.pb`);
      writeFileSync(file, encodeTensor(t, type));
      files.push(`tensor:${file}`);
      expected.push(summarizeTensor(t));
    }
    const script = path.join(path.dirname(new URL(import.meta.url).pathname), 'fixtures', 'summarize.py');
    const got = JSON.parse(runPython([script, 'values', ...files])) as unknown[];
    expect(got).toEqual(expected);
    // ONNX's data_type numbers, not ours, are what the reference saw.
    expect((got[0] as { type: number }).type).toBe(ONNX_DATA_TYPE[ALL_DATA_TYPES[0]]);
  });

  test('model-local functions: names in the IR, bodies kept through encode', async () => {
    const file = path.join(tmp, 'with-function.onnx');
    const make = [
      'import onnx, sys',
      'from onnx import helper, TensorProto',
      'fn = helper.make_function("custom", "AddTwice", ["a"], ["b"],',
      '    [helper.make_node("Add", ["a", "a"], ["t"]), helper.make_node("Add", ["t", "t"], ["b"])],',
      '    [helper.make_opsetid("", 14)])',
      'g = helper.make_graph([helper.make_node("AddTwice", ["x"], ["y"], domain="custom")], "g",',
      '    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])',
      'm = helper.make_model(g, opset_imports=[helper.make_opsetid("", 14), helper.make_opsetid("custom", 1)], functions=[fn])',
      'onnx.checker.check_model(m)',
      'onnx.save(m, sys.argv[1])',
    ].join('\n');
    runPython(['-c', make, file]);
    const m = await loadModel(file);
    expect(m.functionNames).toEqual(['AddTwice']);
    expect(m.opsetImports).toEqual(new Map([['', 14], ['custom', 1]]));
    expect(m.graph.nodes[0]).toMatchObject({ opType: 'AddTwice', domain: 'custom' });
    const out = path.join(tmp, 'with-function-rt.onnx');
    writeFileSync(out, encodeModel(m));
    const read = 'import onnx, sys\nm = onnx.load(sys.argv[1])\nonnx.checker.check_model(m)\nprint(m.functions[0].name, len(m.functions[0].node))';
    expect(runPython(['-c', read, out]).trim()).toBe('AddTwice 2');
  });

  test.skipIf(!hasTestData)('re-encoded real models pass onnx.checker and match the originals', async () => {
    const originals = allTestModels().filter((_, i) => i % 10 === 0);
    const written: string[] = [];
    for (const [i, p] of originals.entries()) {
      const out = path.join(tmp, `m${i}.onnx`);
      writeFileSync(out, encodeModel(await loadModel(p)));
      written.push(out);
    }
    const check = 'import onnx, sys\nfor p in sys.argv[1:]:\n    onnx.checker.check_model(onnx.load(p))\nprint("ok")';
    expect(runPython(['-c', check, ...written]).trim()).toBe('ok');
    expect(referenceModels(written)).toEqual(referenceModels(originals));
  });
});
