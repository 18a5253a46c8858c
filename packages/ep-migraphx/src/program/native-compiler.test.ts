// The C API path end to end against a stand-in libmigraphx_c.so (native/test/fake_migraphx.c):
// output i = input i × a factor recording how the program was built (2 plain, 3 fp16, 5 bf16,
// 10 + calibration sets for int8), so each assertion below checks that the addon made the right
// calls with the right data. What the real MIGraphX computes is the integration test's job.
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { InferenceSession, SwitchyardError, Tensor, registerExecutionProvider } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { executionProviderFactory as cpuFactory } from '@switchyard/ep-cpu';
import type { MigraphxNativeBinding } from '../native/binding.js';
import { defaultAddonPath, loadMigraphxAddon } from '../native/load-native.js';
import { probeMigraphx } from '../migraphx-library.js';
import { MigraphxExecutionProvider } from '../migraphx-provider.js';
import { buildAddon, buildFakeMigraphx } from '../testing/fake-library.js';
import type { CacheEvent } from '../cache/program-cache.js';
import { compileRequest } from '../testing/compile-request.js';
import { NativeProgramCompiler, NativeProgramSerializer, NativeCompiledProgram } from './native-compiler.js';

registerExecutionProvider(cpuFactory);

let binding: MigraphxNativeBinding;
let fake: ReturnType<typeof buildFakeMigraphx>;
const identity = { version: '3.0.70200', target: 'ref', deviceArch: 'host-x64' };

beforeAll(() => {
  buildAddon();
  const loaded = loadMigraphxAddon();
  if (!loaded.ok) throw new Error(loaded.reason);
  binding = loaded.binding;
  fake = buildFakeMigraphx();
  const probe = probeMigraphx({ binding, env: { SWITCHYARD_MIGRAPHX_LIB: fake.path } });
  if (!probe.ok) throw new Error(probe.reason);
});

const request = compileRequest;
const x = new Tensor('float32', Float32Array.of(1, 2, 3, 4, 5, 6), [2, 3]);
const y = new Tensor('int64', BigInt64Array.of(1n, -2n, 3n, 2n ** 40n), [4]);
const feeds = () => new Map<string, Tensor>([['x', x], ['i64_y', y]]);

