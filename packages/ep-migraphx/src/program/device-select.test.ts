// deviceId on the 'gpu' target, against the stand-in libmigraphx_c.so, which also stands in for HIP
// (native/test/fake_migraphx.c): it sees 2 GPUs, keeps a current device per thread (0 on a new
// thread), adds 100 x the device a program was compiled or loaded on to its outputs, and fails a run
// made from a thread whose current device is another. So an ignored deviceId shows as outputs
// without the +100, and a device selected only once (not on every worker thread) as failed runs.
import { beforeAll, describe, expect, it } from 'vitest';
import { InferenceSession, SwitchyardError, Tensor, registerExecutionProvider } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { executionProviderFactory as cpuFactory } from '@switchyard/ep-cpu';
import type { MigraphxNativeBinding } from '../native/binding.js';
import { loadMigraphxAddon } from '../native/load-native.js';
import { probeMigraphx } from '../migraphx-library.js';
import { MigraphxExecutionProvider } from '../migraphx-provider.js';
import { buildAddon, buildFakeMigraphx } from '../testing/fake-library.js';
import { compileRequest } from '../testing/compile-request.js';
import { NativeProgramCompiler, NativeProgramSerializer } from './native-compiler.js';

registerExecutionProvider(cpuFactory);

let binding: MigraphxNativeBinding;
let env: Record<string, string>;

beforeAll(() => {
  buildAddon();
  const loaded = loadMigraphxAddon();
  if (!loaded.ok) throw new Error(loaded.reason);
  binding = loaded.binding;
  env = { SWITCHYARD_MIGRAPHX_LIB: buildFakeMigraphx().path };
  const probe = probeMigraphx({ binding, env });
  if (!probe.ok) throw new Error(probe.reason);
  expect(binding.targetError('gpu')).toBeNull();
});

const identity = { version: '3.0.70200', target: 'gpu', deviceArch: 'gfx942' };
const request = () => compileRequest({ inputShapes: new Map([['x', [2, 3]]]), target: 'gpu' });
const input = (i: number) => new Tensor('float32', Float32Array.from({ length: 6 }, (_, k) => i * 10 + k), [2, 3]);
const expected = (i: number, device: number) => Array.from(input(i).data as Float32Array, (v) => v * 2 + 100 * device);

describe('deviceId selects the GPU on every worker thread', () => {
  it('reports the GPUs the HIP runtime MIGraphX loaded sees', () => {
    expect(binding.hipDevices()).toEqual({ count: 2, error: null });
  });

  it('compiles on the chosen device and runs there from any pool thread, beside a program on another device', async () => {
    const on1 = await new NativeProgramCompiler(binding, identity, 1).compile(request());
    const on0 = await new NativeProgramCompiler(binding, identity, 0).compile(request());
    // Interleaved runs on libuv's pool: each must select its program's device on whichever thread it lands.
    const runs = Array.from({ length: 24 }, (_, i) => (i % 2 ? on1 : on0).run(new Map([['x', input(i)]])));
    const results = await Promise.all(runs);
    results.forEach(([out], i) => expect(Array.from(out.data as Float32Array), `run ${i}`).toEqual(expected(i, i % 2)));
    on1.dispose();
    on0.dispose();
  });

  it('loads a saved program onto the serializer device', async () => {
    const saved = await new NativeProgramSerializer(binding, 0).save(await new NativeProgramCompiler(binding, identity, 0).compile(request()));
    for (const device of [1, 0]) {
      const loaded = await new NativeProgramSerializer(binding, device).load(saved);
      const [out] = await loaded.run(new Map([['x', input(3)]]));
      expect(Array.from(out.data as Float32Array)).toEqual(expected(3, device));
      loaded.dispose();
    }
  });

  it('refuses a device ordinal out of range at the binding', () => {
    const compile = (deviceId: unknown) => Reflect.apply(binding.compileOnnx, binding, [new Uint8Array(1), { inputShapes: [], target: 'gpu', deviceId }]);
    expect(() => compile(-1)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('deviceId must be a GPU ordinal from 0 to 1024, got -1') }));
    expect(() => compile('1')).toThrow(TypeError);
  });
});

describe('the EP with deviceId', () => {
  const model = () =>
    buildModel({
      inputs: [['x', 'float32', [2, 3]]],
      outputs: [['y', 'float32', [2, 3]]],
      nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['r'] }, { op: 'Neg', inputs: ['r'], outputs: ['y'] }],
    });

  it('runs its partitions on that GPU', async () => {
    for (const deviceId of [1, 0]) {
      const ep = new MigraphxExecutionProvider({ target: 'gpu', deviceId, cacheDir: false }, { binding, env });
      const session = await InferenceSession.fromModel(model(), { executionProviders: [ep, 'cpu'] });
      const outs = await Promise.all([1, 2, 3, 4].map((i) => session.run({ x: input(i) })));
      outs.forEach((out, k) => expect(Array.from((out.y as Tensor).data as Float32Array)).toEqual(expected(k + 1, deviceId)));
      await session.release();
    }
  });

  it('refuses an ordinal HIP does not see when the session is created', async () => {
    const ep = new MigraphxExecutionProvider({ target: 'gpu', deviceId: 2, cacheDir: false }, { binding, env });
    const error = await InferenceSession.fromModel(model(), { executionProviders: [ep, 'cpu'] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SwitchyardError);
    expect(error).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('deviceId 2 does not exist: HIP sees devices 0 to 1') });
  });
});
