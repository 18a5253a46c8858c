// GPU test: the DNN seam (Conv2d with bias/ReLU/residual, ConvTranspose2d, pooling, batch norm;
// fp32 and fp16) against CPU references, and the on-disk algorithm cache reused by a second
// process. Skips without a device or a DNN library.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { f16BitsToF32, f32ToF16Bits } from './lib/kernels-reference.mjs';
import * as ref from './lib/dnn-reference.mjs';
import { addonPath, assertClose, gpu, rng, randomF32, skip, upload } from './lib/runtime-harness.mjs';

const dnnSkip = skip || (gpu.binding.dnnInfo().available ? false : gpu.binding.dnnInfo().reason);
const MEMORY_ONLY = '-';

const toDevice = (dtype, array) => upload(dtype === 'float16' ? Uint16Array.from(array, f32ToF16Bits) : array);
const quant = (dtype, array) => (dtype === 'float16' ? array.map((v) => f16BitsToF32(f32ToF16Bits(v))) : array);
function fromDevice(dtype, buffer, length) {
  const raw = dtype === 'float16' ? new Uint16Array(length) : new Float32Array(length);
  buffer.download(raw);
  return dtype === 'float16' ? Float32Array.from(raw, f16BitsToF32) : raw;
}
const tolerance = (dtype) => (dtype === 'float16' ? { atol: 3e-2, rtol: 2e-2 } : { atol: 1e-4, rtol: 1e-4 });

function runConv(dtype, p, algoSearch = 'heuristic', transposed = false) {
  const { binding } = gpu;
  const rand = rng(p.n * 1000 + p.c * 100 + p.k * 10 + p.kh);
  const { n, c, h, wi, k, kh, kw, group = 1 } = p;
  const x = quant(dtype, randomF32(n * c * h * wi, rand));
  const w = quant(dtype, randomF32((transposed ? c * (k / group) : k * (c / group)) * kh * kw, rand));
  const b = p.bias ? quant(dtype, randomF32(k, rand)) : undefined;
  const expected = transposed ? ref.convTranspose2d({ ...p, x, w, b }) : ref.conv2d({ ...p, x, w, b });
  const residual = p.residual ? quant(dtype, randomF32(n * k * expected.oh * expected.ow, rand)) : undefined;
  const want = transposed ? expected.y : ref.conv2d({ ...p, x, w, b, residual, relu: p.relu }).y;
  const dx = toDevice(dtype, x);
  const dw = toDevice(dtype, w);
  const db = b && toDevice(dtype, b);
  const dy = residual ? toDevice(dtype, residual) : new binding.DeviceBuffer(0, want.length * (dtype === 'float16' ? 2 : 4));
  const options = {
    x: dx, w: dw, b: db, y: dy, residual: residual ? dy : undefined, dtype,
    inputShape: [n, c, h, wi], outputChannels: k, kernelShape: [kh, kw], group,
    pads: p.pads, strides: p.strides, dilations: p.dilations, outputPadding: p.outputPadding,
    activation: p.relu ? 'relu' : 'none', algoSearch, cacheDir: p.cacheDir ?? MEMORY_ONLY,
  };
  const shape = transposed ? binding.dnnConvTranspose2d(options) : binding.dnnConv2d(options);
  assert.deepEqual(shape, [n, k, expected.oh, expected.ow]);
  assertClose(fromDevice(dtype, dy, want.length), want, { ...tolerance(dtype), what: `${dtype} ${transposed ? 'convT' : 'conv'} ${JSON.stringify(p)}` });
  for (const buffer of [dx, dw, db, dy]) buffer?.free();
}

const CONVS = [
  { n: 1, c: 3, h: 8, wi: 8, k: 4, kh: 3, kw: 3, pads: [1, 1, 1, 1], bias: true },
  { n: 2, c: 8, h: 9, wi: 7, k: 6, kh: 3, kw: 3, strides: [2, 2], bias: true, relu: true },
  { n: 1, c: 8, h: 10, wi: 10, k: 8, kh: 3, kw: 3, group: 4, dilations: [2, 2], pads: [2, 2, 2, 2], relu: true },
  { n: 1, c: 4, h: 6, wi: 6, k: 4, kh: 1, kw: 1, bias: true, residual: true, relu: true },
  { n: 1, c: 4, h: 6, wi: 6, k: 4, kh: 3, kw: 3, pads: [1, 1, 1, 1], residual: true },
];

describe('dnnConv2d', { skip: dnnSkip }, () => {
  for (const dtype of ['float32', 'float16']) {
    for (const search of ['default', 'heuristic', 'exhaustive']) {
      it(`${dtype}, ${search} algorithm`, () => {
        for (const p of CONVS) runConv(dtype, p, search);
      });
    }
  }

  it('declines asymmetric padding with DNN_UNSUPPORTED', () => {
    assert.throws(() => runConv('float32', { n: 1, c: 1, h: 4, wi: 4, k: 1, kh: 3, kw: 3, pads: [0, 0, 1, 1] }), (e) => e.code === 'DNN_UNSUPPORTED');
  });
});

