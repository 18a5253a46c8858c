import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { InferenceSession, Tensor, registerExecutionProvider } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { executionProviderFactory as cpuFactory } from '@switchyard/ep-cpu';
import { loadNativeHip } from '@switchyard/native-hip';
import { RocmExecutionProvider, executionProviderFactory } from './rocm-provider.js';

// These tests are about declining: on a GPU host the EP would (rightly) accept.
const gpuHost = existsSync('/dev/kfd') || existsSync('/dev/nvidia0');
const RELU_MODEL = '/usr/share/libonnx-testdata/data/node/test_relu/model.onnx';

registerExecutionProvider(cpuFactory);
registerExecutionProvider(executionProviderFactory);

/** What the reason must say, depending on whether the addon is built on this machine. */
function expectDeclineReason(reason: string): void {
  if (loadNativeHip().ok) {
    expect(reason).toContain('/dev/kfd');
    expect(reason).toContain('HIP_VISIBLE_DEVICES');
    expect(reason).toMatch(/^no AMD GPU is visible to HIP \(hipGetDeviceCount: hipError\w+\)|^no NVIDIA GPU/);
  } else {
    expect(reason).toMatch(/^HIP addon unavailable: .*scripts\/build-native\.mjs/);
  }
}

describe.skipIf(gpuHost)('rocm EP without a GPU', () => {
  it('init() throws the reason instead of crashing', async () => {
    const ep = new RocmExecutionProvider();
    expect(ep.device).toBe('rocm:0');
    const err = await ep.init().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expectDeclineReason((err as Error).message);
    expect(ep.kernels).toEqual([]);
    expect(ep.describe()).toBe('not initialized');
  });

  it('is skipped by a session, which places every node on cpu', async () => {
    const model = buildModel({
      inputs: [['x', 'float32', [2, 3]]],
      outputs: [['y', 'float32', [2, 3]]],
      nodes: [
        { op: 'Relu', inputs: ['x'], outputs: ['r'] },
        { op: 'Add', inputs: ['r', 'x'], outputs: ['y'] },
      ],
    });
    const session = await InferenceSession.fromModel(model, { executionProviders: ['rocm'] });
    expect(session.placement.skipped.map((s) => s.name)).toEqual(['rocm']);
    expectDeclineReason(session.placement.skipped[0].reason);
    // (With the CPU addon, Relu + Add may run as one fused elementwise node: count nodes, not ops.)
    expect(session.placement.nodes.length).toBeGreaterThan(0);
    expect(session.placement.nodes.every((n) => n.ep === 'cpu')).toBe(true);
    const out = await session.run({ x: new Tensor('float32', Float32Array.from([-1, 2, -3, 4, 0, 6]), [2, 3]) });
    expect(Array.from((out.y as Tensor).data as Float32Array)).toEqual([-1, 4, -3, 8, 0, 12]);
    await session.release();
  });

  it.runIf(existsSync(RELU_MODEL))('declines on the ONNX backend test model too', async () => {
    const session = await InferenceSession.create(RELU_MODEL, { executionProviders: [{ name: 'rocm', deviceId: 0 }] });
    expect(session.placement.skipped[0].name).toBe('rocm');
    expectDeclineReason(session.placement.skipped[0].reason);
    expect(new Set(session.placement.nodes.map((n) => n.ep))).toEqual(new Set(['cpu']));
    await session.release();
  });

  it("takes onnxruntime's option names, and refuses unknown ones when the session is created", async () => {
    const model = () => buildModel({ inputs: [['x', 'float32', [1]]], outputs: [['y', 'float32', [1]]], nodes: [{ op: 'Relu', inputs: ['x'], outputs: ['y'] }] });
    const session = await InferenceSession.fromModel(model(), { executionProviders: [{ name: 'rocm', device_id: 0, miopen_conv_exhaustive_search: '0' }], logSeverityLevel: 3 });
    // Skipped for want of a device, not for its options.
    expect(session.placement.skipped[0].name).toBe('rocm');
    expectDeclineReason(session.placement.skipped[0].reason);
    await session.release();
    await expect(InferenceSession.fromModel(model(), { executionProviders: [{ name: 'rocm', deviceID: 1 }] })).rejects.toThrow(/rocm EP: unknown option\(s\) deviceID; it takes deviceId/);
    await expect(InferenceSession.fromModel(model(), { executionProviders: [{ name: 'rocm', device_id: 0, deviceId: 1 }] })).rejects.toThrow(/both device_id and deviceId/);
  });
});
