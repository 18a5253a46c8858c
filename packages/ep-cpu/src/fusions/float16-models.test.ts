/**
 * Converter-style float16 models exported from torch (models/float16.py, written into a temporary
 * folder: a small segmentation CNN and two transformer encoder layers), on the CPU EP at every level,
 * against onnxruntime-node on the same file, and with their heavy ops on oneDNN from 'extended' on.
 *
 * How close. onnxruntime-node computes these in float32 too, but keeps a few ops in float16 (its
 * optimized transformer holds float16 LayerNormalization, Transpose and Reshape), so 'extended' and
 * 'all' sit within a few float16 steps of it (float16-models.test-util.ts: measured ≤ 0.96 steps,
 * the CNN 0; allowed 4). At 'disabled' and 'basic' every one of the tens of ops on the path rounds
 * to float16: measured ≤ 1.71 steps from ORT and ≤ 1.27 from 'all'; allowed 8.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Tensor, loadModel, type Graph } from '@switchyard/core';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { MODELS_DIR, PYTHON, generatorUnavailable } from '../real-models/reference-models.js';
import { tensor } from './test-models.test-util.js';
import { LEVELS, float16Steps, runAtLevel, stepsApart, type LevelRun } from './float16-models.test-util.js';

const unavailable = generatorUnavailable();
const native = new CpuExecutionProvider().nativeUnavailable === undefined;
/** Ops that must run on oneDNN once the model computes in float32 (their fused and blocked forms too). */
const HEAVY = /^(Conv|FusedConv|BlockedConv|ConvTranspose|MatMul|FusedMatMul|StridedMatMul|Gemm|MaxPool|AveragePool|SkipLayerNormalization|LayerNormalization|Gelu|Softmax)$/;
const CLOSE_TO_ORT = 4;
const ROUNDED_EVERY_OP = 8;

interface Case {
  name: string;
  feeds: () => Record<string, Tensor>;
}

const CASES: Case[] = [
  { name: 'cnn', feeds: () => ({ image: tensor([1, 3, 32, 32], 101) }) },
  {
    name: 'transformer',
    feeds: () => ({ x: tensor([1, 16, 64], 102), mask: new Tensor('float32', Float32Array.from({ length: 16 }, (_, i) => (i < 12 ? 1 : 0)), [1, 16]) }),
  },
];

let dir = '';

async function runOrt(file: string, feeds: Record<string, Tensor>): Promise<Record<string, Tensor>> {
  const session = await ort.InferenceSession.create(file, { executionProviders: ['cpu'], graphOptimizationLevel: 'all' });
  try {
    const ortFeeds = Object.fromEntries(Object.entries(feeds).map(([k, t]) => [k, new ort.Tensor('float32', t.data as Float32Array, [...t.dims])]));
    const out = await session.run(ortFeeds);
    return Object.fromEntries(Object.entries(out).map(([k, t]) => [k, new Tensor('float32', t.data as Float32Array, [...t.dims])]));
  } finally {
    await session.release();
  }
}

function stepsFromOrt(run: LevelRun, reference: Record<string, Tensor>): number {
  return Math.max(...Object.keys(reference).map((name) => float16Steps(run.outputs[name], reference[name])));
}

/** Whether a graph's nodes come in topological order (each input defined before its reader). */
function isSorted(graph: Graph): boolean {
  const defined = new Set<string>(['', ...graph.inputs.map((i) => i.name), ...graph.initializers.keys()]);
  for (const node of graph.nodes) {
    if (!node.inputs.every((i) => defined.has(i))) return false;
    for (const o of node.outputs) defined.add(o);
  }
  return true;
}

describe.skipIf(unavailable !== undefined)('converter-style float16 models from torch', () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'switchyard-fp16-'));
    const run = spawnSync(PYTHON, [join(MODELS_DIR, 'float16.py'), dir, ...CASES.map((c) => c.name)], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`models/float16.py failed (${run.error?.message ?? `exit ${run.status}`}):\n${run.stderr}`);
  }, 120_000);
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  describe.each(CASES)('$name', ({ name, feeds }) => {
    it('agrees with onnxruntime-node at every level and runs float32 on oneDNN from extended on', { timeout: 120_000 }, async () => {
      const file = join(dir, `${name}_fp16.onnx`);
      const bytes = readFileSync(file);
      const reference = await runOrt(file, feeds());
      const runs: Record<string, LevelRun> = {};
      for (const level of LEVELS) runs[level] = await runAtLevel(() => new Uint8Array(bytes), feeds(), level);
      for (const level of ['disabled', 'basic'] as const) {
        expect(stepsFromOrt(runs[level], reference), level).toBeLessThanOrEqual(ROUNDED_EVERY_OP);
        expect(runs[level].inputTypes.flat(), level).toContain('float16');
      }
      for (const level of ['extended', 'all'] as const) {
        const r = runs[level];
        expect(stepsFromOrt(r, reference), level).toBeLessThanOrEqual(CLOSE_TO_ORT);
        expect(stepsApart(r, runs.disabled), level).toBeLessThanOrEqual(ROUNDED_EVERY_OP);
        // The converter's Casts (inputs, outputs, around the ops it keeps float32) all collapsed.
        expect(r.ops, level).not.toContain('Cast');
        expect(r.inputTypes.flat(), level).not.toContain('float16');
        expect(r.fired.slice(0, 2), level).toEqual(['cpu:float16-in-float32', 'cpu:cast-pair-collapse']);
        const heavy = r.placed.filter((p) => HEAVY.test(p.split(':')[0]));
        expect(heavy.length, level).toBeGreaterThan(4);
        // Native kernels are named by their path (onednn, or the addon's own im2col/winograd on AVX2).
        if (native) expect(heavy.filter((p) => p.endsWith(':ts')), level).toEqual([]);
      }
    });

    // The converter appends its Casts after every other node; core sorts nodes on load, so that order runs.
    it('runs the converter’s unsorted node order like the sorted one (core sorts nodes on load)', { timeout: 120_000 }, async () => {
      const unsorted = new Uint8Array(readFileSync(join(dir, `${name}_fp16_unsorted.onnx`)));
      expect(isSorted((await loadModel(unsorted)).graph)).toBe(true);
      const sorted = new Uint8Array(readFileSync(join(dir, `${name}_fp16.onnx`)));
      for (const level of ['disabled', 'all'] as const) {
        const a = await runAtLevel(() => unsorted, feeds(), level);
        const b = await runAtLevel(() => sorted, feeds(), level);
        expect(stepsApart(a, b), level).toBe(0);
        expect(a.ops.filter((o) => o === 'Cast').length, level).toBe(b.ops.filter((o) => o === 'Cast').length);
      }
    });
  });
});
