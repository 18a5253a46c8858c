// GPU tests of the int8 dynamic-quantization ops on rocm (native-hip kernels/quantize.hip, the
// ConvIntegerF32 step; ep-rocm plan/integer-ops.ts): DynamicQuantizeLinear, ConvInteger and
// MatMulInteger each against a reference written out here from the ONNX definitions (float32
// arithmetic as the spec states it; integer sums in exact JS numbers), bit for bit: saturation, ties,
// NaN and an all-zero input; zero points per tensor and per channel, computed or constant operands,
// groups, strides, dilations, pads (uneven too) and SAME padding; both sides of the 2^24 bound below
// which the float path's sums are exact; and onnxruntime's quantize_dynamic chain DynamicQuantizeLinear
// → ConvInteger → Cast → Mul → Add (→ Relu), which the plan runs as a convolution into the Cast's
// output and one Rescale step. Every node must run on rocm (HIP graph capture on, two runs).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { InferenceSession, Tensor } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { assertClose, reference, seeded, skip } from './lib/harness.mjs';

const count = (dims) => dims.reduce((a, b) => a * b, 1);
const rne = (v) => {
  const f = Math.floor(v);
  const d = v - f;
  return d > 0.5 ? f + 1 : d < 0.5 ? f : f % 2 === 0 ? f : f + 1;
};
const clamp = (v, lo, hi) => (v < lo ? lo : v > hi ? hi : v);
/** Seeded 8-bit values over the type's whole range. */
function bytes(type, dims, seed) {
  const data = type === 'uint8' ? new Uint8Array(count(dims)) : new Int8Array(count(dims));
  seeded(data.length, seed).forEach((v, i) => (data[i] = Math.floor((v + 0.5) * 256) - (type === 'int8' ? 128 : 0)));
  return new Tensor(type, data, dims);
}

/** DynamicQuantizeLinear (opset 11): every step in float32; NaN skipped by the range, quantized to 0. */
function dqlReference(x) {
  let lo = 0;
  let hi = 0;
  for (const v of x) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  const scale = Math.fround(Math.fround(hi - lo) / 255);
  const zp = scale === 0 ? 0 : clamp(rne(Math.fround(-lo / scale)), 0, 255);
  const y = new Uint8Array(x.length);
  for (let i = 0; i < x.length; i++) y[i] = scale === 0 ? zp : clamp(rne(Math.fround(x[i] / scale)) + zp, 0, 255);
  // Stored as uint8, as the op's output is (a NaN zero point, from an infinite range, stores 0).
  return { y, scale, zp: Uint8Array.of(zp)[0] };
}

/** ConvInteger (opset 10), NCHW, explicit begin/end pads; padding contributes (zp - zp) = 0. */
function convIntegerReference(x, xzp, w, wzp, { group = 1, pads = [0, 0, 0, 0], strides = [1, 1], dilations = [1, 1] }) {
  const [n, c, h, wd] = x.dims;
  const [m, cg, kh, kw] = w.dims;
  const oh = Math.floor((h + pads[0] + pads[2] - ((kh - 1) * dilations[0] + 1)) / strides[0]) + 1;
  const ow = Math.floor((wd + pads[1] + pads[3] - ((kw - 1) * dilations[1] + 1)) / strides[1]) + 1;
  const y = new Int32Array(n * m * oh * ow);
  const zx = xzp ? xzp.data[0] : 0;
  for (let b = 0; b < n; b++) for (let o = 0; o < m; o++) {
    const g = Math.floor(o / (m / group));
    const zw = wzp ? wzp.data[wzp.size === 1 ? 0 : o] : 0;
    for (let i = 0; i < oh; i++) for (let j = 0; j < ow; j++) {
      let acc = 0;
      for (let ci = 0; ci < cg; ci++) for (let p = 0; p < kh; p++) for (let q = 0; q < kw; q++) {
        const r = i * strides[0] - pads[0] + p * dilations[0];
        const s = j * strides[1] - pads[1] + q * dilations[1];
        if (r < 0 || r >= h || s < 0 || s >= wd) continue;
        acc += (x.data[((b * c + g * cg + ci) * h + r) * wd + s] - zx) * (w.data[((o * cg + ci) * kh + p) * kw + q] - zw);
      }
      y[((b * m + o) * oh + i) * ow + j] = acc;
    }
  }
  return { data: y, dims: [n, m, oh, ow] };
}

