/**
 * Cancellation on the CPU EP with real kernels (oneDNN convolutions on libuv's threads, TS kernels
 * between them): an aborted run of a real CNN rejects with an AbortError soon after the abort, and the
 * same session then computes what it computed before.
 */
import { describe, expect, it } from 'vitest';
import { AbortError, InferenceSession, Tensor } from '@switchyard/core';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { readNpy } from '../real-models/npy.js';
import { fileOf, modelPath, readManifest } from '../real-models/reference-models.js';

describe('run cancellation on the CPU EP', () => {
  it('an AbortSignal stops a multi-image SqueezeNet run within a kernel or two; the next run is exact', async () => {
    const entry = readManifest().find((e) => e.name === 'squeezenet1_1')!;
    const session = await InferenceSession.create(modelPath(entry), { executionProviders: [new CpuExecutionProvider()] });
    const one = readNpy(fileOf(entry, entry.cases.b1.inputs.input));
    // Eight images: 0.15 s to a few seconds a run on the shared 2-core machine.
    const data = new Float32Array(one.size * 8);
    for (let k = 0; k < 8; k++) data.set(one.data as Float32Array, k * one.size);
    const input = new Tensor('float32', data, [8, ...one.dims.slice(1)]);
    const reference = ((await session.run({ input })).logits as Tensor).data as Float32Array;
    const full = performance.now();
    await session.run({ input });
    const fullMs = performance.now() - full;

    const latencies: number[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const controller = new AbortController();
      let abortedAt = 0;
      // Early (a run takes 0.15 s on a quiet machine, seconds on a busy one), so the abort lands mid-run.
      setTimeout(() => {
        abortedAt = performance.now();
        controller.abort();
      }, 10);
      const err = await session.run({ input }, undefined, { signal: controller.signal }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(AbortError);
      latencies.push(performance.now() - abortedAt);
    }
    console.log(`cancellation: uncancelled run ${fullMs.toFixed(0)} ms; abort → rejection ${latencies.map((l) => l.toFixed(1)).join(', ')} ms`);
    // Well under the run's own time (a shared machine gets slack beyond the 50 ms target).
    expect(Math.min(...latencies)).toBeLessThan(Math.max(100, fullMs / 4));
    expect(Math.min(...latencies)).toBeLessThan(fullMs);
    const after = ((await session.run({ input })).logits as Tensor).data as Float32Array;
    expect(Buffer.from(after.buffer, after.byteOffset, after.byteLength).equals(Buffer.from(reference.buffer, reference.byteOffset, reference.byteLength))).toBe(true);
    await session.release();
  });
});
