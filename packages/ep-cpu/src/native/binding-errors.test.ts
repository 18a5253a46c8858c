import { describe, expect, it } from 'vitest';
import { loadNative } from './load-native.js';

// The addon itself is under test here, so SWITCHYARD_CPU_NATIVE=0 (which only steers the EP) is ignored.
const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const title = native.ok ? 'oneDNN binding boundary' : `oneDNN binding boundary (skipped: ${native.reason})`;

/** Bad input at the addon's boundary: each case must throw (or reject) a coded error, never crash the process. */
describe.skipIf(!native.ok)(title, () => {
  const binding = native.ok ? native.binding : undefined!;
  const convOptions = { inputDims: [1, 2, 4, 4], weightDims: [3, 2, 3, 3], padsBegin: [1, 1], padsEnd: [1, 1] };
  const x = () => new Float32Array(32);
  const w = () => new Float32Array(54);
  const y = () => new Float32Array(48);

  it('throws on wrong dtypes and lengths given to run() (synchronously, as Node does for argument errors)', async () => {
    const conv = new binding.ConvPrimitive(convOptions);
    expect(() => conv.run(new Float32Array(31), w(), null, y())).toThrow(/x \(input \[1, 2, 4, 4\]\) must have 32 elements, got 31/);
    // @ts-expect-error: a Float64Array is the classic mistake this guards against
    expect(() => conv.run(new Float64Array(32), w(), null, y())).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', name: 'TypeError' }));
    // @ts-expect-error: a plain array is not a tensor buffer
    expect(() => conv.run([0, 1], w(), null, y())).toThrow(/must be a Float32Array, got an Array/);
    expect(() => conv.run(x(), null, null, y())).toThrow(/w \(weights \[3, 2, 3, 3\]\) must be a Float32Array, got null/);
    expect(() => conv.run(x(), w(), new Float32Array(3), y())).toThrow(/b must be null \(built without bias\)/);
    expect(() => conv.runSync(x(), w(), null, new Float32Array(47))).toThrow(/y \(output \[1, 3, 4, 4\]\) must have 48 elements/);
    const mm = new binding.MatMulPrimitive({ aDims: [2, 3], bDims: [3, 4], b: new Float32Array(12) });
    expect(() => mm.run(new Float32Array(6), new Float32Array(12), new Float32Array(8))).toThrow(/b must be null \(B was packed at construction\)/);
    // @ts-expect-error: missing arguments
    expect(() => mm.run()).toThrow(/a \(A \[2, 3\]\) must be a Float32Array, got undefined/);
    await conv.run(x(), w(), null, y()); // still usable after the failures
  });

  it('rejects inconsistent construction options with a clear message', () => {
    const bad: Array<[Record<string, unknown>, RegExp]> = [
      [{ ...convOptions, weightDims: [3, 4, 3, 3] }, /need input channels 4, input has 2/],
      [{ ...convOptions, inputDims: [1, 2, 4] }, /weights \[3, 2, 3, 3\] must have the input's rank 3/],
      [{ ...convOptions, strides: [1] }, /strides has 1 entries, expected 2/],
      [{ ...convOptions, padsBegin: [0, 0], padsEnd: [0, 0], inputDims: [1, 2, 2, 2] }, /smaller than the dilated kernel/],
      [{ ...convOptions, inputDims: [1, 2, 4.5, 4] }, /inputDims\[2\] must be an integer/],
      [{ ...convOptions, inputDims: undefined }, /options.inputDims is required/],
      [{ ...convOptions, weights: new Float32Array(5) }, /options.weights must have 54 elements, got 5/],
      [{ ...convOptions, bias: new Float32Array(3) }, /options.bias given but hasBias is false/],
      [{ ...convOptions, group: 0 }, /group must be >= 1/],
    ];
    for (const [options, message] of bad) {
      // @ts-expect-error: deliberately malformed options
      expect(() => new binding.ConvPrimitive(options), String(message)).toThrow(message);
    }
    // @ts-expect-error: not an options object
    expect(() => new binding.ConvPrimitive(42)).toThrow(/must be an options object/);
    expect(() => new binding.MatMulPrimitive({ aDims: [2, 3], bDims: [4, 5] })).toThrow(/inner dimensions differ/);
    expect(() => new binding.MatMulPrimitive({ aDims: [2, 2, 3], bDims: [3, 3, 5] })).toThrow(/do not broadcast/);
    expect(() => new binding.MatMulPrimitive({ aDims: [3], bDims: [3, 5] })).toThrow(/rank >= 2/);
  });

  it('rejects use after dispose with RELEASED', async () => {
    const mm = new binding.MatMulPrimitive({ aDims: [2, 3], bDims: [3, 4] });
    mm.dispose();
    expect(() => mm.runSync(new Float32Array(6), new Float32Array(12), new Float32Array(8))).toThrow(/disposed/);
    expect(() => mm.outputDims).toThrow(expect.objectContaining({ code: 'RELEASED' }));
  });

  it('reports its runtime', () => {
    const info = binding.runtimeInfo();
    expect(info.onednnVersion).toMatch(/^\d+\.\d+\.\d+$/);
    expect(info.threadingRuntime).toBe('omp');
    expect(info.defaultThreads).toBeGreaterThanOrEqual(1);
  });
});