/** MatMulInteger (opset 10) of A [..., M, K] and a 2-D B [K, N]; a's zero point scalar or per row (of each matrix, or of all), b's per column or scalar. */
function matMulIntegerReference(a, azp, b, bzp) {
  const k = a.dims[a.dims.length - 1];
  const rows = a.size / k;
  const n = b.dims[1];
  const y = new Int32Array(rows * n);
  for (let r = 0; r < rows; r++) for (let j = 0; j < n; j++) {
    const za = azp ? azp.data[r % azp.size] : 0;
    const zb = bzp ? bzp.data[bzp.size === 1 ? 0 : j] : 0;
    let acc = 0;
    for (let p = 0; p < k; p++) acc += (a.data[r * k + p] - za) * (b.data[p * n + j] - zb);
    y[r * n + j] = acc;
  }
  return { data: y, dims: [...a.dims.slice(0, -1), n] };
}

/** Runs `spec` on rocm (every node there, HIP graph on) twice: the eager run and the captured replay. */
async function onRocm(spec, feeds) {
  const model = buildModel({ opset: 13, ...spec });
  const s = await InferenceSession.fromModel(model, { executionProviders: [{ name: 'rocm', enableHipGraph: true }, 'cpu'] });
  const off = s.placement.nodes.filter((n) => n.ep !== 'rocm').map((n) => `${n.name} (${n.opType}): ${n.declined.map((d) => d.reason.message).join('; ')}`);
  assert.deepEqual(off, [], 'nodes off rocm');
  const first = await s.run(feeds);
  const second = await s.run(feeds);
  await s.release();
  for (const k of Object.keys(first)) assert.deepEqual(Array.from(second[k].data), Array.from(first[k].data), `${k}: the replay differs from the eager run`);
  return { model, out: first };
}

const sameInts = (got, want, what) => {
  assert.deepEqual(got.dims, want.dims, `${what}: dims`);
  const g = got.data;
  for (let i = 0; i < want.data.length; i++) if (g[i] !== want.data[i]) assert.fail(`${what}[${i}] = ${g[i]}, expected ${want.data[i]}`);
};

describe('rocm DynamicQuantizeLinear', { skip }, () => {
  const big = seeded(3_000_017, 7).map((v) => v * 6 - 1);
  const cases = [
    ['mixed signs', [2, 3, 17, 19], seeded(2 * 3 * 17 * 19, 1).map((v) => v * 10 + 1)],
    ['positive only (the range starts at 0)', [5, 40], seeded(200, 2).map((v) => v + 0.75)],
    ['negative only (the range ends at 0)', [5, 40], seeded(200, 3).map((v) => v - 0.75)],
    ['all zeros (scale 0, no division by zero)', [64], new Float32Array(64)],
    ['ties round to even, saturation at 255', [8], Float32Array.from([0, 255, 2.5, 3.5, 0.5, 1.5, -0, 254.5])],
    ['a NaN (skipped by the range, quantized to 0) and infinities', [6], Float32Array.from([1, NaN, -2, 3, Infinity, -Infinity])],
    ['3M elements (many range blocks)', [big.length], big],
  ];
  for (const [name, dims, data] of cases) {
    it(name, async () => {
      const { out } = await onRocm(
        { inputs: [['x', 'float32', dims]], outputs: [['y', 'uint8'], ['s', 'float32'], ['z', 'uint8']], nodes: [{ op: 'DynamicQuantizeLinear', inputs: ['x'], outputs: ['y', 's', 'z'], name: 'dql' }] },
        { x: new Tensor('float32', data, dims) },
      );
      const want = dqlReference(data);
      assert.equal(out.s.data[0], want.scale, 'scale');
      assert.equal(out.z.data[0], want.zp, 'zero point');
      sameInts({ data: out.y.data, dims: out.y.dims }, { data: want.y, dims }, 'y');
    });
  }
});

