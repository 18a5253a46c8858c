/**
 * `session.memoryPlan` on real models, against what a run actually does: the kernels of the CPU EP are
 * wrapped to record every output they return, so the test sees the arena buffer a run took (the one
 * ArrayBuffer the outputs share) and every output allocated outside it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { InferenceSession, Tensor, loadModel, nodeInputsWithCaptures, type ExecutionProvider, type KernelDef, type Kernel, type Node } from '@switchyard/core';
import { CpuExecutionProvider } from './cpu-provider.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const tinyCnn = join(repo, 'examples/models/tiny-cnn.onnx');
const squeezenet = join(repo, 'models/squeezenet1_1/model.onnx');
const mobilenet = join(repo, 'models/mobilenet_v2/model.onnx');
const scratch = mkdtempSync(join(tmpdir(), 'sy-memory-plan-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

interface Recorded {
  node: Node;
  outputs: Tensor[];
}

/** The CPU EP with every kernel's outputs recorded, in the order the kernels ran. */
function recordingCpu(): { ep: ExecutionProvider; runs: Recorded[] } {
  const runs: Recorded[] = [];
  const cpu = new CpuExecutionProvider();
  const wrap = (def: KernelDef): KernelDef => ({
    ...def,
    create: (init) => {
      const kernel = def.create(init);
      const recording: Kernel = Object.create(kernel) as Kernel;
      (recording as { run: Kernel['run'] }).run = (ctx) => {
        const result = kernel.run(ctx);
        const note = <T,>(outs: T): T => {
          runs.push({ node: ctx.node, outputs: (outs as unknown[]).filter((o): o is Tensor => o instanceof Tensor) });
          return outs;
        };
        return result instanceof Promise ? result.then(note) : note(result);
      };
      return recording;
    },
  });
  const ep = Object.create(cpu, { kernels: { value: cpu.kernels.map(wrap) } }) as ExecutionProvider;
  return { ep, runs };
}

const bufferOf = (t: Tensor): ArrayBufferLike | undefined => (t.data as { buffer?: ArrayBufferLike }).buffer;
const byteLengthOf = (t: Tensor): number => (t.data as { byteLength?: number }).byteLength ?? 0;

/** What one run allocated: the arena buffer its outputs share, and the outputs allocated outside it. */
function measure(runs: Recorded[], feeds: Record<string, Tensor>) {
  const fed = new Set(Object.values(feeds).map(bufferOf));
  const count = new Map<ArrayBufferLike, number>();
  for (const r of runs) for (const t of r.outputs) if (bufferOf(t)) count.set(bufferOf(t)!, (count.get(bufferOf(t)!) ?? 0) + 1);
  const [arena] = [...count].filter(([b]) => !fed.has(b)).sort((a, b) => b[1] - a[1])[0] ?? [undefined];
  const outside = new Map<string, number>();
  for (const r of runs) {
    r.outputs.forEach((t, k) => {
      const b = bufferOf(t);
      if (b !== arena && !fed.has(b!)) outside.set(r.node.outputs[k], byteLengthOf(t));
    });
  }
  return { arenaBytes: arena?.byteLength ?? 0, outside };
}

/**
 * The least any layout could reserve for the run's arena values: the largest total of values alive
 * at one step, from the sizes the run actually produced (a value lives from its node to its last reader).
 */
function liveLowerBound(runs: Recorded[], arenaBuffer: (t: Tensor) => boolean): number {
  const lastRead = new Map<string, number>();
  runs.forEach((r, step) => {
    for (const i of nodeInputsWithCaptures(r.node)) if (i) lastRead.set(i, step);
  });
  const deltas = new Float64Array(runs.length + 1);
  runs.forEach((r, step) => {
    r.outputs.forEach((t, k) => {
      if (!arenaBuffer(t)) return;
      const end = Math.max(step, lastRead.get(r.node.outputs[k]) ?? step);
      deltas[step] += byteLengthOf(t);
      deltas[end + 1] -= byteLengthOf(t);
    });
  });
  let live = 0;
  let peak = 0;
  for (let s = 0; s < runs.length; s++) peak = Math.max(peak, (live += deltas[s]));
  return peak;
}

async function initializerBytes(path: string): Promise<number> {
  const model = await loadModel(path);
  let total = 0;
  for (const t of model.graph.initializers.values()) total += (t.data as { byteLength: number }).byteLength;
  return total;
}

const input = (dims: number[]) => {
  const n = dims.reduce((a, b) => a * b, 1);
  return new Tensor('float32', Float32Array.from({ length: n }, (_, i) => Math.sin(i * 0.37)), dims);
};

