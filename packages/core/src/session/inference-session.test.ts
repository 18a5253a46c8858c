import { describe, expect, it, vi } from 'vitest';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InferenceSession } from './inference-session.js';
import { Tensor } from '../tensor/tensor.js';
import { SwitchyardError } from '../errors.js';
import { registerExecutionProvider } from '../ep/ep-registry.js';
import { buildModel } from '../testing/build-model.js';
import { hostTestProvider } from '../testing/host-test-ep.js';
import { MockDeviceProvider } from '../testing/mock-device-ep.js';
import type { ExecutionProvider } from '../ep/execution-provider.js';

const f32 = (data: number[], dims: number[]) => new Tensor('float32', Float32Array.from(data), dims);

/** x → Relu → r1 → Neg → r2; Add(r1, r2) → a → Relu → out */
function diamond() {
  return buildModel({
    inputs: [['x', 'float32', [2, 2]]],
    outputs: [['out', 'float32', [2, 2]]],
    nodes: [
      { op: 'Relu', inputs: ['x'], outputs: ['r1'], name: 'relu1' },
      { op: 'Neg', inputs: ['r1'], outputs: ['r2'], name: 'neg' },
      { op: 'Add', inputs: ['r1', 'r2'], outputs: ['a'], name: 'add' },
      { op: 'Relu', inputs: ['a'], outputs: ['out'], name: 'relu2' },
    ],
  });
}

const opts = (eps: ExecutionProvider[]) => ({ executionProviders: eps, disableCpuFallback: true });

/** What `body` writes to stderr (log lines). */
async function stderrOf(body: () => Promise<void>): Promise<string> {
  let text = '';
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    text += String(chunk);
    return true;
  });
  try {
    await body();
  } finally {
    spy.mockRestore();
  }
  return text;
}

