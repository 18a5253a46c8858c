/** `partitioning: 'cost'` with a mock device EP: where it saves copies, where it changes nothing, and why. */
import { describe, expect, it } from 'vitest';
import { InferenceSession, type FeedsType } from '../session/inference-session.js';
import { Tensor } from '../tensor/tensor.js';
import { buildModel, type NodeSpec } from '../testing/build-model.js';
import { hostTestProvider } from '../testing/host-test-ep.js';
import { MockDeviceProvider } from '../testing/mock-device-ep.js';
import type { SessionOptions } from '../session/session-options.js';

const matrix = (rows: number, cols: number, seed: number) =>
  new Tensor('float32', Float32Array.from({ length: rows * cols }, (_, i) => Math.sin(i * 0.7 + seed) * 0.5), [rows, cols]);

function model(size: number, nodes: NodeSpec[], output: string) {
  return buildModel({
    inputs: [['x', 'float32', [size, size]]],
    outputs: [[output, 'float32', [size, size]]],
    nodes,
    initializers: { w1: matrix(size, size, 1), w2: matrix(size, size, 2) },
  });
}

/** A MatMul on the device, then cheap Relus it could run between host Negs: every Relu is a round trip. */
const pingPong = (size: number) =>
  model(
    size,
    [
      { op: 'MatMul', inputs: ['x', 'w1'], outputs: ['m'], name: 'matmul' },
      { op: 'Neg', inputs: ['m'], outputs: ['n1'], name: 'neg1' },
      { op: 'Relu', inputs: ['n1'], outputs: ['r1'], name: 'relu1' },
      { op: 'Neg', inputs: ['r1'], outputs: ['n2'], name: 'neg2' },
      { op: 'Relu', inputs: ['n2'], outputs: ['r2'], name: 'relu2' },
      { op: 'Sigmoid', inputs: ['r2'], outputs: ['y'], name: 'sigmoid' },
    ],
    'y',
  );

/** Two large MatMuls on the device with a host Neg between: each is worth its copies. */
const heavy = (size: number) =>
  model(
    size,
    [
      { op: 'MatMul', inputs: ['x', 'w1'], outputs: ['m1'], name: 'matmul1' },
      { op: 'Neg', inputs: ['m1'], outputs: ['n'], name: 'neg' },
      { op: 'MatMul', inputs: ['n', 'w2'], outputs: ['y'], name: 'matmul2' },
    ],
    'y',
  );

/** `hostMatMul`: whether the host EP can run MatMul too (else MatMuls can only run on the device). */
async function session(build: () => ReturnType<typeof model>, partitioning: SessionOptions['partitioning'], hostMatMul = false) {
  const dev = new MockDeviceProvider({ ops: ['MatMul', 'Relu'] });
  const host = hostTestProvider('hosttest', ['Relu', 'Neg', 'Sigmoid', ...(hostMatMul ? ['MatMul'] : [])]);
  const s = await InferenceSession.fromModel(build(), { executionProviders: [dev, host], disableCpuFallback: true, graphOptimizationLevel: 'disabled', partitioning });
  return { s, dev };
}

async function runOnce(s: InferenceSession, dev: MockDeviceProvider, feeds: FeedsType) {
  const out = await s.run(feeds);
  const y = out[s.outputNames[0]] as Tensor;
  return { data: Array.from(y.data as Float32Array), copies: dev.copiesToDevice + dev.copiesToHost };
}