describe('session.memoryPlan on real models (CPU EP)', () => {
  it.each([
    ['tiny-cnn (the shipped demo model)', tinyCnn, [1, 3, 32, 32]],
    ['mobilenet_v2', mobilenet, [1, 3, 224, 224]],
  ])('%s: host peak is the arena a run takes; weights are the initializers of the optimized model', async (_label, path, dims) => {
    const { ep, runs } = recordingCpu();
    const saved = join(scratch, `${_label.split(' ')[0]}.onnx`);
    const s = await InferenceSession.create(path, { executionProviders: [ep], disableCpuFallback: true, optimizedModelFilePath: saved });
    const plan = s.memoryPlan;
    const host = plan.devices[0];
    expect(plan.devices.map((d) => d.device)).toEqual(['cpu']);
    expect(plan.unresolvedDims).toEqual([]);
    expect(host.weightsBytes).toBe(await initializerBytes(saved));
    const feeds = { [s.inputNames[0]]: input(dims) };
    await s.run(feeds);
    const measured = measure(runs, feeds);
    expect(host.activationSource).toBe('arena');
    expect(host.activationBytes).toBe(measured.arenaBytes);
    // Outside the arena a run allocates only the graph outputs: the per-run figure, to the byte.
    expect([...measured.outside.keys()]).toEqual(s.outputNames);
    expect(host.perRunBytes).toBe([...measured.outside.values()].reduce((a, b) => a + b, 0));
    // No layout can do with less than the values alive together at one step (sizes as the run made
    // them). Measured here: tiny-cnn's arena is exactly that bound, MobileNetV2's 1.25x (best-fit gaps).
    const arenaOf = (t: Tensor) => byteLengthOf(t) > 0 && bufferOf(t)?.byteLength === measured.arenaBytes;
    const lower = liveLowerBound(runs, arenaOf);
    expect(host.activationBytes).toBeGreaterThanOrEqual(lower);
    expect(host.totalBytes).toBe(host.weightsBytes + host.activationBytes + host.perRunBytes);
    await s.release();
  });

  it('squeezenet (symbolic batch): unresolved until bound; memoryPlanFor scales with the batch and matches each run\'s arena', async () => {
    const { ep, runs } = recordingCpu();
    const saved = join(scratch, 'squeezenet.onnx');
    const s = await InferenceSession.create(squeezenet, { executionProviders: [ep], disableCpuFallback: true, optimizedModelFilePath: saved });
    const free = s.memoryPlan;
    expect(free.unresolvedDims).toEqual(['batch']);
    expect(free.unsized.length).toBeGreaterThan(10);
    expect(free.dims).toEqual({});
    const one = s.memoryPlanFor({ input: [1, 3, 224, 224] });
    const three = s.memoryPlanFor({ input: input([3, 3, 224, 224]) });
    expect(one.unresolvedDims).toEqual([]);
    expect(one.unsized).toEqual([]);
    expect(one.dims).toEqual({ batch: 1 });
    expect(three.dims).toEqual({ batch: 3 });
    const [h1, h3] = [one.devices[0], three.devices[0]];
    // Weights do not depend on the batch; every activation is three times larger (up to 64-byte alignment).
    expect(h3.weightsBytes).toBe(h1.weightsBytes);
    expect(h1.weightsBytes).toBe(await initializerBytes(saved));
    expect(h1.activationBytes).toBeGreaterThan(free.devices[0].activationBytes);
    expect(h3.activationBytes / h1.activationBytes).toBeCloseTo(3, 2);
    expect(h3.perRunBytes).toBe(3 * h1.perRunBytes);
    for (const [batch, expected] of [[1, h1], [3, h3]] as const) {
      runs.length = 0;
      const feeds = { input: input([batch, 3, 224, 224]) };
      await s.run(feeds);
      expect(measure(runs, feeds).arenaBytes).toBe(expected.activationBytes);
    }
    expect(() => s.memoryPlanFor({ input: [1, 3, 224] })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() => s.memoryPlanFor({ nope: [1] })).toThrow(/no input 'nope'/);
    await s.release();
    // freeDimensionOverrides fixes the size at creation: the same figure, with no binding needed.
    const fixed = await InferenceSession.create(squeezenet, { executionProviders: [new CpuExecutionProvider()], disableCpuFallback: true, freeDimensionOverrides: { batch: 3 } });
    expect(fixed.memoryPlan.dims).toEqual({ batch: 3 });
    expect(fixed.memoryPlan.unresolvedDims).toEqual([]);
    expect(fixed.memoryPlan.devices[0].activationBytes).toBe(h3.activationBytes);
    await fixed.release();
  });
});