describe('NativeProgramCompiler on a stand-in libmigraphx_c.so', () => {
  it('parses with the input shapes, compiles, runs, and maps datatypes both ways by name', async () => {
    const program = await new NativeProgramCompiler(binding, identity).compile(request());
    const native = (program as NativeCompiledProgram).native;
    expect(native.parameterShapes()).toEqual([
      { name: 'x', type: 'float32', dims: [2, 3] },
      { name: 'i64_y', type: 'int64', dims: [4] },
    ]);
    expect(native.outputShapes()).toEqual([{ type: 'float32', dims: [2, 3] }, { type: 'int64', dims: [4] }]);
    const [ox, oy] = await program.run(feeds());
    expect(ox.type).toBe('float32');
    expect(ox.dims).toEqual([2, 3]);
    expect(Array.from(ox.data as Float32Array)).toEqual([2, 4, 6, 8, 10, 12]);
    expect(oy.type).toBe('int64');
    expect(Array.from(oy.data as BigInt64Array)).toEqual([2n, -4n, 6n, 2n ** 41n]);
    program.dispose();
    await expect(program.run(feeds())).rejects.toThrow('this MIGraphX program was disposed');
  });

  it("turns the addon's coded errors into SwitchyardErrors with the same code (native toolkit)", async () => {
    const program = (await new NativeProgramCompiler(binding, identity).compile(request())) as NativeCompiledProgram;
    // A failure inside the worker (the promise worker's coded rejection): RUNTIME, naming the C call.
    const failed = await program.run(new Map([['x', x]])).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(SwitchyardError);
    expect(failed).toMatchObject({ code: 'RUNTIME', message: 'MIGraphX program run: migraphx_program_run failed: bad_param (1)' });
    expect((failed as SwitchyardError).cause).toMatchObject({ code: 'RUNTIME' });
    // A bad argument read on the JS thread (the toolkit's argument readers): INVALID_ARGUMENT, a TypeError underneath.
    const bad = await program.run(new Map([['x\0', x]])).catch((e: unknown) => e);
    expect(bad).toMatchObject({ message: "MIGraphX program run: run(inputs): input: name must not contain NUL characters" });
    expect(bad).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect((bad as SwitchyardError).cause).toBeInstanceOf(TypeError);
    // A run after dispose: RELEASED, both from the binding directly and through the program.
    const native = program.native;
    program.dispose();
    expect(() => native.outputShapes()).toThrow(expect.objectContaining({ code: 'RELEASED' }));
    await expect(program.run(feeds())).rejects.toMatchObject({ code: 'RELEASED', name: 'SwitchyardError' });
  });

  it.each([
    ['fp16', [], 3],
    ['bf16', [], 5],
    ['int8', [{ x, i64_y: y }, { x, i64_y: y }], 12],
  ] as const)('quantizes with %s before compiling', async (quantization, calibration, factor) => {
    const program = await new NativeProgramCompiler(binding, identity).compile(request({ quantization, calibration }));
    const [ox] = await program.run(feeds());
    expect(Array.from(ox.data as Float32Array)).toEqual([1, 2, 3, 4, 5, 6].map((v) => v * factor));
  });

  it('names the failing call and status', async () => {
    const compiler = new NativeProgramCompiler(binding, identity);
    await expect(compiler.compile(request({ onnx: new TextEncoder().encode('FAIL') }))).rejects.toThrow(
      "MIGraphX could not compile partition 'p0': migraphx_parse_onnx_buffer failed: bad_param (1)",
    );
    await expect(compiler.compile(request({ target: 'tpu' }))).rejects.toThrow('migraphx_target_create failed: unknown_target (3)');
    const program = await compiler.compile(request());
    await expect(program.run(new Map([['x', x]]))).rejects.toThrow('migraphx_program_run failed: bad_param (1)');
    await expect(program.run(new Map<string, Tensor>([['x', new Tensor('float32', new Float32Array(6), [3, 2])], ['i64_y', y]]))).rejects.toThrow('migraphx_program_run failed');
  });

  it('rejects bad arguments at the binding with TypeErrors, not crashes', async () => {
    const program = (await new NativeProgramCompiler(binding, identity).compile(request())) as NativeCompiledProgram;
    const native = program.native;
    expect(() => native.run([{ name: 'x', type: 'string', dims: [1], data: new Uint8Array(1) }])).toThrow("MIGraphX has no type for 'string'");
    // Every argument error carries the code SwitchyardError uses, whichever reader raised it.
    const invalid = expect.objectContaining({ code: 'INVALID_ARGUMENT', name: 'TypeError' });
    expect(() => native.run([{ name: 'x', type: 'string', dims: [1], data: new Uint8Array(1) }])).toThrow(invalid);
    expect(() => native.run([{ name: '', type: 'float32', dims: [1], data: new Float32Array(1) }])).toThrow(invalid);
    expect(() => native.run([{ name: 'x', type: 'float32', dims: [1.5], data: new Float32Array(1) }])).toThrow("input 'x': dims[0] must be an integer, got 1.5");
    expect(() => Reflect.apply(binding.compileOnnx, binding, [new Uint8Array(1), { inputShapes: [], target: 'ref', fastMath: 'yes' }])).toThrow('compileOnnx: options.fastMath must be a boolean, got a string');
    expect(() => Reflect.apply(binding.loadProgram, binding, ['', 'msgpack'])).toThrow(invalid);
    expect(() => native.run([{ name: 'x', type: 'float32', dims: [2, 3], data: new Float32Array(5) }])).toThrow('data has 20 bytes, dims need 24');
    expect(() => native.run([{ name: 'x', type: 'float32', dims: [-1], data: new Float32Array(1) }])).toThrow("input 'x': dims[0] must be >= 0");
    expect(() => Reflect.apply(binding.compileOnnx, binding, ['x', {}])).toThrow('compileOnnx(onnx: Uint8Array, options: object)');
    expect(() => Reflect.apply(binding.compileOnnx, binding, [new Uint8Array(1), { inputShapes: [['x']] }])).toThrow('inputShapes must be an array of [name, dims]');
    expect(() => new (binding as unknown as { Program: new () => unknown }).Program()).toThrow('Program is made by compileOnnx() or loadProgram()');
  });

  it('serializes concurrent runs of one program and returns each caller its own result', async () => {
    const program = await new NativeProgramCompiler(binding, identity).compile(request());
    const inputs = Array.from({ length: 32 }, (_, i) => new Tensor('float32', Float32Array.from({ length: 6 }, (_, k) => i * 10 + k), [2, 3]));
    const results = await Promise.all(inputs.map((t) => program.run(new Map<string, Tensor>([['x', t], ['i64_y', y]]))));
    results.forEach(([ox], i) => expect(Array.from(ox.data as Float32Array)).toEqual(Array.from(inputs[i].data as Float32Array, (v) => v * 2)));
  });

  it('saves and loads programs (migraphx_save / migraphx_load) through bytes', async () => {
    const compiler = new NativeProgramCompiler(binding, identity);
    const serializer = new NativeProgramSerializer(binding);
    const bytes = await serializer.save(await compiler.compile(request({ quantization: 'fp16' })));
    expect(bytes.length).toBeGreaterThan(0);
    const loaded = await serializer.load(bytes);
    expect(Array.from((await loaded.run(feeds()))[0].data as Float32Array)).toEqual([3, 6, 9, 12, 15, 18]);
    await expect(serializer.load(new TextEncoder().encode('garbage'))).rejects.toThrow('migraphx_load failed');
  });
});

