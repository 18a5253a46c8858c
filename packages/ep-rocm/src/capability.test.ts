import { describe, expect, it } from 'vitest';
import { KernelRegistry, Tensor, inferShapes, type Graph, type Node } from '@switchyard/core';
import { buildModel, type ModelSpec } from '@switchyard/core/testing';
import { groupRegions, rocmCapability, rocmKernelDefs } from './capability.js';
import { HOST_ONLY_OPS, INLINED_OPS, ROCM_KERNEL_TABLE } from './kernel-table.js';
import { ENCODED_OPS } from './plan/step-encoders.js';

function graphOf(spec: ModelSpec): Graph {
  const g = buildModel(spec).graph;
  inferShapes(g);
  return g;
}

/** The rocm decision for every node: 'gpu' or the decline reason, as data. */
function decisions(spec: ModelSpec, steps?: string[]): Record<string, string> {
  const graph = graphOf(spec);
  const registry = new KernelRegistry();
  for (const def of rocmKernelDefs(ROCM_KERNEL_TABLE, steps ? new Set(steps) : undefined)) registry.register(def);
  const { capabilities, declined } = rocmCapability(graph, { lookup: registry.lookupFor('rocm'), assigned: new Set() });
  const out: Record<string, string> = {};
  for (const c of capabilities) for (const n of c.nodes) out[n.name] = 'gpu';
  for (const [n, r] of declined) out[n.name] = `${r.kind}: ${r.message}`;
  return out;
}

const x = (shape: Array<number | string> = [2, 8]): ModelSpec['inputs'][number] => ['x', 'float32', shape];

/** ConvInteger / MatMulInteger forms served and declined (plan/integer-ops.ts). */
function integerCases(): Array<[string, ModelSpec, string]> {
  const u8 = (dims: number[]) => new Tensor('uint8', new Uint8Array(dims.reduce((a, b) => a * b, 1)), dims);
  const conv = (name: string, xDims: Array<number | string>, wDims: number[], extra: { attributes?: Record<string, number[] | number>; xzp?: number[]; wzp?: number[] }, expected: string): [string, ModelSpec, string] => [
    name,
    {
      inputs: [['q', 'uint8', xDims], ...(extra.xzp ? [['xz', 'uint8', extra.xzp] as ModelSpec['inputs'][number]] : [])],
      outputs: [['z', 'int32']],
      initializers: { w: u8(wDims), ...(extra.wzp ? { wz: u8(extra.wzp) } : {}) },
      nodes: [{ op: 'ConvInteger', inputs: ['q', 'w', extra.xzp ? 'xz' : '', extra.wzp ? 'wz' : ''], outputs: ['z'], name: 'n', attributes: extra.attributes }],
    },
    expected,
  ];
  const matmul = (name: string, bzp: number[], expected: string): [string, ModelSpec, string] => [
    name,
    {
      inputs: [['a', 'uint8', [2, 3, 4]], ['b', 'int8', [4, 5]], ['bz', 'int8', bzp]],
      outputs: [['z', 'int32']],
      nodes: [{ op: 'MatMulInteger', inputs: ['a', 'b', '', 'bz'], outputs: ['z'], name: 'n' }],
    },
    expected,
  ];
  return [
    conv('ConvInteger with zero points, strided, grouped', [1, 4, 8, 8], [6, 2, 3, 3], { attributes: { group: 2, strides: [2, 2], pads: [1, 1, 1, 1] }, xzp: [], wzp: [6] }, 'gpu'),
    conv('ConvInteger with a per-channel x zero point', [1, 4, 8, 8], [6, 4, 3, 3], { xzp: [4] }, 'x_zero_point must be one value'),
    conv('ConvInteger with a w zero point of the wrong size', [1, 4, 8, 8], [6, 4, 3, 3], { wzp: [4] }, 'w_zero_point must be one value or one per output channel (6)'),
    conv('1-D ConvInteger', [1, 4, 8], [6, 4, 3], {}, 'only 2-D (NCHW) ConvInteger'),
    conv('grouped ConvInteger with uneven pads', [1, 4, 8, 8], [4, 2, 3, 3], { attributes: { group: 2, pads: [0, 0, 1, 1] } }, 'a grouped Conv with uneven begin/end pads'),
    matmul('MatMulInteger, batched A, per-column b zero point', [5], 'gpu'),
    matmul('MatMulInteger with a b zero point per row', [4], 'b_zero_point must be one value or one per column'),
  ];
}

