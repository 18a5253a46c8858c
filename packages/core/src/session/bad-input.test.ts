/**
 * Bad input at the public entry point: InferenceSession.create and run. Each case must give a
 * SwitchyardError with a clear message — never a crash, a hang or a raw RangeError.
 */
import { mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InferenceSession } from './inference-session.js';
import { SwitchyardError } from '../errors.js';
import { Tensor } from '../tensor/tensor.js';
import { encodeModel } from '../onnx/index.js';
import { buildModel } from '../testing/build-model.js';
import { modelWithInitializers, tensorProto } from '../onnx/fixtures/proto-builders.js';
import { hostTestProvider } from '../testing/host-test-ep.js';

const eps = { executionProviders: [hostTestProvider()], disableCpuFallback: true };

async function failure(p: Promise<unknown>): Promise<SwitchyardError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SwitchyardError);
  return err as SwitchyardError;
}

function reluModel(initializers: Record<string, Tensor> = {}) {
  return buildModel({
    inputs: [['x', 'float32', [4]]],
    outputs: [['y', 'float32', [4]]],
    nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['y'] }],
    initializers,
  });
}

describe('InferenceSession.create with bad models', () => {
  it('refuses a missing file, non-ONNX bytes and truncated bytes', async () => {
    expect((await failure(InferenceSession.create('/nonexistent/model.onnx', eps))).message).toMatch(/nonexistent\/model\.onnx/);
    expect((await failure(InferenceSession.create(new TextEncoder().encode('not a model at all'), eps))).code).toBe('INVALID_MODEL');
    const good = encodeModel(reluModel());
    for (const cut of [1, 7, good.length >> 1, good.length - 1]) {
      expect((await failure(InferenceSession.create(good.subarray(0, cut), eps))).code).toMatch(/INVALID_MODEL|UNSUPPORTED/);
    }
    await expect(InferenceSession.create(42 as never, eps)).rejects.toThrow(/file path, a Uint8Array or an ArrayBuffer/);
  });

  it('refuses external data that escapes the model folder or is missing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sy-ext-'));
    const outside = mkdtempSync(join(tmpdir(), 'sy-out-'));
    writeFileSync(join(outside, 'w.bin'), new Uint8Array(16));
    symlinkSync(join(outside, 'w.bin'), join(dir, 'link.bin'));
    const cases: Array<[string, RegExp]> = [
      ['../escape.bin', /escape|outside|\.\./i],
      ['/etc/passwd', /absolute/i],
      ['missing.bin', /missing\.bin/],
      ['link.bin', /outside|escape|symlink/i],
    ];
    for (const [location, pattern] of cases) {
      const path = join(dir, `m-${cases.findIndex((c) => c[0] === location)}.onnx`);
      writeFileSync(path, modelWithInitializers([tensorProto({ name: 'w', dataType: 1, dims: [4], external: { location, offset: '0', length: '16' } })]));
      const err = await failure(InferenceSession.create(path, eps));
      expect(err.message, location).toMatch(pattern);
    }
  });

  it('refuses absurd dimensions without allocating them', async () => {
    const huge = modelWithInitializers([tensorProto({ name: 'w', dataType: 1, dims: [1e6, 1e6, 1e6], raw: new Uint8Array(4) })]);
    expect(huge.length).toBeLessThan(100);
    const t0 = performance.now();
    const err = await failure(InferenceSession.create(huge, eps));
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(err.message).toMatch(/elements|size|dims|shape/i);
  });

  it('refuses absurd feed shapes at Tensor construction', () => {
    expect(() => new Tensor('float32', new Float32Array(1), [1e6, 1e6, 1e6])).toThrow(SwitchyardError);
    expect(() => new Tensor('float32', new Float32Array(4), [2, -2])).toThrow(/non-negative integer/);
    expect(() => new Tensor('float32', new Float32Array(4), [3])).toThrow(/4 elements but dims \[3\]/);
    expect(() => new Tensor('nope' as never, [1])).toThrow(/unknown data type/);
  });
});

describe('run with bad feeds', () => {
  it('names the input and what was expected', async () => {
    const s = await InferenceSession.fromModel(reluModel(), eps);
    const err = await failure(s.run({ x: new Tensor('int64', new BigInt64Array(4), [4]) }));
    expect(err.message).toBe("run(feeds): input 'x' expects float32, got int64");
    await expect(s.run(null as never)).rejects.toThrow(/feeds must be an object/);
    await expect(s.run({ x: new Tensor('float32', new Float32Array(8), [2, 4]) })).rejects.toThrow(/expects shape \[4\], got \[2, 4\]/);
  });
});

