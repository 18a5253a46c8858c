import { afterAll, describe, expect, it } from 'vitest';
import { blockedDims, fromBlocked, toBlocked } from './channel-blocked.js';
import { referenceConv } from './conv-reference.test-util.js';
import { loadNative } from './load-native.js';
import { loopBuilds } from './native-harness.test-util.js';
import { seededFloats } from './test-data.test-util.js';

// Sigmoid and Swish after a conv as the addon's own vector pass (native/src/activation_pass.h) instead of
// oneDNN's post-op: the same output as ONNX Conv followed by the activation, on every vector build this CPU
// runs, in plain and blocked layouts (a blocked output's padded channels must stay zero: σ(0) is 0.5), with
// a summed Z (which comes before the activation), in the fused 1x1 + depthwise kernel too, and at the
// extremes of the logistic's range.
const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const title = native.ok ? 'Sigmoid / Swish as an activation pass' : `Sigmoid / Swish as an activation pass (skipped: ${native.reason})`;

const count = (dims: readonly number[]) => dims.reduce((a, b) => a * b, 1);
const sigmoid = (v: number) => 1 / (1 + Math.exp(-v));
const activate = (kind: 'sigmoid' | 'swish', alpha: number) => (kind === 'sigmoid' ? sigmoid : (v: number) => v * sigmoid(alpha * v));

/** The values of a blocked [N, C/block, spatial, block] buffer in the last block's lanes past channel `channels` (all must be 0). */
function paddedLanes(y: Float32Array, dims: readonly number[], block: number): number[] {
  const blocks = Math.ceil(dims[1] / block);
  const pixels = count(dims.slice(2));
  return Array.from(y).filter((_, i) => Math.floor(i / (block * pixels)) % blocks === blocks - 1 && i % block >= dims[1] % block);
}

/** max |a − e| / (1e-30 + |e|) where |e| > 1e-30, else |a − e|: relative error, the logistic's claim is a few ulp. */
function worstRelative(actual: Float32Array, expected: ArrayLike<number>): number {
  let worst = 0;
  for (let i = 0; i < actual.length; i++) {
    const e = expected[i];
    const d = Math.abs(actual[i] - e);
    worst = Math.max(worst, Math.abs(e) > 1e-30 ? d / Math.abs(e) : d);
  }
  return worst;
}

