import { describe, expect, it } from 'vitest';
import { loadNative } from './load-native.js';
import { seededFloats } from './test-data.test-util.js';

// The addon itself is under test here, so SWITCHYARD_CPU_NATIVE=0 (which only steers the EP) is ignored.
const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const title = native.ok ? 'oneDNN async runs' : `oneDNN async runs (skipped: ${native.reason})`;

const random = (n: number, seed: number) => seededFloats(n, seed);

function maxDiff(a: Float32Array, b: Float32Array): number {
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
}

describe.skipIf(!native.ok)(title, () => {
  const binding = native.ok ? native.binding : undefined!;

  it('keeps the event loop ticking while a large conv runs', async () => {
    // 1x64x112x112, 3x3, 64→64 on one thread: tens of ms per run, repeated to make the window wide.
    const conv = new binding.ConvPrimitive({
      inputDims: [1, 64, 112, 112], weightDims: [64, 64, 3, 3], padsBegin: [1, 1], padsEnd: [1, 1], threads: 1, weights: random(64 * 64 * 9, 1),
    });
    const x = random(64 * 112 * 112, 2);
    const yAsync = new Float32Array(64 * 112 * 112);
    const ySync = new Float32Array(64 * 112 * 112);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    try {
      // The control: a synchronous run cannot let a single tick through.
      for (let i = 0; i < 3; i++) conv.runSync(x, null, null, ySync);
      expect(ticks).toBe(0);
      const started = performance.now();
      for (let i = 0; i < 3; i++) await conv.run(x, null, null, yAsync);
      const elapsed = performance.now() - started;
      // A 1 ms interval fires roughly once per ms of a free loop; demand a fraction of that.
      expect(elapsed).toBeGreaterThan(20); // the window is wide enough to mean something
      expect(ticks).toBeGreaterThanOrEqual(5);
    } finally {
      clearInterval(timer);
      conv.dispose();
    }
    expect(maxDiff(yAsync, ySync)).toBeLessThan(1e-5);
  });

  it('runs one primitive concurrently on different buffers without mixing them up', async () => {
    const conv = new binding.ConvPrimitive({
      inputDims: [1, 16, 20, 20], weightDims: [8, 4, 3, 3], group: 4, hasBias: true, padsBegin: [1, 1], padsEnd: [1, 1],
      weights: random(288, 3), bias: random(8, 4),
    });
    const inputs = Array.from({ length: 8 }, (_, i) => random(16 * 400, 10 + i));
    const outputs = inputs.map(() => new Float32Array(8 * 400));
    await Promise.all(inputs.map((x, i) => conv.run(x, null, null, outputs[i])));
    for (let i = 0; i < inputs.length; i++) {
      const expected = new Float32Array(8 * 400);
      conv.runSync(inputs[i], null, null, expected);
      expect(maxDiff(outputs[i], expected)).toBeLessThan(1e-5);
    }
    expect(maxDiff(outputs[0], outputs[1])).toBeGreaterThan(0);
  });

  it('finishes in-flight runs when disposed mid-run', async () => {
    const mm = new binding.MatMulPrimitive({ aDims: [256, 256], bDims: [256, 256], b: random(65536, 5) });
    const a = random(65536, 6);
    const y = new Float32Array(65536);
    const pending = mm.run(a, null, y);
    mm.dispose();
    await pending;
    expect(y.some((v) => v !== 0)).toBe(true);
  });
});