describe('the EP with a stand-in libmigraphx_c.so', () => {
  it('accepts partitions, compiles them through the C API, and caches the programs', async () => {
    const model = () =>
      buildModel({
        inputs: [['x', 'float32', [2, 3]]],
        outputs: [['y', 'float32', [2, 3]]],
        nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['r'] }, { op: 'Neg', inputs: ['r'], outputs: ['y'] }, ],
      });
    const cacheDir = mkdtempSync(join(tmpdir(), 'sy-mgx-epcache-'));
    const events: CacheEvent[] = [];
    const open = async () => {
      const ep = new MigraphxExecutionProvider({ target: 'ref', cacheDir }, { binding, env: { SWITCHYARD_MIGRAPHX_LIB: fake.path }, onCacheEvent: (e) => events.push(e) });
      const session = await InferenceSession.fromModel(model(), { executionProviders: [ep, 'cpu'] });
      return { ep, session };
    };
    const first = await open();
    expect(first.session.placement.nodes.map((n) => [n.opType, n.ep])).toEqual([['Relu', 'migraphx'], ['Neg', 'migraphx']]);
    const out = await first.session.run({ x });
    // The stand-in doubles its input: proof the run went through the library, not a fallback.
    expect(Array.from((out.y as Tensor).data as Float32Array)).toEqual([2, 4, 6, 8, 10, 12]);
    expect(first.ep.partitions[0].compiles).toBe(1);
    const second = await open();
    await second.session.run({ x });
    expect([second.ep.partitions[0].compiles, second.ep.partitions[0].cacheLoads]).toEqual([0, 1]);
    expect(events.map((e) => e.kind)).toEqual(['miss', 'stored', 'hit']);
    await first.session.release();
    await second.session.release();
  });

  it('declines a library that numbers datatypes like ROCm 6.4 (checked in a separate process)', () => {
    const old = buildFakeMigraphx({ version: '3.0', oldLayout: true });
    const script = `
      const binding = require(${JSON.stringify(defaultAddonPath())});
      const r = binding.loadLibrary([${JSON.stringify(old.path)}]);
      process.stdout.write(JSON.stringify({ loaded: r.loaded, dataTypeError: r.dataTypeError }));`;
    const result = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' })) as { loaded: boolean; dataTypeError: string };
    expect(result.loaded).toBe(true);
    expect(result.dataTypeError).toBe('datatype 2 is 2 byte(s) wide in this library, but bool (1) in the MIGraphX 2.14-2.16 header this EP declares against');
  });
});
