// GPU test: elementwise kernels (binary with broadcasting, Where, unary/activations, Cast) and the
// GEMM/conv epilogue, each against the JS reference. Run on a GPU host after build:native:
//   node --test packages/native-hip/gpu-tests/
// Skips without a device (SWITCHYARD_GPU_REQUIRED=1 makes that a failure).
import { describe, it } from 'node:test';
import { check, FLOAT_TYPES, kernels, skip, tensor } from './lib/kernels-harness.mjs';
import * as ref from './lib/kernels-reference.mjs';

const rand = ref.rng(1234);
const values = (dims, lo, hi) => ref.randomValues(ref.sizeOf(dims), rand, lo, hi);
// Magnitudes kept away from 0 so Div/Reciprocal stay finite in float16.
const awayFromZero = (dims) => values(dims, 0.5, 2).map((v) => (rand() < 0.5 ? -v : v));

const BINARY_SHAPES = [
  [[7, 13], [7, 13]],
  [[2, 3, 1, 5], [4, 1]],
  [[], [5, 3]],
  [[5, 3], [1]],
  [[2, 1, 3, 1, 2, 3], [1, 2, 1, 4, 1, 3]],
  [[100003], [1]],
  [[0, 3], [1, 3]],
  // Rows along which both operands run contiguous or constant: a block a row (long rows, or few),
  // a warp a row (many short rows, as BERT b32's mask add).
  [[3, 300], [300]],
  [[40, 70], [40, 1, 70]],
  [[8, 640, 100], [8, 1, 100]],
];

describe('binary', { skip }, () => {
  for (const dtype of FLOAT_TYPES) {
    for (const op of Object.keys(ref.BINARY)) {
      it(`${op} ${dtype}`, () => {
        for (const [aDims, bDims] of BINARY_SHAPES) {
          const a = tensor(dtype, aDims, op === 'Pow' ? values(aDims, 0.5, 2) : values(aDims, -2, 2));
          // Comparisons need ties: draw b from a's values where the shapes allow, plus a few fixed ones.
          const b = tensor(dtype, bDims, op === 'Div' ? awayFromZero(bDims) : values(bDims, -2, 2).map((v, i) => (i % 3 === 0 && a.values.length ? a.values[i % a.values.length] : v)));
          const expected = ref.binary(op, a.values, aDims, b.values, bDims);
          const outDtype = ref.COMPARISONS.has(op) ? 'bool' : dtype;
          check('binary', { inputs: [a, b], outputs: [{ dims: expected.dims, dtype: outDtype }], attrs: { op } }, [expected.data]);
        }
      });
    }
  }
  it('rejects shapes that do not broadcast, before touching the device', () => {
    const a = tensor('float32', [2, 3], values([2, 3]));
    const b = tensor('float32', [4], values([4]));
    try {
      kernels.run('binary', { inputs: [a.spec, b.spec], outputs: [{ dims: [2, 3], dtype: 'float32' }], attrs: { op: 'Add' } });
      throw new Error('no error');
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
    }
  });
});

describe('where', { skip }, () => {
  for (const dtype of ['float32', 'float16', 'int64', 'bool']) {
    it(dtype, () => {
      const cases = [
        [[3, 1, 5], [1, 4, 5], []],
        [[7], [7], [7]],
        [[2, 1, 2, 1, 3, 1], [1, 3, 1, 2, 1, 2], [2, 3, 2, 2, 3, 2]],
      ];
      for (const [cDims, xDims, yDims] of cases) {
        const cond = tensor('bool', cDims, values(cDims, 0, 1).map((v) => (v < 0.5 ? 1 : 0)));
        const make = (dims) => tensor(dtype, dims, values(dims, -9, 9).map((v) => (dtype === 'int64' ? Math.round(v) : dtype === 'bool' ? (v > 0 ? 1 : 0) : v)));
        const x = make(xDims), y = make(yDims);
        const expected = ref.where(cond.values, cDims, x.values, xDims, y.values, yDims);
        check('where', { inputs: [cond, x, y], outputs: [{ dims: expected.dims, dtype }] }, [expected.data], { atol: 0, rtol: 0 });
      }
    });
  }
});

const UNARY_PARAMS = { LeakyRelu: { alpha: 0.1, beta: 0 }, HardSigmoid: { alpha: 0.2, beta: 0.5 }, Clip: { alpha: -0.5, beta: 0.7 } };
const POSITIVE_ONLY = new Set(['Log', 'Sqrt']);