describe('rocm kernel table', () => {
  it('has an encoder, a step op and a valid opset range for every row', () => {
    for (const row of ROCM_KERNEL_TABLE) {
      if (HOST_ONLY_OPS.has(row.opType) || INLINED_OPS.has(row.opType)) {
        expect(row.steps).toEqual([]);
        continue;
      }
      // ConstantOfShape too large to fold becomes an Expand step in plan-description.ts itself.
      if (row.opType !== 'ConstantOfShape') expect(ENCODED_OPS, row.opType).toContain(row.opType);
      expect(row.steps.length).toBeGreaterThan(0);
      expect(row.sinceVersion).toBeGreaterThan(0);
      if (row.endVersion !== undefined) expect(row.endVersion).toBeGreaterThanOrEqual(row.sinceVersion);
    }
    expect(new Set(ROCM_KERNEL_TABLE.map((r) => r.opType)).size).toBe(ROCM_KERNEL_TABLE.length);
  });
});

describe('rocm capability: reasons as data', () => {
  const cases: Array<[string, ModelSpec, string]> = [
    ['float Add', { inputs: [x(), ['y', 'float32', [8]]], outputs: [['z', 'float32']], nodes: [{ op: 'Add', inputs: ['x', 'y'], outputs: ['z'], name: 'n' }] }, 'gpu'],
    ['int32 Add', { inputs: [['x', 'int32', [4]], ['y', 'int32', [4]]], outputs: [['z', 'int32']], nodes: [{ op: 'Add', inputs: ['x', 'y'], outputs: ['z'], name: 'n' }] }, 'gpu'],
    ['int8 Add', { inputs: [['x', 'int8', [4]], ['y', 'int8', [4]]], outputs: [['z', 'int8']], nodes: [{ op: 'Add', inputs: ['x', 'y'], outputs: ['z'], name: 'n' }] }, 'dtype'],
    ['int64 Equal', { inputs: [['x', 'int64', [4]], ['y', 'int64', [4]]], outputs: [['z', 'bool']], nodes: [{ op: 'Equal', inputs: ['x', 'y'], outputs: ['z'], name: 'n' }] }, 'gpu'],
    ['Shape alone', { inputs: [x(['b', 8])], outputs: [['z', 'int64']], nodes: [{ op: 'Shape', inputs: ['x'], outputs: ['z'], name: 'n' }] }, 'partition: shape arithmetic with no GPU work'],
    [
      '1-D Conv',
      { inputs: [x([1, 4, 16])], outputs: [['z', 'float32']], initializers: { w: new Tensor('float32', new Float32Array(8 * 4 * 3), [8, 4, 3]) }, nodes: [{ op: 'Conv', inputs: ['x', 'w'], outputs: ['z'], name: 'n', attributes: { pads: [1, 1] } }] },
      'gpu',
    ],
    [
      '1-D Conv with a computed filter',
      { inputs: [x([1, 4, 16]), ['w', 'float32', [8, 4, 3]]], outputs: [['z', 'float32']], nodes: [{ op: 'Conv', inputs: ['x', 'w'], outputs: ['z'], name: 'n' }] },
      'attribute: a 1-D convolution runs on rocm only with a constant filter',
    ],
    [
      'ConvTranspose with output_shape',
      { inputs: [x([1, 4, 6, 6])], outputs: [['z', 'float32']], initializers: { w: new Tensor('float32', new Float32Array(4 * 2 * 4), [4, 2, 2, 2]) }, nodes: [{ op: 'ConvTranspose', inputs: ['x', 'w'], outputs: ['z'], name: 'n', attributes: { strides: [2, 2], output_shape: [12, 12] } }] },
      'attribute: ConvTranspose with output_shape',
    ],
    [
      'ConvTranspose stride 2',
      { inputs: [x([1, 4, 6, 6])], outputs: [['z', 'float32']], initializers: { w: new Tensor('float32', new Float32Array(4 * 2 * 4), [4, 2, 2, 2]) }, nodes: [{ op: 'ConvTranspose', inputs: ['x', 'w'], outputs: ['z'], name: 'n', attributes: { strides: [2, 2] } }] },
      'gpu',
    ],
    [
      'Resize nearest x2',
      { inputs: [x(['b', 4, 'h', 'w'])], outputs: [['z', 'float32']], initializers: { s: new Tensor('float32', Float32Array.from([1, 1, 2, 2]), [4]) }, nodes: [{ op: 'Resize', inputs: ['x', '', 's'], outputs: ['z'], name: 'n', attributes: { mode: 'nearest' } }] },
      'gpu',
    ],
    [
      'Resize cubic',
      { inputs: [x([1, 4, 6, 6])], outputs: [['z', 'float32']], initializers: { s: new Tensor('float32', Float32Array.from([1, 1, 2, 2]), [4]) }, nodes: [{ op: 'Resize', inputs: ['x', '', 's'], outputs: ['z'], name: 'n', attributes: { mode: 'cubic' } }] },
      "attribute: Resize mode 'cubic'",
    ],
    [
      'Resize of the channels',
      { inputs: [x([1, 4, 6, 6])], outputs: [['z', 'float32']], initializers: { s: new Tensor('float32', Float32Array.from([1, 2, 2, 2]), [4]) }, nodes: [{ op: 'Resize', inputs: ['x', '', 's'], outputs: ['z'], name: 'n' }] },
      'attribute: Resize must keep N and C',
    ],
    ['unknown op', { inputs: [x()], outputs: [['z', 'float32']], nodes: [{ op: 'Hardmax', inputs: ['x'], outputs: ['z'], name: 'n' }] }, 'op: rocm has no kernel for Hardmax'],
    ['Softmax on axis 0 (opset 13)', { inputs: [x()], outputs: [['z', 'float32']], nodes: [{ op: 'Softmax', inputs: ['x'], outputs: ['z'], name: 'n', attributes: { axis: 0 } }] }, 'attribute: softmax over an axis other than the last'],
    ['Softmax on the last axis', { inputs: [x()], outputs: [['z', 'float32']], nodes: [{ op: 'Softmax', inputs: ['x'], outputs: ['z'], name: 'n', attributes: { axis: -1 } }] }, 'gpu'],
    ['Reshape to a computed shape', { inputs: [x(), ['s', 'int64', [2]]], outputs: [['z', 'float32']], nodes: [{ op: 'Reshape', inputs: ['x', 's'], outputs: ['z'], name: 'n' }] }, 'attribute: the target shape (input 1) must be a constant or computed from shapes'],
    [
      'Reshape to a constant shape',
      { inputs: [x()], outputs: [['z', 'float32']], initializers: { s: new Tensor('int64', BigInt64Array.from([4n, 4n]), [2]) }, nodes: [{ op: 'Reshape', inputs: ['x', 's'], outputs: ['z'], name: 'n' }] },
      'gpu',
    ],
    ['ReduceSum over split axes', { inputs: [x([2, 3, 4])], outputs: [['z', 'float32']], opset: 11, nodes: [{ op: 'ReduceSum', inputs: ['x'], outputs: ['z'], name: 'n', attributes: { axes: [0, 2] } }] }, 'attribute: axes [0,2] are not one contiguous range'],
    ['Max of three', { inputs: [x(), ['y', 'float32', [2, 8]], ['w', 'float32', [2, 8]]], outputs: [['z', 'float32']], nodes: [{ op: 'Max', inputs: ['x', 'y', 'w'], outputs: ['z'], name: 'n' }] }, 'attribute: Max of 3 inputs'],
    ['Pad in wrap mode', { inputs: [x()], outputs: [['z', 'float32']], initializers: { p: new Tensor('int64', BigInt64Array.from([0n, 1n, 0n, 1n]), [4]) }, nodes: [{ op: 'Pad', inputs: ['x', 'p'], outputs: ['z'], name: 'n', attributes: { mode: 'wrap' } }] }, "attribute: Pad mode 'wrap'"],
    ['MaxPool with asymmetric pads', { inputs: [x([1, 1, 5, 5])], outputs: [['z', 'float32']], nodes: [{ op: 'MaxPool', inputs: ['x'], outputs: ['z'], name: 'n', attributes: { kernel_shape: [2, 2], pads: [0, 0, 1, 1] } }] }, 'attribute: asymmetric pooling pads'],
    ['MaxPool with symmetric pads', { inputs: [x([1, 1, 5, 5])], outputs: [['z', 'float32']], nodes: [{ op: 'MaxPool', inputs: ['x'], outputs: ['z'], name: 'n', attributes: { kernel_shape: [3, 3], pads: [1, 1, 1, 1] } }] }, 'gpu'],
    ['MaxPool, ceil_mode that changes nothing, symbolic batch', { inputs: [x(['n', 1, 111, 111])], outputs: [['z', 'float32']], nodes: [{ op: 'MaxPool', inputs: ['x'], outputs: ['z'], name: 'n', attributes: { kernel_shape: [3, 3], strides: [2, 2], ceil_mode: 1 } }] }, 'gpu'],
    ['MaxPool, ceil_mode that adds a row', { inputs: [x([1, 1, 6, 6])], outputs: [['z', 'float32']], nodes: [{ op: 'MaxPool', inputs: ['x'], outputs: ['z'], name: 'n', attributes: { kernel_shape: [3, 3], strides: [2, 2], ceil_mode: 1 } }] }, 'attribute: ceil_mode=1 changes the output size'],
    [
      'grouped Conv with uneven pads',
      { inputs: [x([1, 4, 6, 6])], outputs: [['z', 'float32']], initializers: { w: new Tensor('float32', new Float32Array(4 * 2 * 9), [4, 2, 3, 3]) }, nodes: [{ op: 'Conv', inputs: ['x', 'w'], outputs: ['z'], name: 'n', attributes: { group: 2, pads: [0, 0, 1, 1] } }] },
      'attribute: a grouped Conv with uneven begin/end pads',
    ],
    [
      'grouped Conv, SAME_UPPER padding one side more',
      { inputs: [x([1, 4, 6, 6])], outputs: [['z', 'float32']], initializers: { w: new Tensor('float32', new Float32Array(4 * 2 * 4), [4, 2, 2, 2]) }, nodes: [{ op: 'Conv', inputs: ['x', 'w'], outputs: ['z'], name: 'n', attributes: { group: 2, auto_pad: 'SAME_UPPER' } }] },
      'attribute: a grouped Conv with uneven begin/end pads',
    ],
    [
      'grouped Conv, SAME_UPPER padding evenly',
      { inputs: [x([1, 4, 6, 6])], outputs: [['z', 'float32']], initializers: { w: new Tensor('float32', new Float32Array(4 * 2 * 9), [4, 2, 3, 3]) }, nodes: [{ op: 'Conv', inputs: ['x', 'w'], outputs: ['z'], name: 'n', attributes: { group: 2, auto_pad: 'SAME_UPPER' } }] },
      'gpu',
    ],
    [
      'ungrouped Conv with uneven pads (the GEMM form runs it)',
      { inputs: [x([1, 4, 6, 6])], outputs: [['z', 'float32']], initializers: { w: new Tensor('float32', new Float32Array(4 * 4 * 9), [4, 4, 3, 3]) }, nodes: [{ op: 'Conv', inputs: ['x', 'w'], outputs: ['z'], name: 'n', attributes: { pads: [0, 0, 1, 1] } }] },
      'gpu',
    ],
    ['Cast to uint8', { inputs: [x()], outputs: [['z', 'uint8']], nodes: [{ op: 'Cast', inputs: ['x'], outputs: ['z'], name: 'n', attributes: { to: 2 } }] }, 'gpu'],
    ['Cast to float64', { inputs: [x()], outputs: [['z', 'float64']], nodes: [{ op: 'Cast', inputs: ['x'], outputs: ['z'], name: 'n', attributes: { to: 11 } }] }, 'dtype'],
    ['DynamicQuantizeLinear', { inputs: [x([1, 3, 4, 4])], outputs: [['y', 'uint8'], ['s', 'float32'], ['z', 'uint8']], nodes: [{ op: 'DynamicQuantizeLinear', inputs: ['x'], outputs: ['y', 's', 'z'], name: 'n' }] }, 'gpu'],
    ...integerCases(),
    ['Gelu (opset 20) tanh', { opset: 20, inputs: [x()], outputs: [['z', 'float32']], nodes: [{ op: 'Gelu', inputs: ['x'], outputs: ['z'], name: 'n', attributes: { approximate: 'tanh' } }] }, 'gpu'],
    ['Gelu (opset 20) with an unknown approximation', { opset: 20, inputs: [x()], outputs: [['z', 'float32']], nodes: [{ op: 'Gelu', inputs: ['x'], outputs: ['z'], name: 'n', attributes: { approximate: 'cubic' } }] }, "Gelu approximate='cubic'"],
    ['Gelu at opset 17 (a contrib-style op name, not ONNX Gelu)', { inputs: [x()], outputs: [['z', 'float32']], nodes: [{ op: 'Gelu', inputs: ['x'], outputs: ['z'], name: 'n' }] }, 'opset'],
    ['MatMul batched with the same batch dims', { inputs: [x([2, 3, 4, 5]), ['y', 'float32', [2, 3, 5, 6]]], outputs: [['z', 'float32']], nodes: [{ op: 'MatMul', inputs: ['x', 'y'], outputs: ['z'], name: 'n' }] }, 'gpu'],
    ['MatMul batched against a broadcast (all-1) batch', { inputs: [x(['b', 3, 4, 5]), ['y', 'float32', [1, 1, 5, 6]]], outputs: [['z', 'float32']], nodes: [{ op: 'MatMul', inputs: ['x', 'y'], outputs: ['z'], name: 'n' }] }, 'gpu'],
    ['MatMul with cross-broadcast batches', { inputs: [x([3, 1, 3, 4]), ['y', 'float32', [1, 2, 4, 2]]], outputs: [['z', 'float32']], nodes: [{ op: 'MatMul', inputs: ['x', 'y'], outputs: ['z'], name: 'n' }] }, 'the strided GEMM cannot broadcast them'],
    ['Relu on rank 7', { inputs: [x([1, 1, 1, 1, 1, 1, 2])], outputs: [['z', 'float32']], nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['z'], name: 'n' }] }, 'attribute: \'x\' has rank 7'],
  ];
  it.each(cases)('%s', (_name, spec, expected) => {
    const got = decisions(spec).n;
    if (expected === 'gpu' || expected === 'dtype') expect(got.startsWith(expected)).toBe(true);
    else expect(got).toContain(expected);
  });

  it('declines ops whose step op the native build lacks, naming the step', () => {
    const spec: ModelSpec = { inputs: [x()], outputs: [['z', 'float32']], nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['r'], name: 'relu' }, { op: 'Exp', inputs: ['r'], outputs: ['z'], name: 'exp' }] };
    expect(decisions(spec, ['Relu'])).toEqual({ relu: 'gpu', exp: expect.stringMatching(/^attribute: this build of @switchyard\/native-hip has no GPU kernel for step Exp/) });
  });
});