describe('dnnConvTranspose2d', { skip: dnnSkip }, () => {
  for (const dtype of ['float32', 'float16']) {
    it(dtype, () => {
      runConv(dtype, { n: 1, c: 4, h: 5, wi: 5, k: 3, kh: 3, kw: 3, strides: [2, 2], pads: [1, 1, 1, 1], outputPadding: [1, 1], bias: true }, 'heuristic', true);
      runConv(dtype, { n: 2, c: 4, h: 4, wi: 6, k: 4, kh: 2, kw: 2, strides: [2, 2], group: 2 }, 'exhaustive', true);
    });
  }
});

describe('dnnPool2d and dnnBatchNorm', { skip: dnnSkip }, () => {
  for (const dtype of ['float32', 'float16']) {
    it(`pooling ${dtype}`, () => {
      const { binding } = gpu;
      const p = { n: 2, c: 3, h: 7, wi: 9, kh: 3, kw: 3, strides: [2, 2], pads: [1, 1, 1, 1] };
      const x = quant(dtype, randomF32(p.n * p.c * p.h * p.wi, rng(3)));
      for (const [mode, countIncludePad] of [['max', false], ['average', false], ['average', true]]) {
        const expected = ref.pool2d({ ...p, x, mode, countIncludePad });
        const dx = toDevice(dtype, x);
        const dy = new binding.DeviceBuffer(0, expected.y.length * 4);
        const shape = binding.dnnPool2d({ x: dx, y: dy, dtype, mode, countIncludePad, inputShape: [p.n, p.c, p.h, p.wi], kernelShape: [3, 3], pads: p.pads, strides: p.strides });
        assert.deepEqual(shape, [p.n, p.c, expected.oh, expected.ow]);
        assertClose(fromDevice(dtype, dy, expected.y.length), expected.y, { ...tolerance(dtype), what: `${mode} pool` });
        dx.free();
        dy.free();
      }
    });

    it(`batch norm ${dtype}`, () => {
      const { binding } = gpu;
      const n = 2, c = 5, spatial = 12;
      const rand = rng(11);
      const x = quant(dtype, randomF32(n * c * spatial, rand));
      const [scale, bias, mean] = [0, 1, 2].map(() => randomF32(c, rand));
      const variance = randomF32(c, rand).map((v) => Math.abs(v) + 0.1);
      const expected = ref.batchNorm({ x, scale, bias, mean, variance, n, c, spatial, epsilon: 1e-5 });
      const dx = toDevice(dtype, x);
      const dy = new binding.DeviceBuffer(0, x.length * 4);
      const params = [scale, bias, mean, variance].map(upload);
      binding.dnnBatchNorm({ x: dx, y: dy, scale: params[0], bias: params[1], mean: params[2], var: params[3], dtype, n, c, spatial, epsilon: 1e-5 });
      assertClose(fromDevice(dtype, dy, x.length), expected, { ...tolerance(dtype), what: 'batch norm' });
      for (const buffer of [dx, dy, ...params]) buffer.free();
    });
  }
});

describe('convolution algorithm cache', { skip: dnnSkip }, () => {
  it('is written by one process and reused by the next without a search', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sy-conv-algos-'));
    // A child runs one exhaustive conv with the cache in `dir` and prints the cache counters.
    const child = `
      const b = require(${JSON.stringify(addonPath)});
      const buf = (n) => { const d = new b.DeviceBuffer(0, n * 4); d.upload(new Float32Array(n).fill(0.5)); return d; };
      b.dnnConv2d({ x: buf(1 * 16 * 20 * 20), w: buf(32 * 16 * 9), y: buf(32 * 18 * 18), inputShape: [1, 16, 20, 20],
                    outputChannels: 32, kernelShape: [3, 3], algoSearch: 'exhaustive', cacheDir: ${JSON.stringify(dir)} });
      console.log(JSON.stringify(b.dnnAlgoCacheStats()));`;
    const runChild = () => JSON.parse(execFileSync(process.execPath, ['-e', child], { encoding: 'utf8' }).trim().split('\n').pop());
    const first = runChild();
    assert.equal(first.searches, 1, 'the first process searches');
    assert.ok(existsSync(first.file), `cache file ${first.file}`);
    assert.match(readFileSync(first.file, 'utf8'), /^fwd\|f32\|x\|1,16,20,20,32,3,3,1,/m);
    const second = runChild();
    assert.equal(second.searches, 0, 'the second process does not search');
    assert.equal(second.diskHits, 1);
    assert.equal(second.file, first.file);
  });
});