describe('unary', { skip }, () => {
  for (const dtype of FLOAT_TYPES) {
    for (const op of Object.keys(ref.UNARY)) {
      it(`${op} ${dtype}`, () => {
        const params = UNARY_PARAMS[op] ?? { alpha: 0, beta: 0 };
        for (const dims of [[1027], [2, 3, 1, 2, 5, 3], [4, 4]]) {
          const raw = op === 'Reciprocal' ? awayFromZero(dims) : values(dims, -4, 4);
          const x = tensor(dtype, dims, POSITIVE_ONLY.has(op) ? raw.map((v) => Math.abs(v) + 0.05) : raw);
          const expected = ref.unary(op, x.values, dims, params);
          check('unary', { inputs: [x], outputs: [{ dims, dtype }], attrs: { op, ...params } }, [expected.data]);
        }
      });
    }
  }
});

describe('cast', { skip }, () => {
  const source = [0, -0.0, 1.5, -1.5, 2.7, -2.7, 100.25, -100.75, 65504, 3e-5, 7, 0];
  const pairs = [
    ['float32', 'float16'], ['float16', 'float32'], ['float32', 'int32'], ['float32', 'int64'], ['int32', 'float32'],
    ['int64', 'float32'], ['float32', 'bool'], ['bool', 'float32'], ['int64', 'int32'], ['float16', 'int64'],
    ['int32', 'float16'], ['bool', 'int64'],
  ];
  for (const [from, to] of pairs) {
    it(`${from} -> ${to}`, () => {
      const input = from === 'bool' ? source.map((v) => (v ? 1 : 0)) : from.startsWith('int') ? source.map(Math.trunc) : source;
      const x = tensor(from, [source.length], input);
      const convert = (v) => {
        if (to === 'bool') return v !== 0 ? 1 : 0;
        if (to === 'float16') return ref.roundF16(v);
        if (to === 'float32') return Math.fround(v);
        return Math.trunc(v);
      };
      check('cast', { inputs: [x], outputs: [{ dims: [source.length], dtype: to }] }, [x.values.map(convert)], { atol: 0, rtol: 0 });
    });
  }
});

describe('biasActivation', { skip }, () => {
  const cases = [
    { dims: [33, 70], axis: 1, bias: true, residual: false },
    { dims: [2, 5, 7, 3], axis: 1, bias: true, residual: true, residualBeforeActivation: true },
    { dims: [2, 5, 7, 3], axis: 1, bias: true, residual: true, residualBeforeActivation: false },
    { dims: [4, 9], axis: 1, bias: false, residual: true },
    { dims: [1, 3, 2, 2, 2, 5], axis: 5, bias: true, residual: false },
    // Rows a multiple of 4 wide: four elements a thread, one vector access each.
    { dims: [33, 72], axis: 1, bias: true, residual: true, residualBeforeActivation: false },
    { dims: [5, 3072], axis: 1, bias: true, residual: true, residualBeforeActivation: true },
    { dims: [6, 8], axis: 1, bias: false, residual: true },
    { dims: [7, 12], axis: 1, bias: true, residual: false },
  ];
  for (const dtype of FLOAT_TYPES) {
    for (const activation of ['Identity', 'Relu', 'GeluErf', 'GeluTanh', 'LeakyRelu']) {
      it(`${activation} ${dtype}`, () => {
        for (const c of cases) {
          const x = tensor(dtype, c.dims, values(c.dims, -3, 3));
          const bias = c.bias ? tensor(dtype, [c.dims[c.axis]], values([c.dims[c.axis]], -1, 1)) : null;
          const residual = c.residual ? tensor(dtype, c.dims, values(c.dims, -1, 1)) : null;
          const params = { alpha: 0.2, beta: 0 };
          const expected = ref.biasActivation(x.values, c.dims, bias?.values, residual?.values, c.axis, activation, params, !!c.residualBeforeActivation);
          check(
            'biasActivation',
            {
              inputs: [x, bias, residual],
              outputs: [{ dims: c.dims, dtype }],
              attrs: { axis: c.axis, activation, ...params, residualBeforeActivation: !!c.residualBeforeActivation },
            },
            [expected.data],
          );
        }
      });
    }
  }
});
