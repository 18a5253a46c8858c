import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { InferenceSession, Tensor, registerExecutionProvider } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { executionProviderFactory as cpuFactory } from '@switchyard/ep-cpu';
import { MigraphxExecutionProvider, executionProviderFactory } from './migraphx-provider.js';
import { migraphxAddon } from './native/load-native.js';
import { CpuProgramCompiler } from './testing/cpu-program-compiler.js';
import { encoderFeeds, tinyEncoder } from './testing/tiny-encoder.js';

registerExecutionProvider(cpuFactory);
registerExecutionProvider(executionProviderFactory);

// "Without MIGraphX" cannot hold where one is installed or named: the addon keeps the first library
// it loads for the whole process, so a real one (the integration run) would answer every test here.
const rocmInstalled = existsSync('/opt/rocm/lib/libmigraphx_c.so') || Boolean(process.env.SWITCHYARD_MIGRAPHX_LIB);
const model = () =>
  buildModel({
    inputs: [['x', 'float32', [3]]],
    outputs: [['y', 'float32', [3]]],
    nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['y'] }],
  });

/** The reason depends on whether the loader addon is built here; either way it must say what to do. */
function expectMissingLibraryReason(reason: string, tried: string): void {
  if (migraphxAddon().ok) {
    expect(reason).toMatch(/^libmigraphx_c\.so not found: tried /);
    expect(reason).toContain(tried);
  } else {
    expect(reason).toMatch(/MIGraphX loader addon is not built.*scripts\/build-native\.mjs/);
  }
}

describe.skipIf(rocmInstalled)('migraphx EP without MIGraphX', () => {
  it('is skipped by a session, with the paths it tried, and the nodes run on cpu', async () => {
    const session = await InferenceSession.fromModel(model(), { executionProviders: ['migraphx'] });
    expect(session.placement.skipped.map((s) => s.name)).toEqual(['migraphx']);
    expectMissingLibraryReason(session.placement.skipped[0].reason, '/opt/rocm/lib/libmigraphx_c.so');
    expect(session.placement.nodes.map((n) => n.ep)).toEqual(['cpu']);
    const out = await session.run({ x: new Tensor('float32', Float32Array.from([-1, 0, 2]), [3]) });
    expect(Array.from((out.y as Tensor).data as Float32Array)).toEqual([0, 0, 2]);
    await session.release();
  });

  it('names SWITCHYARD_MIGRAPHX_LIB when it points nowhere', async () => {
    const ep = new MigraphxExecutionProvider({}, { env: { SWITCHYARD_MIGRAPHX_LIB: '/nonexistent' } });
    // offload_copy: MIGraphX moves data itself, so the EP's boundary tensors live on the host.
    expect(ep.device).toBe('cpu');
    const session = await InferenceSession.fromModel(model(), { executionProviders: [ep] });
    expectMissingLibraryReason(session.placement.skipped[0].reason, '/nonexistent');
    if (migraphxAddon().ok) expect(session.placement.skipped[0].reason).toContain('SWITCHYARD_MIGRAPHX_LIB=/nonexistent');
    expect(ep.describe()).toBe('MIGraphX not loaded');
  });

  it("refuses bad options when the session is created, and takes onnxruntime's names", async () => {
    await expect(InferenceSession.fromModel(model(), { executionProviders: [{ name: 'migraphx', target: 'tpu', deviceId: 1 }] })).rejects.toThrow(
      "target must be one of 'gpu', 'ref', 'cpu'",
    );
    const session = await InferenceSession.fromModel(model(), { executionProviders: [{ name: 'migraphx', device_id: 0, migraphx_fp16_enable: '1' }], logSeverityLevel: 3 });
    // Skipped for want of the library, not for its options.
    expectMissingLibraryReason(session.placement.skipped[0].reason, '/opt/rocm/lib/libmigraphx_c.so');
    await session.release();
  });
});

describe('migraphx EP with a compiler double (ep-cpu runs each "program")', () => {
  it('takes the supported nodes as partitions, leaves single nodes to cpu with the reason, and matches cpu', async () => {
    const compiler = new CpuProgramCompiler();
    // Without Erf, the GELU's Erf splits the encoder: [everything before] Erf [everything after].
    const operators = ['Gather', 'Add', 'LayerNormalization', 'Cast', 'Sub', 'Mul', 'Unsqueeze', 'MatMul', 'Reshape', 'Transpose', 'Div', 'Softmax', 'Tanh'];
    const ep = new MigraphxExecutionProvider({ dynamicBatch: { max: 8 } }, { compiler, operators });
    const session = await InferenceSession.fromModel(tinyEncoder('batch'), { executionProviders: [ep, 'cpu'], graphOptimizationLevel: 'disabled' });
    const reference = await InferenceSession.fromModel(tinyEncoder('batch'), { executionProviders: ['cpu'], graphOptimizationLevel: 'disabled' });
    const byEp = new Map<string, string[]>();
    for (const n of session.placement.nodes) byEp.set(n.ep, [...(byEp.get(n.ep) ?? []), n.name]);
    expect(byEp.get('cpu')).toEqual(['gelu_e']);
    expect(ep.partitions).toHaveLength(2);
    const erf = session.placement.nodes.find((n) => n.name === 'gelu_e');
    expect(JSON.stringify(erf)).toContain("the loaded library's ONNX parser has no Erf");
    for (const batch of [1, 3, 8]) {
      const feeds = encoderFeeds(batch);
      const [got, want] = [await session.run(feeds), await reference.run(feeds)];
      for (const name of ['last_hidden_state', 'pooler_output']) {
        expect(Array.from((got[name] as Tensor).data as Float32Array).map((v, i) => Math.abs(v - ((want[name] as Tensor).data as Float32Array)[i]) < 1e-4)).not.toContain(false);
      }
    }
    // Buckets 1, 4, 8 for each of the two partitions.
    expect(compiler.compiles).toBe(6);
    await session.release();
    await reference.release();
  });

  it("leaves a lone supported node to the next EP: 'partition too small to pay for a compile'", async () => {
    const ep = new MigraphxExecutionProvider({}, { compiler: new CpuProgramCompiler() });
    const session = await InferenceSession.fromModel(model(), { executionProviders: [ep, 'cpu'] });
    expect(session.placement.nodes.map((n) => n.ep)).toEqual(['cpu']);
    expect(JSON.stringify(session.placement.nodes[0])).toContain('partition too small to pay for a compile (1 node, minPartitionNodes is 2)');
    await session.release();
  });
});