describe("partitioning: 'cost'", () => {
  it('moves cheap device islands between host nodes to the host: fewer copies, same outputs, a reason per node', async () => {
    const feeds = { x: matrix(64, 64, 3) };
    const first = await session(() => pingPong(64), undefined);
    const cost = await session(() => pingPong(64), 'cost');
    const epOf = (s: InferenceSession) => Object.fromEntries(s.placement.nodes.map((n) => [n.name, n.ep]));
    expect(epOf(first.s)).toMatchObject({ matmul: 'mockdev', relu1: 'mockdev', relu2: 'mockdev' });
    expect(epOf(cost.s)).toEqual({ matmul: 'mockdev', neg1: 'hosttest', relu1: 'hosttest', neg2: 'hosttest', relu2: 'hosttest', sigmoid: 'hosttest' });
    // x and the weight w1 in, m out; then n1 in, r1 out, n2 in, r2 out for the two Relus.
    expect(first.s.placement.copies.length).toBe(7);
    expect(cost.s.placement.copies.map((c) => `${c.value} ${c.from}→${c.to}`)).toEqual(['x cpu→mockdev:0', 'w1 cpu→mockdev:0', 'm mockdev:0→cpu']);
    const [a, b] = [await runOnce(first.s, first.dev, feeds), await runOnce(cost.s, cost.dev, feeds)];
    expect(b.data).toEqual(a.data);
    expect([a.copies, b.copies]).toEqual([7, 3]);
    const relu1 = cost.s.placement.nodes.find((n) => n.name === 'relu1')!;
    expect(relu1.reason).toMatch(/^moved from mockdev to hosttest: on mockdev:0 this node would need 2 copies of 32\.8 kB \(.+\) vs 0 of 0 B on hosttest, for 4\.1 kFLOP/);
    expect(relu1.declined).toEqual([{ ep: 'mockdev', reason: { kind: 'cost', message: relu1.reason } }]);
    const matmul = cost.s.placement.nodes.find((n) => n.name === 'matmul')!;
    expect(matmul.reason).toBe("kept on mockdev:0: no host EP can run 'matmul' (MatMul)");
    // First-capable gives no reasons: nothing was weighed.
    expect(first.s.placement.nodes.every((n) => n.reason === undefined)).toBe(true);
  });

  it('changes nothing where the device work outweighs its copies (the host could run every node)', async () => {
    const feeds = { x: matrix(256, 256, 5) };
    const first = await session(() => heavy(256), 'first-capable', true);
    const cost = await session(() => heavy(256), 'cost', true);
    const view = (s: InferenceSession) => s.placement.nodes.map((n) => `${n.name}:${n.ep}`);
    expect(view(cost.s)).toEqual(view(first.s));
    expect(view(cost.s)).toEqual(['matmul1:mockdev', 'neg:hosttest', 'matmul2:mockdev']);
    expect(cost.s.placement.copies).toEqual(first.s.placement.copies);
    const [a, b] = [await runOnce(first.s, first.dev, feeds), await runOnce(cost.s, cost.dev, feeds)];
    expect(b.data).toEqual(a.data);
    expect(b.copies).toBe(a.copies);
    // 2·256³ FLOP at the host's default 100 GFLOP/s vs two 262 kB copies at 12 GB/s (+10 µs each).
    const matmul1 = cost.s.placement.nodes.find((n) => n.name === 'matmul1')!;
    expect(matmul1.reason).toMatch(/^kept on mockdev:0: moving this node to hosttest would save 64 µs of copies \(2 copies of 524\.3 kB .*\) but add 332 µs of compute \(33\.6 MFLOP\)$/);
    // The same model where the host can run the MatMuls, first-capable, on the host alone: the same outputs.
    const hostOnly = await InferenceSession.fromModel(heavy(256), { executionProviders: [hostTestProvider('hosttest', ['Neg', 'MatMul'])], disableCpuFallback: true, graphOptimizationLevel: 'disabled' });
    expect(Array.from(((await hostOnly.run(feeds)).y as Tensor).data as Float32Array)).toEqual(a.data);
  });

  it('weighs with the figures an EP states, and keeps a node whose copies are cheaper than the host work', async () => {
    // With a fast link and a host far slower than the device, the Relus' copies are worth making.
    const dev = new MockDeviceProvider({ ops: ['MatMul', 'Relu'], linkBandwidth: 1e15, flopsPerSecond: 1e15 });
    const host = { ...hostTestProvider(), flopsPerSecond: 1e3 };
    const s = await InferenceSession.fromModel(pingPong(64), { executionProviders: [dev, host], disableCpuFallback: true, graphOptimizationLevel: 'disabled', partitioning: 'cost' });
    const relu1 = s.placement.nodes.find((n) => n.name === 'relu1')!;
    expect(relu1.ep).toBe('mockdev');
    expect(relu1.reason).toMatch(/^kept on mockdev:0: moving this node to hosttest would save .+ of copies \(2 copies of 32\.8 kB .+\) but add .+ of compute \(4\.1 kFLOP\)$/);
  });

  it('is refused when misspelt', async () => {
    await expect(session(() => heavy(8), 'costly' as never)).rejects.toThrow(/partitioning must be one of 'first-capable', 'cost'/);
  });
});
