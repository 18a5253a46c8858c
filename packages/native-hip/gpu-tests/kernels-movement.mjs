// GPU test: data movement (Gather, Concat, Slice, Transpose, Expand, Pad) against the JS reference,
// over element sizes 1/2/4/8 bytes (bool, float16, float32, int64) and odd, broadcast and rank-6
// shapes. These kernels move bits, so every comparison is exact. Skips without a device.
import { describe, it } from 'node:test';
import { check, skip, tensor } from './lib/kernels-harness.mjs';
import * as ref from './lib/kernels-reference.mjs';

const rand = ref.rng(7);
const EXACT = { atol: 0, rtol: 0 };
const DTYPES = ['float32', 'float16', 'int64', 'bool', 'int8'];

function values(dtype, dims) {
  const n = ref.sizeOf(dims);
  if (dtype === 'bool') return Array.from({ length: n }, () => (rand() < 0.5 ? 1 : 0));
  if (dtype === 'int8') return Array.from({ length: n }, () => Math.floor(rand() * 256) - 128);
  if (dtype === 'int64') return Array.from({ length: n }, () => Math.floor(rand() * 2e9) - 1e9);
  return ref.randomValues(n, rand, -100, 100);
}
const make = (dtype, dims) => tensor(dtype, dims, values(dtype, dims));

describe('gather', { skip }, () => {
  const cases = [
    { dims: [5, 4, 3], axis: 0, indexDims: [2, 2], indices: [-1, 0, 4, -5] },
    { dims: [5, 4, 3], axis: 1, indexDims: [3], indices: [3, -4, 1] },
    { dims: [5, 4, 3], axis: 2, indexDims: [4], indices: [2, 2, 0, -1] },
    { dims: [2, 3, 2, 2, 2, 3], axis: 3, indexDims: [2], indices: [1, 0] },
    { dims: [7, 5], axis: 0, indexDims: [3], indices: [6, 0, 3] }, // odd rows: narrow words
    { dims: [7, 8], axis: 0, indexDims: [3], indices: [6, 0, 3] }, // 8-element rows: wide words
    { dims: [4, 2], axis: 0, indexDims: [3], indices: [9, -9, 1] }, // out of range: zeros
    { dims: [3], axis: 0, indexDims: [], indices: [2] }, // scalar index
  ];
  for (const dtype of DTYPES) {
    for (const indexType of ['int64', 'int32']) {
      it(`${dtype} with ${indexType} indices`, () => {
        for (const c of cases) {
          const data = make(dtype, c.dims);
          const indices = tensor(indexType, c.indexDims, c.indices);
          const expected = ref.gather(data.values, c.dims, c.indices, c.indexDims, c.axis);
          check('gather', { inputs: [data, indices], outputs: [{ dims: expected.dims, dtype }], attrs: { axis: c.axis } },
            [expected.data], EXACT);
        }
      });
    }
  }
});

describe('concat', { skip }, () => {
  const cases = [
    { shapes: [[2, 1, 3], [2, 4, 3], [2, 2, 3]], axis: 1 },
    { shapes: [[1, 5], [3, 5]], axis: 0 },
    { shapes: [[3, 1], [3, 7], [3, 2]], axis: -1 },
    { shapes: Array.from({ length: 20 }, (_, i) => [2, (i % 3) + 1, 2]), axis: 1 }, // more inputs than one launch takes
    { shapes: [[2, 0, 4], [2, 3, 4]], axis: 1 }, // an empty input
    { shapes: [[1, 2, 1, 2, 2, 3], [1, 2, 1, 2, 1, 3]], axis: 4 },
  ];
  for (const dtype of DTYPES) {
    it(dtype, () => {
      for (const c of cases) {
        const parts = c.shapes.map((dims) => make(dtype, dims));
        const axis = c.axis < 0 ? c.axis + c.shapes[0].length : c.axis;
        const expected = ref.concat(parts.map((p, i) => ({ data: p.values, dims: c.shapes[i] })), axis);
        check('concat', { inputs: parts, outputs: [{ dims: expected.dims, dtype }], attrs: { axis: c.axis } }, [expected.data], EXACT);
      }
    });
  }
});