describe('rocm ConvInteger', { skip }, () => {
  const cases = [
    ['uint8, zero points, pads 1', { x: ['uint8', [2, 5, 9, 8]], w: ['uint8', [7, 5, 3, 3]], xzp: true, wzp: 'scalar', attrs: { pads: [1, 1, 1, 1] } }],
    ['int8 weights with a zero point per output channel, grouped, strided, dilated', { x: ['uint8', [1, 6, 13, 11]], w: ['int8', [4, 3, 3, 3]], xzp: true, wzp: 'channel', attrs: { group: 2, strides: [2, 2], dilations: [2, 2], pads: [2, 2, 2, 2] } }],
    ['computed weights and zero points (shifted on the device)', { x: ['uint8', [1, 4, 7, 7]], w: ['uint8', [6, 4, 3, 3]], xzp: true, wzp: 'channel', computedW: true, attrs: { pads: [1, 0, 1, 0] } }],
    ['uneven pads (the GEMM form)', { x: ['uint8', [1, 3, 8, 8]], w: ['uint8', [5, 3, 3, 3]], xzp: true, wzp: 'scalar', attrs: { pads: [0, 1, 2, 1] } }],
    ['SAME_UPPER, stride 2', { x: ['uint8', [1, 3, 9, 10]], w: ['uint8', [4, 3, 3, 3]], xzp: true, wzp: 'scalar', attrs: { auto_pad: 'SAME_UPPER', strides: [2, 2] } }],
    ['int8 input, no zero points', { x: ['int8', [2, 4, 6, 6]], w: ['int8', [3, 4, 2, 2]], attrs: {} }],
    ['a UNet-sized layer, 32 channels at 96x96', { x: ['uint8', [1, 32, 96, 96]], w: ['uint8', [32, 32, 3, 3]], xzp: true, wzp: 'scalar', attrs: { pads: [1, 1, 1, 1] } }],
  ];
  cases.forEach(([name, c], n) => {
    it(name, async () => {
      const x = bytes(c.x[0], c.x[1], 100 + n);
      const w = bytes(c.w[0], c.w[1], 200 + n);
      const xzp = c.xzp ? new Tensor(c.x[0], c.x[0] === 'uint8' ? Uint8Array.from([131]) : Int8Array.from([-3]), []) : undefined;
      const wzp = c.wzp === 'scalar' ? bytes(c.w[0], [], 300 + n) : c.wzp === 'channel' ? bytes(c.w[0], [c.w[1][0]], 300 + n) : undefined;
      const inputs = [['x', c.x[0], c.x[1]], ...(xzp ? [['xz', c.x[0], []]] : [])];
      const initializers = {};
      const feeds = { x };
      if (xzp) feeds.xz = xzp;
      if (c.computedW) {
        inputs.push(['w', c.w[0], c.w[1]], ['wz', c.w[0], wzp.dims]);
        Object.assign(feeds, { w, wz: wzp });
      } else {
        initializers.w = w;
        if (wzp) initializers.wz = wzp;
      }
      const { out } = await onRocm({
        inputs, outputs: [['y', 'int32']], initializers,
        nodes: [{ op: 'ConvInteger', inputs: ['x', 'w', xzp ? 'xz' : '', wzp ? 'wz' : ''], outputs: ['y'], name: 'conv', attributes: c.attrs }],
      }, feeds);
      const attrs = { ...c.attrs };
      if (attrs.auto_pad === 'SAME_UPPER') {
        // SAME_UPPER: total padding (out - 1) * stride + k - in, the extra one at the end.
        const pads = [0, 0, 0, 0];
        for (const a of [0, 1]) {
          const size = c.x[1][2 + a];
          const total = Math.max(0, (Math.ceil(size / attrs.strides[a]) - 1) * attrs.strides[a] + c.w[1][2 + a] - size);
          pads[a] = Math.floor(total / 2);
          pads[a + 2] = total - pads[a];
        }
        attrs.pads = pads;
      }
      sameInts(out.y, convIntegerReference(x, xzp, w, wzp, attrs), 'y');
    });
  });
});

describe('rocm MatMulInteger', { skip }, () => {
  it('batched A with a zero point per row of each matrix, constant int8 B with one per column', async () => {
    const a = bytes('uint8', [2, 3, 37], 11);
    const azp = bytes('uint8', [3], 12);
    const b = bytes('int8', [37, 5], 13);
    const bzp = bytes('int8', [5], 14);
    const { out } = await onRocm({
      inputs: [['a', 'uint8', [2, 3, 37]], ['az', 'uint8', [3]]], outputs: [['y', 'int32']], initializers: { b, bz: bzp },
      nodes: [{ op: 'MatMulInteger', inputs: ['a', 'b', 'az', 'bz'], outputs: ['y'], name: 'mm' }],
    }, { a, az: azp });
    sameInts(out.y, matMulIntegerReference(a, azp, b, bzp), 'y');
  });

  it('computed operands with scalar zero points (a transformer Linear layer)', async () => {
    const a = bytes('uint8', [64, 768], 21);
    const b = bytes('uint8', [768, 96], 22);
    const azp = new Tensor('uint8', Uint8Array.from([128]), []);
    const bzp = new Tensor('uint8', Uint8Array.from([119]), []);
    const { out } = await onRocm({
      inputs: [['a', 'uint8', [64, 768]], ['b', 'uint8', [768, 96]], ['az', 'uint8', []], ['bz', 'uint8', []]], outputs: [['y', 'int32']],
      nodes: [{ op: 'MatMulInteger', inputs: ['a', 'b', 'az', 'bz'], outputs: ['y'], name: 'mm' }],
    }, { a, b, az: azp, bz: bzp });
    sameInts(out.y, matMulIntegerReference(a, azp, b, bzp), 'y');
  });
});

