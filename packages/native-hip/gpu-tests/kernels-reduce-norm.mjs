// GPU test: reductions, Softmax/LogSoftmax and LayerNormalization (with fused residual) against the
// JS reference, for both float types and row/column/rank-6 geometries. Skips without a device.
import { describe, it } from 'node:test';
import { check, FLOAT_TYPES, skip, tensor } from './lib/kernels-harness.mjs';
import * as ref from './lib/kernels-reference.mjs';

const rand = ref.rng(99);
const values = (dims, lo = -2, hi = 2) => ref.randomValues(ref.sizeOf(dims), rand, lo, hi);

// float32 sums of thousands of terms differ from float64 by more than one rounding.
const SUM_TOLERANCE = { float32: { atol: 2e-4, rtol: 2e-4 }, float16: { atol: 4e-3, rtol: 4e-3 } };

const REDUCE_CASES = [
  { dims: [4, 37], begin: 1, end: 2 }, // short rows: a warp per row
  { dims: [3, 5000], begin: 1, end: 2 }, // long rows: a block per row
  { dims: [6, 8, 5], begin: 1, end: 2 }, // columns
  { dims: [2, 3, 4, 5, 6, 7], begin: 2, end: 4 }, // rank 6, middle axes
  { dims: [1000, 3], begin: 0, end: 1 }, // long columns, few outputs
  { dims: [257, 3], begin: 0, end: 2 }, // everything
  { dims: [3, 0, 4], begin: 1, end: 2 }, // empty reduction: identities
];

describe('reduce', { skip }, () => {
  for (const dtype of FLOAT_TYPES) {
    for (const op of ['Sum', 'Mean', 'Max', 'Min', 'SumSquare', 'L1', 'L2', 'LogSumExp']) {
      it(`${op} ${dtype}`, () => {
        for (const c of REDUCE_CASES) {
          // Keep float16 sums of squares inside its range.
          const x = tensor(dtype, c.dims, values(c.dims, -2, 2));
          const expected = ref.reduce(op, x.values, c.dims, c.begin, c.end);
          check('reduce', { inputs: [x], outputs: [{ dims: expected.dims, dtype }], attrs: { op, axisBegin: c.begin, axisEnd: c.end } },
            [expected.data], SUM_TOLERANCE[dtype]);
        }
      });
    }
  }
});

describe('softmax', { skip }, () => {
  for (const dtype of FLOAT_TYPES) {
    for (const log of [false, true]) {
      it(`${log ? 'LogSoftmax' : 'Softmax'} ${dtype}`, () => {
        for (const dims of [[5, 7], [3, 1500], [2, 3, 4, 5, 6, 3], [1, 1], [1000, 10], [130, 768]]) {
          const x = tensor(dtype, dims, values(dims, -6, 6));
          const expected = ref.softmax(x.values, dims, log);
          check('softmax', { inputs: [x], outputs: [{ dims, dtype }], attrs: { log } }, [expected.data], SUM_TOLERANCE[dtype]);
        }
      });
    }
  }
});

describe('layerNorm', { skip }, () => {
  const cases = [
    { dims: [6, 33], residual: false, beta: true, extras: false },
    { dims: [6, 33], residual: true, beta: true, extras: true },
    { dims: [4, 3000], residual: true, beta: false, extras: true },
    { dims: [2, 3, 64], residual: false, beta: true, extras: true },
    { dims: [1, 2, 1, 2, 3, 7], residual: true, beta: true, extras: false },
    // Rows held in registers: 2, 3 (BERT's 768), 4 and 8 slots a thread, the last at its limit, and
    // one past it (the three-pass kernel).
    { dims: [3, 250], residual: true, beta: false, extras: true },
    { dims: [130, 768], residual: true, beta: true, extras: true },
    { dims: [5, 1000], residual: false, beta: true, extras: true },
    { dims: [5, 2048], residual: true, beta: true, extras: true },
    { dims: [5, 2049], residual: true, beta: true, extras: true },
  ];
  for (const dtype of FLOAT_TYPES) {
    it(dtype, () => {
      for (const c of cases) {
        const cols = c.dims[c.dims.length - 1];
        const rows = ref.sizeOf(c.dims) / cols;
        const x = tensor(dtype, c.dims, values(c.dims, -3, 5));
        const residual = c.residual ? tensor(dtype, c.dims, values(c.dims)) : null;
        const gamma = tensor(dtype, [cols], values([cols], 0.5, 1.5));
        const beta = c.beta ? tensor(dtype, [cols], values([cols], -1, 1)) : null;
        const epsilon = 1e-5;
        const expected = ref.layerNorm(x.values, residual?.values, gamma.values, beta?.values, c.dims, epsilon);
        const outputs = [
          { dims: c.dims, dtype },
          c.extras && c.residual ? { dims: c.dims, dtype } : null,
          c.extras ? { dims: [rows], dtype: 'float32' } : null,
          c.extras ? { dims: [rows], dtype: 'float32' } : null,
        ];
        // invStd of float16 inputs is computed in float32 from quantized values: float32 tolerance.
        check('layerNorm', { inputs: [x, residual, gamma, beta], outputs, attrs: { epsilon } },
          [expected.out, expected.sum, expected.mean, expected.invStd], SUM_TOLERANCE[dtype]);
      }
    });
  }
});