describe('groupRegions', () => {
  const names = (regions: Node[][]) => regions.map((r) => r.map((n) => n.name));
  // a → b → c(cpu) → d, and a → d: fusing {a, b, d} would loop through c.
  const spec: ModelSpec = {
    inputs: [x()],
    outputs: [['d', 'float32']],
    nodes: [
      { op: 'Relu', inputs: ['x'], outputs: ['a'], name: 'a' },
      { op: 'Exp', inputs: ['a'], outputs: ['b'], name: 'b' },
      { op: 'Hardmax', inputs: ['b'], outputs: ['c'], name: 'c' },
      { op: 'Add', inputs: ['c', 'a'], outputs: ['d'], name: 'd' },
      { op: 'Neg', inputs: ['x'], outputs: ['e'], name: 'e' },
    ],
  };

  it('never forms a region that would loop through a node outside it', () => {
    const g = graphOf(spec);
    const accepted = new Set(g.nodes.filter((n) => n.name !== 'c'));
    expect(names(groupRegions(g, accepted))).toEqual([['a', 'b'], ['d'], ['e']]);
  });

  it('merges two regions where their branches meet, when that makes no cycle', () => {
    // x → p → q ; x → m → n (a side branch, like an attention-mask bias) ; r = q + n
    const g = graphOf({
      inputs: [x()],
      outputs: [['r', 'float32']],
      nodes: [
        { op: 'Relu', inputs: ['x'], outputs: ['p'], name: 'p' },
        { op: 'Exp', inputs: ['p'], outputs: ['q'], name: 'q' },
        { op: 'Neg', inputs: ['x'], outputs: ['m'], name: 'm' },
        { op: 'Abs', inputs: ['m'], outputs: ['n'], name: 'n' },
        { op: 'Add', inputs: ['q', 'n'], outputs: ['r'], name: 'r' },
      ],
    });
    expect(names(groupRegions(g, new Set(g.nodes)))).toEqual([['p', 'q', 'm', 'n', 'r']]);
  });

  it('does not merge regions when a path between them runs through a node outside', () => {
    // a → c(cpu) → m ; a → b ; d = b + m: merging {a, b} and {m} with d would loop through c.
    const g = graphOf({
      inputs: [x()],
      outputs: [['d', 'float32']],
      nodes: [
        { op: 'Relu', inputs: ['x'], outputs: ['a'], name: 'a' },
        { op: 'Hardmax', inputs: ['a'], outputs: ['c'], name: 'c' },
        { op: 'Neg', inputs: ['c'], outputs: ['m'], name: 'm' },
        { op: 'Exp', inputs: ['a'], outputs: ['b'], name: 'b' },
        { op: 'Add', inputs: ['b', 'm'], outputs: ['d'], name: 'd' },
      ],
    });
    const regions = names(groupRegions(g, new Set(g.nodes.filter((n) => n.name !== 'c'))));
    expect(regions).toEqual([['a', 'b'], ['m', 'd']]);
  });

  it('keeps a connected convex set in one region', () => {
    const g = graphOf(spec);
    expect(names(groupRegions(g, new Set(g.nodes)))).toEqual([['a', 'b', 'c', 'd'], ['e']]);
  });
});