describe('slice', { skip }, () => {
  const cases = [
    { dims: [5, 7, 4], starts: [1, 0, 0], ends: [4, 7, 4], steps: [1, 1, 1] }, // leading rows: one copy
    { dims: [5, 7, 4], starts: [4, -1, 1], ends: [-6, 0, 4], steps: [-2, -3, 2] }, // negative steps
    { dims: [2, 3, 2, 4, 2, 5], starts: [0, 1, 0, 3, 1, 4], ends: [2, 3, 2, 0, 2, -6], steps: [1, 1, 1, -1, 1, -2] },
    { dims: [6, 6], starts: [3, 0], ends: [3, 6], steps: [1, 1] }, // empty
    { dims: [9], starts: [-100], ends: [100], steps: [4] }, // clamped
  ];
  for (const dtype of DTYPES) {
    it(dtype, () => {
      for (const c of cases) {
        const x = make(dtype, c.dims);
        const { starts, steps, outDims } = ref.resolveSlice(c.dims, c.starts, c.ends, c.steps);
        const expected = ref.slice(x.values, c.dims, starts, steps, outDims);
        check('slice', { inputs: [x], outputs: [{ dims: outDims, dtype }], attrs: { starts, steps } }, [expected.data], EXACT);
      }
    });
  }
});

describe('transpose', { skip }, () => {
  const cases = [
    { dims: [4, 5], perm: [1, 0] }, // tiled
    { dims: [3, 33, 65], perm: [0, 2, 1] }, // tiled, batched, partial tiles
    { dims: [2, 3, 40, 50], perm: [0, 1, 3, 2] }, // tiled after merging the batch dims
    { dims: [2, 3, 37, 41], perm: [0, 2, 3, 1] }, // NCHW -> NHWC, 3 channels: one thread per output row
    { dims: [3, 8, 5, 7], perm: [0, 2, 3, 1] }, // the widest row that path takes
    { dims: [2, 9, 5, 7], perm: [0, 2, 3, 1] }, // one wider: tiled
    { dims: [2, 3, 4, 5, 6, 7], perm: [5, 3, 1, 0, 2, 4] }, // general rank 6
    { dims: [3, 4, 5], perm: [2, 0, 1] },
    { dims: [3, 4, 5], perm: [0, 1, 2] }, // identity: one copy
    { dims: [1, 7, 1, 3], perm: [3, 2, 1, 0] }, // size-1 dims collapse to a 2-D swap
  ];
  for (const dtype of DTYPES) {
    it(dtype, () => {
      for (const c of cases) {
        const x = make(dtype, c.dims);
        const expected = ref.transpose(x.values, c.dims, c.perm);
        check('transpose', { inputs: [x], outputs: [{ dims: expected.dims, dtype }], attrs: { perm: c.perm } }, [expected.data], EXACT);
      }
    });
  }
});

describe('expand', { skip }, () => {
  const cases = [
    { dims: [3, 1], out: [2, 3, 4] },
    { dims: [1], out: [5, 1, 3] },
    { dims: [2, 1, 3, 1, 1, 2], out: [2, 2, 3, 2, 3, 2] },
    { dims: [4], out: [4] },
  ];
  for (const dtype of DTYPES) {
    it(dtype, () => {
      for (const c of cases) {
        const x = make(dtype, c.dims);
        const expected = ref.expand(x.values, c.dims, c.out);
        check('expand', { inputs: [x], outputs: [{ dims: c.out, dtype }] }, [expected.data], EXACT);
      }
    });
  }
});

describe('pad', { skip }, () => {
  const cases = [
    { dims: [3, 4], begin: [1, 2], end: [2, 3], mode: 'constant', value: 7 },
    { dims: [5, 6], begin: [2, 3], end: [4, 1], mode: 'reflect' },
    { dims: [2, 3, 4, 5], begin: [0, 0, 3, 1], end: [0, 0, 1, 4], mode: 'edge' },
    { dims: [4, 5], begin: [-1, 2], end: [1, -2], mode: 'constant', value: -1 }, // negative pads crop
    { dims: [2, 2, 1, 2, 3, 2], begin: [0, 1, 0, 0, 2, 1], end: [1, 0, 0, 1, 2, 0], mode: 'reflect' },
    { dims: [3, 1], begin: [0, 2], end: [0, 2], mode: 'reflect' }, // a dim of 1 reflects onto itself
  ];
  for (const dtype of ['float32', 'float16', 'int32', 'int64']) {
    it(dtype, () => {
      for (const c of cases) {
        const x = make(dtype === 'int32' ? 'int64' : dtype, c.dims);
        const input = tensor(dtype, c.dims, x.values);
        const expected = ref.pad(input.values, c.dims, c.begin, c.end, c.mode, c.value ?? 0);
        check('pad', { inputs: [input], outputs: [{ dims: expected.dims, dtype }], attrs: { padsBegin: c.begin, mode: c.mode, value: c.value ?? 0 } },
          [expected.data], EXACT);
      }
    });
  }
});
