import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { InferenceSession, Tensor, registerExecutionProvider } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { executionProviderFactory as cpuFactory } from '@switchyard/ep-cpu';
import { MigraphxExecutionProvider, executionProviderFactory } from './migraphx-provider.js';
import { migraphxAddon } from './native/load-native.js';

registerExecutionProvider(cpuFactory);
registerExecutionProvider(executionProviderFactory);

const rocmInstalled = existsSync('/opt/rocm/lib/libmigraphx_c.so');
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
    expect(reason).toMatch(/MIGraphX loader addon is not built.*build:native/);
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
    expect(ep.device).toBe('migraphx:0');
    const session = await InferenceSession.fromModel(model(), { executionProviders: [ep] });
    expectMissingLibraryReason(session.placement.skipped[0].reason, '/nonexistent');
    if (migraphxAddon().ok) expect(session.placement.skipped[0].reason).toContain('SWITCHYARD_MIGRAPHX_LIB=/nonexistent');
    expect(ep.describe()).toBe('MIGraphX not loaded');
  });

  it('reports bad options as the skip reason', async () => {
    const session = await InferenceSession.fromModel(model(), { executionProviders: [{ name: 'migraphx', target: 'tpu', deviceId: 1 }] });
    expect(session.placement.skipped).toEqual([{ name: 'migraphx', reason: expect.stringContaining("target must be one of 'gpu', 'ref', 'cpu'") }]);
  });
});