describe.skipIf(!native.ok)(title, () => {
  const binding = native.ok ? native.binding : undefined!;
  const builds = native.ok ? loopBuilds(binding) : [];
  afterAll(() => void binding.vectorIsa!('auto'));

  it('runs where the vector loops have an AVX2 or AVX-512 build, and never on the generic one unless asked', () => {
    for (const isa of builds) {
      binding.vectorIsa!(isa);
      const options = { inputDims: [1, 8, 4, 4], weightDims: [8, 8, 1, 1], weights: seededFloats(64, 1), activation: 'swish' as const, activationAlpha: 1 };
      const auto = new binding.ConvPrimitive(options);
      const never = new binding.ConvPrimitive({ ...options, activationPass: 'never' });
      const always = new binding.ConvPrimitive({ ...options, activationPass: 'always' });
      expect(auto.implementation.endsWith(' + swish pass')).toBe(isa !== 'generic');
      expect(never.implementation).not.toContain('pass');
      expect(always.implementation.endsWith(' + swish pass')).toBe(true);
      for (const p of [auto, never, always]) p.dispose();
    }
    binding.vectorIsa!('auto');
    const relu = new binding.ConvPrimitive({ inputDims: [1, 8, 4, 4], weightDims: [8, 8, 1, 1], weights: seededFloats(64, 1), activation: 'relu', activationPass: 'always' });
    expect(relu.implementation).not.toContain('pass'); // cheap activations stay post-ops
    relu.dispose();
    expect(() => new binding.ConvPrimitive({ inputDims: [1, 8, 4, 4], weightDims: [8, 8, 1, 1], activationPass: 'sometimes' as never })).toThrow(
      /activationPass must be 'auto', 'always' or 'never'/,
    );
  });

  // 20 output channels: the last block of 8 or 16 is partly padding.
  const shapes = [
    { name: '1x1, 12 -> 20 channels, 9x7', x: [2, 12, 9, 7], w: [20, 12, 1, 1], pads: [0, 0], strides: [1, 1], group: 1 },
    { name: '3x3 stride 2, 8 -> 20 channels, 11x10', x: [1, 8, 11, 10], w: [20, 8, 3, 3], pads: [1, 1], strides: [2, 2], group: 1 },
    { name: 'depthwise 5x5, 20 channels, 14x14', x: [1, 20, 14, 14], w: [20, 1, 5, 5], pads: [2, 2], strides: [1, 1], group: 20 },
  ];
  for (const kind of ['sigmoid', 'swish'] as const) {
    for (const block of [0, 8, 16] as const) {
      for (const shape of shapes) {
        it(`${kind} equals ONNX Conv + ${kind} with a summed Z on every vector build (${block ? `blocked by ${block}` : 'plain'}): ${shape.name}`, () => {
          const alpha = kind === 'swish' ? 1.7 : 0;
          const x = seededFloats(count(shape.x), 11, 3);
          const w = seededFloats(count(shape.w), 12);
          const b = seededFloats(shape.w[0], 13);
          const ref = referenceConv({ x, xDims: shape.x, w, wDims: shape.w, b, group: shape.group, strides: shape.strides, dilations: [1, 1], padsBegin: shape.pads, padsEnd: shape.pads });
          const z = seededFloats(ref.data.length, 14, 2);
          const f = activate(kind, alpha);
          const expected = Array.from(ref.data, (v, i) => f(Math.fround(v + z[i])));
          const yDims = block ? blockedDims(ref.dims, block) : ref.dims;
          for (const isa of builds) {
            binding.vectorIsa!(isa);
            for (const activationPass of ['always', 'never'] as const) {
              const primitive = new binding.ConvPrimitive({
                inputDims: shape.x, weightDims: shape.w, group: shape.group, strides: shape.strides, padsBegin: shape.pads, padsEnd: shape.pads,
                hasBias: true, weights: w, bias: b, hasSum: true, activation: kind, activationAlpha: alpha, activationPass, threads: 2,
                srcBlock: block, dstBlock: block,
              });
              expect(primitive.implementation.endsWith(` + ${kind} pass`)).toBe(activationPass === 'always');
              const y = new Float32Array(count(yDims)).fill(Number.NaN);
              primitive.runSync(block ? toBlocked(x, shape.x, block) : x, null, null, y, block ? toBlocked(z, ref.dims, block) : z);
              const actual = block ? fromBlocked(y, ref.dims, block) : y;
              // The conv's own rounding (sums of up to 200 products) dominates: 1e-5 relative to 1 + |y|.
              let worst = 0;
              for (let i = 0; i < actual.length; i++) worst = Math.max(worst, Math.abs(actual[i] - expected[i]) / (1 + Math.abs(expected[i])));
              expect(worst, `${isa}, pass ${activationPass}`).toBeLessThan(1e-5);
              if (block) {
                // Every lane past the last real channel is zero again (the blocked layout's contract).
                expect(paddedLanes(y, ref.dims, block).every((v) => v === 0), `${isa}, pass ${activationPass}: padded lanes`).toBe(true);
              }
              primitive.dispose();
            }
          }
        });
      }
    }
  }

  it('the logistic keeps a few ulp from -200 to 200 on every vector build (an identity 1x1 conv feeds it exact values)', () => {
    // 16 channels x 25 pixels: every value from the far tails through the clamps (±87.3, ±88, ±104) to 0.
    const values = Float32Array.from({ length: 400 }, (_, i) => {
      const t = (i - 200) / 200;
      return Math.fround(Math.sign(t) * Math.abs(t) ** 3 * 200);
    });
    const eye = new Float32Array(16 * 16);
    for (let c = 0; c < 16; c++) eye[c * 16 + c] = 1;
    for (const kind of ['sigmoid', 'swish'] as const) {
      const f = activate(kind, 1);
      const expected = Array.from(values, f);
      for (const isa of builds) {
        binding.vectorIsa!(isa);
        const primitive = new binding.ConvPrimitive({ inputDims: [1, 16, 5, 5], weightDims: [16, 16, 1, 1], weights: eye, activation: kind, activationAlpha: 1, activationPass: 'always', threads: 1 });
        const y = new Float32Array(400);
        primitive.runSync(values, null, null, y);
        primitive.dispose();
        // Far below −87 σ may keep the clamp's value, below 1.3e-38 (Swish: |x| times that): checked apart.
        const tail = expected.map((e, i) => (Math.abs(e) < 1.2e-38 ? y[i] : e));
        expect(worstRelative(y, tail), `${kind} on ${isa}`).toBeLessThan(1e-6);
        for (let i = 0; i < 400; i++) {
          if (Math.abs(expected[i]) < 1.2e-38) expect(Math.abs(y[i]), `${kind}(${values[i]}) on ${isa}`).toBeLessThan(1.3e-38 * Math.max(1, Math.abs(values[i])));
        }
      }
    }
  });

  it('the fused 1x1 + depthwise kernel runs its depthwise Sigmoid as the pass, and equals the two convs', () => {
    const [n, c, m, h] = [1, 12, 20, 10];
    const x = seededFloats(n * c * h * h, 21, 2);
    const w = seededFloats(m * c, 22);
    const b = seededFloats(m, 23);
    const dw = seededFloats(m * 9, 24);
    const dwb = seededFloats(m, 25);
    for (const isa of builds.filter((i) => i !== 'generic')) {
      binding.vectorIsa!(isa);
      for (const block of [8, 16] as const) {
        let fused;
        try {
          fused = new binding.ConvDwPrimitive!({ inputDims: [n, c, h, h], channels: m, stride: 2, weights: w, bias: b, dwWeights: dw, dwBias: dwb, activation: 'swish', activationAlpha: 1, dwActivation: 'sigmoid', threads: 2, srcBlock: block, dstBlock: block });
        } catch {
          continue; // no fused kernel for this block on this CPU: the CPU EP then runs the two convs
        }
        expect(fused.implementation.endsWith(' + sigmoid pass')).toBe(true);
        const mid = referenceConv({ x, xDims: [n, c, h, h], w, wDims: [m, c, 1, 1], b, group: 1, strides: [1, 1], dilations: [1, 1], padsBegin: [0, 0], padsEnd: [0, 0] });
        const act = mid.data.map((v) => v * sigmoid(v));
        const out = referenceConv({ x: act, xDims: mid.dims, w: dw, wDims: [m, 1, 3, 3], b: dwb, group: m, strides: [2, 2], dilations: [1, 1], padsBegin: [1, 1], padsEnd: [1, 1] });
        const expected = Array.from(out.data, sigmoid);
        const y = new Float32Array(count(blockedDims(out.dims, block))).fill(Number.NaN);
        fused.runSync(toBlocked(x, [n, c, h, h], block), y);
        fused.dispose();
        expect(worstRelative(fromBlocked(y, out.dims, block), expected), `${isa}, block ${block}`).toBeLessThan(1e-5);
        expect(paddedLanes(y, out.dims, block).every((v) => v === 0)).toBe(true);
      }
    }
  });
});