describe('the float path\'s exactness bound, Σ|products| ≤ 2^24', { skip }, () => {
  // Every product 255·255 = 65025: 258 of them sum to 16,776,450 < 2^24, exact; 259 to 16,841,475, an
  // odd number past 2^24, which no float32 holds -- the one place the float path differs from an
  // int32 sum, by float32's last bit.
  for (const k of [258, 259]) {
    const exact = k * 65025;
    const full = (dims) => new Tensor('uint8', new Uint8Array(count(dims)).fill(255), dims);
    const check = (got) => {
      if (exact < 2 ** 24) assert.equal(got, exact);
      else {
        assert.notEqual(got, exact);
        assert.ok(Math.abs(got - exact) <= 4, `${got} is within float32 rounding of ${exact}`);
      }
    };
    it(`ConvInteger, ${k} products per output`, async () => {
      const { out } = await onRocm({
        inputs: [['x', 'uint8', [1, k, 2, 2]]], outputs: [['y', 'int32']], initializers: { w: full([1, k, 1, 1]) },
        nodes: [{ op: 'ConvInteger', inputs: ['x', 'w'], outputs: ['y'], name: 'conv' }],
      }, { x: full([1, k, 2, 2]) });
      for (const v of out.y.data) check(v);
    });
    it(`MatMulInteger, K = ${k}`, async () => {
      const { out } = await onRocm({
        inputs: [['a', 'uint8', [3, k]]], outputs: [['y', 'int32']], initializers: { b: full([k, 2]) },
        nodes: [{ op: 'MatMulInteger', inputs: ['a', 'b'], outputs: ['y'], name: 'mm' }],
      }, { a: full([3, k]) });
      for (const v of out.y.data) check(v);
    });
  }
});

describe('onnxruntime quantize_dynamic\'s Conv chain', { skip }, () => {
  // On rocm the Cast is folded into the convolution and Mul → Add → Relu into one Rescale step
  // (plan/integer-ops.ts): the values must still be the ops' one by one, bit for bit.
  for (const [withBias, withRelu] of [[true, false], [true, true], [false, true]]) {
    it(`DynamicQuantizeLinear → ConvInteger → Cast → Mul${withBias ? ' → Add' : ''}${withRelu ? ' → Relu' : ''} equals the ops one by one`, async () => {
      const [c, m] = [16, 24];
      const x = new Tensor('float32', seeded(2 * c * 20 * 20, 31).map((v) => v * 3 + 0.4), [2, c, 20, 20]);
      const w = bytes('uint8', [m, c, 3, 3], 32);
      const wzp = new Tensor('uint8', Uint8Array.from([127]), []);
      const wScale = new Tensor('float32', Float32Array.from([0.0037]), []);
      const bias = new Tensor('float32', seeded(m, 33), [1, m, 1, 1]);
      const nodes = [
        { op: 'DynamicQuantizeLinear', inputs: ['x'], outputs: ['xq', 'xs', 'xz'], name: 'dql' },
        { op: 'ConvInteger', inputs: ['xq', 'w', 'xz', 'wzp'], outputs: ['int'], name: 'conv', attributes: { pads: [1, 1, 1, 1], strides: [2, 2] } },
        { op: 'Cast', inputs: ['int'], outputs: ['f'], name: 'cast', attributes: { to: 1 } },
        { op: 'Mul', inputs: ['xs', 'wScale'], outputs: ['scale'], name: 'scales' },
        { op: 'Mul', inputs: ['f', 'scale'], outputs: ['scaled'], name: 'rescale' },
      ];
      let last = 'scaled';
      if (withBias) {
        nodes.push({ op: 'Add', inputs: [last, 'bias'], outputs: ['biased'], name: 'bias' });
        last = 'biased';
      }
      if (withRelu) {
        nodes.push({ op: 'Relu', inputs: [last], outputs: ['relu'], name: 'relu' });
        last = 'relu';
      }
      const spec = { inputs: [['x', 'float32', [2, c, 20, 20]]], outputs: [[last, 'float32']], initializers: { w, wzp, wScale, ...(withBias ? { bias } : {}) }, nodes };
      const { model, out } = await onRocm(spec, { x });
      // The ops one by one, in float32 as each one rounds.
      const q = dqlReference(x.data);
      const acc = convIntegerReference(new Tensor('uint8', q.y, x.dims), new Tensor('uint8', Uint8Array.from([q.zp]), []), w, wzp, { pads: [1, 1, 1, 1], strides: [2, 2] });
      const scale = Math.fround(q.scale * wScale.data[0]);
      const [, , oh, ow] = acc.dims;
      const want = Float32Array.from(acc.data, (v, i) => {
        let y = Math.fround(v * scale);
        if (withBias) y = Math.fround(y + bias.data[Math.floor(i / (oh * ow)) % m]);
        return withRelu && y < 0 ? 0 : y;
      });
      assertClose(out[last].data, want, 0, 0, last);
      // And the CPU EP agrees (its own kernels for each op).
      assertClose(out[last].data, (await reference(model, { x }))[last].data, 0, 0, `${last} against the CPU EP`);
    });
  }
});
