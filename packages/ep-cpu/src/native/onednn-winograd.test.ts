/**
 * oneDNN's own Winograd (AVX-512 only in oneDNN 2.6, on 16-channel blocks: conv_primitive_desc.cc), where
 * `auto` takes it. For large images oneDNN schedules it with the whole transformed image in its scratchpad,
 * which measured 2-7x slower than the direct conv when allocated per call and 0.32-0.55x when kept, so
 * `auto` takes it only while the scratchpad is one the executing thread keeps between calls (256 MiB).
 * Skipped where the blocked layout is not 16 channels (AVX2 CPUs, or
 * ONEDNN_MAX_CPU_ISA=AVX2), where the addon's own AVX2 Winograd applies instead (winograd-native.test.ts).
 */
import { describe, expect, it } from 'vitest';
import type { NativeBinding } from './binding.js';
import { fromBlocked, toBlocked } from './channel-blocked.js';
import { loadNative } from './load-native.js';
import { blockedConvOptions, convOutputDims, expectCloseArrays, referenceConv, seededFloats, type BlockedConvCase } from './test-data.test-util.js';

const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const binding: NativeBinding | undefined = native.ok ? native.binding : undefined;
const sixteenLanes = binding?.preferredChannelBlock?.() === 16;

/** A 3x3 "same" conv of `c` → `k` channels on an h x h image, with bias and Relu. */
function square(c: number, k: number, h: number): BlockedConvCase {
  return { n: 1, c, k, h, w: h, kernel: [3, 3], strides: [1, 1], dilations: [1, 1], padsBegin: [1, 1], padsEnd: [1, 1], bias: true, activation: 'relu', threads: 2 };
}

function implementation(b: NativeBinding, t: BlockedConvCase, winograd: 'auto' | 'always' | 'never'): string {
  const w = seededFloats(t.k * t.c * 9, 1, 1 / Math.sqrt(t.c * 9));
  const p = new b.ConvPrimitive(blockedConvOptions(t, w, seededFloats(t.k, 2), { srcBlock: 16, dstBlock: 16, winograd }));
  const name = p.implementation;
  p.dispose();
  return name;
}

describe.skipIf(!sixteenLanes)('oneDNN Winograd on 16-channel blocks (AVX-512)', () => {
  const b = binding!;

  it('auto takes it on a mid-network layer, whose transformed tiles stay in a small scratchpad', () => {
    expect(implementation(b, square(64, 64, 28), 'auto')).toMatch(/wino/);
    expect(implementation(b, square(64, 64, 28), 'never')).not.toMatch(/wino/);
  });

  it('auto takes it while the whole transformed image fits the kept scratchpad, and leaves it past that; always still takes it', () => {
    // 128 channels at 256 x 256 (a UNet encoder level): ~150 MiB of scratchpad, kept by the thread.
    expect(implementation(b, square(128, 128, 256), 'auto')).toMatch(/wino/);
    // At 512 x 512 the transformed input alone is ~300 MiB: more than a thread keeps.
    expect(implementation(b, square(128, 128, 512), 'auto')).not.toMatch(/wino/);
    expect(implementation(b, square(128, 128, 512), 'always')).toMatch(/wino/);
  });

  it('computes the conv where auto takes it (against the reference, within Winograd rounding)', () => {
    const t = square(64, 64, 28);
    const x = seededFloats(t.c * t.h * t.w, 3);
    const w = seededFloats(t.k * t.c * 9, 4, 1 / Math.sqrt(t.c * 9));
    const bias = seededFloats(t.k, 5);
    const dims = convOutputDims(t);
    const p = new b.ConvPrimitive(blockedConvOptions(t, w, bias, { srcBlock: 16, dstBlock: 16, winograd: 'auto' }));
    expect(p.implementation).toMatch(/wino/);
    const y = new Float32Array(dims.reduce((a, d) => a * d, 1)).fill(Number.NaN);
    p.runSync(toBlocked(x, [1, t.c, t.h, t.w], 16), null, null, y);
    p.dispose();
    expectCloseArrays(fromBlocked(y, dims, 16), referenceConv(t, x, w, bias), 1e-4);
  });
});
