/** `session.memoryPlan` across a host and a device EP, counted by hand. */
import { describe, expect, it } from 'vitest';
import { InferenceSession } from './inference-session.js';
import { Tensor } from '../tensor/tensor.js';
import { buildModel } from '../testing/build-model.js';
import { hostTestProvider } from '../testing/host-test-ep.js';
import { MockDeviceProvider } from '../testing/mock-device-ep.js';
import type { MemoryEstimateRequest } from '../ep/execution-provider.js';

const N = 64; // float32 elements per value: 256 bytes

/** x → Relu (dev) → Mul w (dev) → Neg (host) → Relu (dev) → y. */
const model = (dims: Array<number | string> = [N], wLength = N) =>
  buildModel({
    inputs: [['x', 'float32', dims]],
    outputs: [['y', 'float32', dims]],
    nodes: [
      { op: 'Relu', inputs: ['x'], outputs: ['a'], name: 'relu1' },
      { op: 'Mul', inputs: ['a', 'w'], outputs: ['b'], name: 'mul' },
      { op: 'Neg', inputs: ['b'], outputs: ['c'], name: 'neg' },
      { op: 'Relu', inputs: ['c'], outputs: ['y'], name: 'relu2' },
    ],
    initializers: { w: new Tensor('float32', new Float32Array(wLength).fill(2), [wLength]) },
  });

describe('session.memoryPlan with a device EP', () => {
  it('counts weights where they are read, device activations by the lifetime planner, copies per run', async () => {
    const dev = new MockDeviceProvider({ ops: ['Relu', 'Mul'] });
    const s = await InferenceSession.fromModel(model(), { executionProviders: [dev, hostTestProvider()], disableCpuFallback: true, graphOptimizationLevel: 'disabled' });
    expect(s.placement.nodes.map((n) => n.ep)).toEqual(['mockdev', 'mockdev', 'hosttest', 'mockdev']);
    const plan = s.memoryPlan;
    const [host, device] = plan.devices;
    expect(plan.devices.map((d) => d.device)).toEqual(['cpu', 'mockdev:0']);
    expect(device.providers).toEqual(['mockdev']);
    // w is read by the device's Mul only.
    expect([host.weightsBytes, device.weightsBytes]).toEqual([0, 256]);
    // a (relu1 → mul) and b (mul → neg) are live together at mul; y is a graph output.
    expect(device).toMatchObject({ activationBytes: 512, activationSource: 'estimate' });
    // Copies in: x and c (w's copy is its weights); the graph output y is made there too.
    expect(device.perRunBytes).toBe(3 * 256);
    // The host arena holds c; b and y arrive by copy.
    expect(host).toMatchObject({ activationBytes: 256, activationSource: 'arena', perRunBytes: 512 });
    expect(plan.totalBytes).toBe(256 + 512 + 768 + 256 + 512);
    expect(plan.notes.join()).toMatch(/mockdev:0: activations estimated/);
    const out = await s.run({ x: new Tensor('float32', Float32Array.from({ length: N }, (_, i) => i - 30), [N]) });
    expect((out.y as Tensor).dims).toEqual([N]);
  });

  it("takes the EP's own figures when it reports them, asked with the bound shapes of its nodes", async () => {
    const asked: MemoryEstimateRequest[] = [];
    // The mock's Mul wants static shapes: with a symbolic dim only the Relus go to the device.
    const dev = Object.assign(new MockDeviceProvider({ ops: ['Relu'] }), {
      memoryEstimate(request: MemoryEstimateRequest) {
        asked.push(request);
        return { activationBytes: 1000, workspaceBytes: 77 };
      },
    });
    const s = await InferenceSession.fromModel(model(['n'], 1), { executionProviders: [dev, hostTestProvider()], disableCpuFallback: true, graphOptimizationLevel: 'disabled' });
    const free = s.memoryPlan;
    expect(free.unresolvedDims).toEqual(['n']);
    expect(free.unsized.sort()).toEqual(['a', 'b', 'c', 'x', 'y']);
    const plan = s.memoryPlanFor({ x: [N] });
    expect(asked.at(-1)!.nodes.map((n) => n.name)).toEqual(['relu1', 'relu2']);
    expect(asked.at(-1)!.typeOf('a')).toMatchObject({ shape: [N] });
    const device = plan.devices[1];
    expect(device).toMatchObject({ activationBytes: 1000, activationSource: 'provider', workspaceBytes: 77, workspaceReportedBy: ['mockdev'] });
    // Host arena: b (mul) and c (neg), live together at neg; a and y arrive by copy.
    expect(plan.devices[0]).toMatchObject({ activationBytes: 512, perRunBytes: 512 });
    expect(plan.notes).toEqual([]);
    // Twice the elements: twice the host arena and copies.
    const twice = s.memoryPlanFor({ x: [2 * N] });
    expect(twice.devices[0]).toMatchObject({ activationBytes: 1024, perRunBytes: 1024 });
    expect(() => s.memoryPlanFor({ x: [N, 1] })).toThrow(/rank 1/);
    await s.release();
    expect(() => s.memoryPlan).toThrow(expect.objectContaining({ code: 'RELEASED' }));
  });

  it('counts the weights an EP says it holds on its device instead of the initializers, when it reports them', async () => {
    const reporting = (weightsBytes?: number) =>
      Object.assign(new MockDeviceProvider({ ops: ['Relu'] }), { memoryEstimate: () => ({ activationBytes: 1000, weightsBytes }) });
    const open = (ep: MockDeviceProvider) => InferenceSession.fromModel(model([N], 1), { executionProviders: [ep, hostTestProvider()], disableCpuFallback: true, graphOptimizationLevel: 'disabled' });
    const s = await open(reporting(4321));
    const device = s.memoryPlan.devices[1];
    expect(device.weightsBytes).toBe(4321);
    expect(device.totalBytes).toBe(4321 + 1000 + device.perRunBytes);
    await s.release();
    const silent = await open(reporting(undefined));
    expect(silent.memoryPlan.devices[1].weightsBytes).toBe(0); // core's count: the Relus read no initializer
    await silent.release();
  });
});
