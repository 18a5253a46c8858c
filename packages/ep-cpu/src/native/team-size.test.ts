/**
 * Team sizes by work (teamFor): small primitives run on one thread, larger ones on up to the session's
 * count, and session creation builds a static shape's primitive with the count its runs use, so a run
 * never rebuilds it from weights the session has already freed.
 */
import { describe, expect, it } from 'vitest';
import * as ort from 'onnxruntime-node';
import { InferenceSession, Tensor, encodeModel } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { loadNative } from './load-native.js';
import { MIN_ELEMENTS_PER_THREAD, MIN_MACS_PER_THREAD, dispatchFor, effectiveThreads, teamFor } from './native-support.js';
import { seededFloats } from './test-data.test-util.js';
import { CpuExecutionProvider } from '../cpu-provider.js';

const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const title = native.ok ? 'teamFor' : `teamFor (skipped: ${native.reason})`;

describe.skipIf(!native.ok)(title, () => {
  const binding = native.ok ? native.binding : (undefined as never);

  it('gives one thread per MIN_MACS_PER_THREAD of work, at least one, at most the session count', () => {
    expect(teamFor(binding, 2, 0)).toBe(1);
    expect(teamFor(binding, 2, MIN_MACS_PER_THREAD - 1)).toBe(1);
    expect(teamFor(binding, 2, 2 * MIN_MACS_PER_THREAD - 1)).toBe(1);
    expect(teamFor(binding, 2, 2 * MIN_MACS_PER_THREAD)).toBe(2);
    expect(teamFor(binding, 2, 1e12)).toBe(2);
    expect(teamFor(binding, 8, 3 * MIN_MACS_PER_THREAD)).toBe(3);
    expect(teamFor(binding, 1, 1e12)).toBe(1);
    // 0 asks for the addon's default count, the bound for large work.
    expect(teamFor(binding, 0, 1e12)).toBe(effectiveThreads(binding, 0));
    expect(teamFor(binding, 4, 2 * MIN_ELEMENTS_PER_THREAD, MIN_ELEMENTS_PER_THREAD)).toBe(2);
  });

  it('sizes the team of a dispatch as teamFor does, inline or not', () => {
    expect(dispatchFor(binding, 4, 1000)).toEqual({ inline: true, threads: 1 });
    expect(dispatchFor(binding, 4, 2 ** 30)).toEqual({ inline: false, threads: 4 });
  });
});

/** Conv → Relu → MatMul → Gemm: the conv sized by `channels`, so its team is 1 (small) or 2 (large). */
function convHead(channels: number, size: number) {
  const k = channels * 9;
  return buildModel({
    inputs: [['x', 'float32', [1, channels, size, size]]],
    outputs: [['y', 'float32', [channels, 10]]],
    initializers: {
      w: new Tensor('float32', seededFloats(channels * k, 3), [channels, channels, 3, 3]),
      m: new Tensor('float32', seededFloats(size * size * 16, 4), [size * size, 16]),
      g: new Tensor('float32', seededFloats(16 * 10, 5), [16, 10]),
    },
    nodes: [
      { op: 'Conv', inputs: ['x', 'w'], outputs: ['c'], attributes: { pads: [1, 1, 1, 1] } },
      { op: 'Relu', inputs: ['c'], outputs: ['r'] },
      { op: 'Reshape', inputs: ['r', 'shape'], outputs: ['flat'] },
      { op: 'MatMul', inputs: ['flat', 'm'], outputs: ['p'] },
      { op: 'Gemm', inputs: ['p', 'g'], outputs: ['y'] },
    ],
  });
}

describe.skipIf(!native.ok)('primitives sized by work, in a session that frees packed weights', () => {
  // [channels, size]: a conv of 18K MACs (one thread) and one of 9.4M (the full team).
  it.each([
    [4, 8],
    [32, 32],
  ])('matches onnxruntime at 2 threads, run after run (%i channels, %i pixels a side)', async (channels, size) => {
    const model = convHead(channels, size);
    model.graph.initializers.set('shape', new Tensor('int64', BigInt64Array.of(BigInt(channels), BigInt(size * size)), [2]));
    const bytes = encodeModel(model);
    const x = seededFloats(channels * size * size, 7);
    const ours = await InferenceSession.create(bytes, { executionProviders: [new CpuExecutionProvider({})], intraOpNumThreads: 2 });
    const theirs = await ort.InferenceSession.create(bytes, { intraOpNumThreads: 2 });
    try {
      const expected = (await theirs.run({ x: new ort.Tensor('float32', x, [1, channels, size, size]) })).y.data as Float32Array;
      expect(ours.placement.nodes.filter((n) => n.implementation === 'onednn').length).toBeGreaterThanOrEqual(2);
      for (let run = 0; run < 3; run++) {
        const y = (await ours.run({ x: new Tensor('float32', x, [1, channels, size, size]) })).y as Tensor<'float32'>;
        expect(y.dims).toEqual([channels, 10]);
        const scale = Math.max(...Array.from(expected, Math.abs));
        for (let i = 0; i < expected.length; i++) expect(Math.abs(y.data[i] - expected[i])).toBeLessThanOrEqual(1e-4 * scale);
      }
    } finally {
      await ours.release();
      await theirs.release();
    }
  });
});