describe('InferenceSession', () => {
  it('runs a graph on a host EP and reports placement', async () => {
    const s = await InferenceSession.fromModel(diamond(), opts([hostTestProvider()]));
    const out = await s.run({ x: f32([1, -2, 3, -4], [2, 2]) });
    expect(Array.from((out.out as Tensor).data as Float32Array)).toEqual([0, 0, 0, 0]);
    expect(s.placement.nodes.map((n) => n.ep)).toEqual(['hosttest', 'hosttest', 'hosttest', 'hosttest']);
    expect(s.placement.providers[0]).toMatchObject({ name: 'hosttest', nodes: 4, nodeCoverage: 1 });
    expect(s.inputNames).toEqual(['x']);
    expect(s.outputMetadata[0]).toMatchObject({ name: 'out', isTensor: true, type: 'float32', shape: [2, 2] });
    await s.release();
  });

  it('inserts copies exactly where values cross devices', async () => {
    const dev = new MockDeviceProvider({ ops: ['Relu', 'Add'] });
    const s = await InferenceSession.fromModel(diamond(), opts([dev, hostTestProvider()]));
    expect(s.placement.nodes.map((n) => `${n.name}:${n.ep}`)).toEqual(['relu1:mockdev', 'neg:hosttest', 'add:mockdev', 'relu2:mockdev']);
    const copies = s.placement.copies.map((c) => `${c.value} ${c.from}->${c.to}`).sort();
    // r1 feeds both neg (host) and add (device): one copy to the host, none for add.
    expect(copies).toEqual(['out mockdev:0->cpu', 'r1 mockdev:0->cpu', 'r2 cpu->mockdev:0', 'x cpu->mockdev:0']);
    const out = await s.run({ x: f32([1, -2, 3, -4], [2, 2]) });
    expect((out.out as Tensor).location).toBe('cpu');
    expect(Array.from((out.out as Tensor).data as Float32Array)).toEqual([0, 0, 0, 0]);
    expect(dev.copiesToDevice).toBe(2);
    expect(dev.copiesToHost).toBe(2);
    // The neg node's reasons say why the device EP declined it.
    const neg = s.placement.nodes.find((n) => n.name === 'neg')!;
    expect(neg.declined[0]).toMatchObject({ ep: 'mockdev', reason: { kind: 'op' } });
    await s.release();
  });

  it('inserts no copies when one device runs everything', async () => {
    const dev = new MockDeviceProvider({ ops: ['Relu', 'Add', 'Neg'] as never });
    const s = await InferenceSession.fromModel(
      buildModel({
        inputs: [['x', 'float32', [3]]],
        outputs: [['y', 'float32', [3]]],
        nodes: [
          { op: 'Relu', inputs: ['x'], outputs: ['a'] },
          { op: 'Add', inputs: ['a', 'a'], outputs: ['y'] },
        ],
      }),
      opts([dev, hostTestProvider()]),
    );
    expect(s.placement.copies.map((c) => c.value).sort()).toEqual(['x', 'y']);
    const out = await s.run({ x: f32([-1, 2, 3], [3]) });
    expect(Array.from((out.y as Tensor).data as Float32Array)).toEqual([0, 4, 6]);
  });

  it('rejects wrong feeds with errors naming what was expected', async () => {
    const s = await InferenceSession.fromModel(diamond(), opts([hostTestProvider()]));
    await expect(s.run({ y: f32([1, 2, 3, 4], [2, 2]) })).rejects.toThrow(/unknown input 'y'.*'x'/);
    await expect(s.run({})).rejects.toThrow(/missing input 'x'/);
    await expect(s.run({ x: new Tensor('int32', Int32Array.from([1, 2, 3, 4]), [2, 2]) })).rejects.toThrow(/'x' expects float32, got int32/);
    await expect(s.run({ x: f32([1, 2, 3], [3]) })).rejects.toThrow(/'x' expects shape \[2, 2\], got \[3\]/);
    await expect(s.run({ x: [1, 2] as never })).rejects.toThrow(/must be a Tensor/);
    await expect(s.run({ x: f32([1, 2, 3, 4], [2, 2]) }, ['nope'])).rejects.toThrow(/unknown output 'nope'/);
  });

  it('checks symbolic dims are consistent across inputs', async () => {
    const s = await InferenceSession.fromModel(
      buildModel({
        inputs: [
          ['a', 'float32', ['N', 2]],
          ['b', 'float32', ['N', 2]],
        ],
        outputs: [['c', 'float32']],
        nodes: [{ op: 'Add', inputs: ['a', 'b'], outputs: ['c'] }],
      }),
      opts([hostTestProvider()]),
    );
    await expect(s.run({ a: f32([1, 2], [1, 2]), b: f32([1, 2, 3, 4], [2, 2]) })).rejects.toThrow(/dimension 'N' is 1 in input 'a' but 2/);
    const ok = await s.run({ a: f32([1, 2, 3, 4], [2, 2]), b: f32([1, 1, 1, 1], [2, 2]) });
    expect(Array.from((ok.c as Tensor).data as Float32Array)).toEqual([2, 3, 4, 5]);
  });

  it('gives correct results for concurrent runs', async () => {
    const s = await InferenceSession.fromModel(
      buildModel({
        inputs: [['x', 'float32', [64]]],
        outputs: [['y', 'float32', [64]]],
        nodes: [
          { op: 'Mul', inputs: ['x', 'x'], outputs: ['sq'] },
          { op: 'Add', inputs: ['sq', 'x'], outputs: ['t'] },
          { op: 'Relu', inputs: ['t'], outputs: ['y'] },
        ],
      }),
      opts([hostTestProvider()]),
    );
    const inputs = Array.from({ length: 16 }, (_, k) => Float32Array.from({ length: 64 }, (_, i) => (i - 32) / (k + 1)));
    const outs = await Promise.all(inputs.map((x) => s.run({ x: new Tensor('float32', x, [64]) })));
    outs.forEach((o, k) => {
      const expected = Array.from(inputs[k], (v) => Math.max(0, Math.fround(Math.fround(v * v) + v)));
      expect(Array.from((o.y as Tensor).data as Float32Array)).toEqual(expected);
    });
  });

  it('reuses host memory through the planned arena', async () => {
    const nodes = Array.from({ length: 8 }, (_, i) => ({ op: 'Relu', inputs: [i === 0 ? 'x' : `v${i}`], outputs: [i === 7 ? 'y' : `v${i + 1}`] }));
    const s = await InferenceSession.fromModel(
      buildModel({ inputs: [['x', 'float32', [1024]]], outputs: [['y', 'float32', [1024]]], nodes }),
      { ...opts([hostTestProvider()]), graphOptimizationLevel: 'disabled' },
    );
    const mem = s.optimization.memory;
    expect(mem.naiveBytes).toBe(7 * 4096);
    expect(mem.peakBytes).toBe(2 * 4096);
    const x = Float32Array.from({ length: 1024 }, (_, i) => i - 512);
    const y = (await s.run({ x: new Tensor('float32', x, [1024]) })).y as Tensor;
    expect(Array.from(y.data as Float32Array)).toEqual(Array.from(x, (v) => Math.max(0, v)));
  });

  it('lists every EP reason when no EP can run a node', async () => {
    const model = buildModel({ inputs: [['x', 'float32', [2]]], outputs: [['y', 'float32', [2]]], nodes: [{ op: 'Sin', inputs: ['x'], outputs: ['y'] }] });
    const err = await InferenceSession.fromModel(model, opts([new MockDeviceProvider(), hostTestProvider()])).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SwitchyardError);
    expect((err as SwitchyardError).code).toBe('NO_PROVIDER');
    expect((err as Error).message).toMatch(/Sin.*mockdev: mockdev has no kernel for Sin.*hosttest: hosttest has no kernel for Sin/s);
  });

  it('skips EPs that fail to initialize, with their reason in the placement and a warning', async () => {
    const broken: ExecutionProvider = { name: 'broken', kernels: [], init: () => Promise.reject(new Error('no device here')) };
    const lines = await stderrOf(async () => {
      const s = await InferenceSession.fromModel(diamond(), { executionProviders: [broken, hostTestProvider()] });
      expect(s.placement.skipped).toEqual([{ name: 'broken', reason: 'no device here' }]);
      expect(s.placement.nodes[0].declined[0]).toEqual({ ep: 'broken', reason: { kind: 'ep-unavailable', message: 'no device here' } });
    });
    expect(lines).toContain("[switchyard] WARNING: execution provider 'broken' skipped: no device here\n");
  });

  it('fails when a listed EP cannot start and CPU fallback is off', async () => {
    const broken: ExecutionProvider = { name: 'broken', kernels: [], init: () => Promise.reject(new Error('no device here')) };
    const err = (await InferenceSession.fromModel(diamond(), opts([broken, hostTestProvider()])).catch((e: unknown) => e)) as SwitchyardError;
    expect(err.code).toBe('EP_FAILED');
    expect(err.message).toMatch(/disableCpuFallback could not start:\n\s+- broken: no device here/);
  });

  it('fails with every reason when no EP can start', async () => {
    const broken: ExecutionProvider = { name: 'broken', kernels: [], init: () => Promise.reject(new Error('no device here')) };
    const other: ExecutionProvider = { name: 'other', kernels: [], init: () => Promise.reject(new Error('no library')) };
    await expect(InferenceSession.fromModel(diamond(), { executionProviders: [broken, other], disableCpuFallback: true })).rejects.toThrow(
      /no execution provider can serve this session:\n\s+- broken: no device here\n\s+- other: no library/,
    );
  });

  it('refuses an EP name nothing provides, naming the ones available', async () => {
    const err = (await InferenceSession.fromModel(diamond(), { executionProviders: ['nosuchep', hostTestProvider()] }).catch((e: unknown) => e)) as SwitchyardError;
    expect(err.code).toBe('INVALID_ARGUMENT');
    expect(err.message).toMatch(/unknown execution provider 'nosuchep'.*@switchyard\/ep-nosuchep is not installed\. Available here: .*'cpu'/);
  });

  it('resolves EPs given by name and by options object', async () => {
    let seen: Record<string, unknown> | undefined;
    registerExecutionProvider({
      name: 'named-host',
      create: (o) => {
        seen = o;
        return hostTestProvider('named-host');
      },
    });
    const a = await InferenceSession.fromModel(diamond(), { executionProviders: ['named-host'], disableCpuFallback: true });
    expect(a.placement.providers[0].name).toBe('named-host');
    await InferenceSession.fromModel(diamond(), { executionProviders: [{ name: 'named-host', deviceId: 3 }], disableCpuFallback: true });
    expect(seen).toEqual({ deviceId: 3 });
  });

  it('writes a chrome trace with per-node EP, op, shapes and duration', async () => {
    const prefix = join(tmpdir(), `sy-prof-${process.pid}`);
    const s = await InferenceSession.fromModel(diamond(), { ...opts([hostTestProvider()]), enableProfiling: true, profileFilePrefix: prefix });
    await s.run({ x: f32([1, 2, 3, 4], [2, 2]) });
    const path = s.endProfiling();
    const trace = JSON.parse(readFileSync(path, 'utf8')) as Array<{ name: string; ph: string; dur: number; args: Record<string, unknown> }>;
    rmSync(path);
    const relu = trace.find((e) => e.name === 'relu1')!;
    expect(relu).toMatchObject({ ph: 'X', args: { op_name: 'Relu', provider: 'hosttest', input_type_shape: ['float32[2,2]'], output_type_shape: ['float32[2,2]'] } });
    expect(relu.dur).toBeGreaterThanOrEqual(0);
  });

  it('refuses runs after release', async () => {
    const s = await InferenceSession.fromModel(diamond(), opts([hostTestProvider()]));
    await s.release();
    await expect(s.run({ x: f32([1, 2, 3, 4], [2, 2]) })).rejects.toMatchObject({ code: 'RELEASED' });
  });

  it('keeps the event loop responsive during a long run', async () => {
    const n = 600;
    const nodes = Array.from({ length: n }, (_, i) => ({ op: 'Sigmoid', inputs: [i === 0 ? 'x' : `v${i}`], outputs: [i === n - 1 ? 'y' : `v${i + 1}`] }));
    const s = await InferenceSession.fromModel(buildModel({ inputs: [['x', 'float32', [20000]]], outputs: [['y', 'float32', [20000]]], nodes }), {
      ...opts([hostTestProvider()]),
      graphOptimizationLevel: 'disabled',
    });
    let last = performance.now();
    let maxGap = 0;
    let ticks = 0;
    const timer = setInterval(() => {
      const now = performance.now();
      maxGap = Math.max(maxGap, now - last);
      last = now;
      ticks++;
    }, 1);
    const t0 = performance.now();
    await s.run({ x: new Tensor('float32', new Float32Array(20000), [20000]) });
    const total = performance.now() - t0;
    clearInterval(timer);
    // A run that never yielded would let no timer fire and show one gap as long as the run itself.
    // The executor yields every 4 ms; the bounds leave room for a loaded test machine (the latency
    // itself is measured in bench/, not asserted here).
    expect(total).toBeGreaterThan(100);
    expect(ticks).toBeGreaterThan(10);
    expect(maxGap).toBeLessThan(total / 4);
  });

  it('ends a long run with a turn of the event loop, so back-to-back runs do not join their slices', async () => {
    const n = 300;
    const nodes = Array.from({ length: n }, (_, i) => ({ op: 'Sigmoid', inputs: [i === 0 ? 'x' : `v${i}`], outputs: [i === n - 1 ? 'y' : `v${i + 1}`] }));
    const s = await InferenceSession.fromModel(buildModel({ inputs: [['x', 'float32', [20000]]], outputs: [['y', 'float32', [20000]]], nodes }), {
      ...opts([hostTestProvider()]),
      graphOptimizationLevel: 'disabled',
    });
    const x = new Tensor('float32', new Float32Array(20000), [20000]);
    // A probe that runs on every turn of the event loop: when a run resolves, how long ago was the last turn?
    let lastTurn = performance.now();
    let probing = true;
    const probe = () => {
      lastTurn = performance.now();
      if (probing) setImmediate(probe);
    };
    setImmediate(probe);
    const sinceLastTurn: number[] = [];
    let total = 0;
    for (let k = 0; k < 9; k++) {
      const t0 = performance.now();
      await s.run({ x });
      const now = performance.now();
      sinceLastTurn.push(now - lastTurn);
      total += now - t0;
    }
    probing = false;
    sinceLastTurn.sort((a, b) => a - b);
    // Each run spans several 4 ms slices. Without the closing yield a run resolves 0-4 ms (a median
    // near 2) after its last turn; with it, within the last node and the outputs (well under 1 ms).
    expect(total / 9).toBeGreaterThan(8);
    expect(sinceLastTurn[4]).toBeLessThan(1);
  });

  it('writes the optimized model when asked', async () => {
    const path = join(tmpdir(), `sy-opt-${process.pid}.onnx`);
    const s = await InferenceSession.fromModel(diamond(), { ...opts([hostTestProvider()]), optimizedModelFilePath: path });
    expect(existsSync(path)).toBe(true);
    const again = await InferenceSession.create(path, opts([hostTestProvider()]));
    const x = f32([1, -2, 3, -4], [2, 2]);
    expect(((await again.run({ x })).out as Tensor).data).toEqual(((await s.run({ x })).out as Tensor).data);
    rmSync(path);
  });
});
