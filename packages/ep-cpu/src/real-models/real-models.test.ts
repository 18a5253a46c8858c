/**
 * Real architectures (models/manifest.json, written by models/generate.py) on the CPU EP at each
 * graph optimization level, against PyTorch's own outputs. The small models are committed; the
 * large ones (ResNet-50, BERT-base and the public zoo of models/zoo_vision.py) are generated into
 * models/generated/ when missing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InferenceSession, Tensor, registerExecutionProvider, type GraphOptimizationLevel } from '@switchyard/core';
import { executionProviderFactory } from '../index.js';
import { compare, fileOf, generate, generatorUnavailable, isPresent, modelPath, readManifest, readNpy, type ModelEntry } from './reference-models.js';

// float32 through other summation orders (oneDNN's blocked GEMMs, our reductions) vs PyTorch, over
// up to 50 layers: a few ulps per op add up to ~1e-5; a wrong kernel is off by orders more.
const ATOL = 1e-4;
const RTOL = 1e-3;
const ALL_LEVELS: readonly GraphOptimizationLevel[] = ['disabled', 'basic', 'all'];
// The committed models, ResNet-50 and BERT run at every level; the zoo's large models
// (models/zoo_vision.py) at the two ends only, which keeps the suite's time on 2 cores in bounds:
// 'disabled' checks the graph as exported, 'all' every rewrite at once.
const ZOO_LEVELS: readonly GraphOptimizationLevel[] = ['disabled', 'all'];
const levelsOf = (entry: ModelEntry) => (entry.committed || entry.name === 'resnet50' || entry.name === 'bert' ? ALL_LEVELS : ZOO_LEVELS);

const models = readManifest();
const missing = models.filter((m) => !isPresent(m));
const cannotGenerate = missing.some((m) => !m.committed) ? generatorUnavailable() : undefined;
const results: string[] = [];

beforeAll(() => {
  registerExecutionProvider(executionProviderFactory);
  const toGenerate = missing.filter((m) => !m.committed).map((m) => m.name);
  if (toGenerate.length && !cannotGenerate) generate(toGenerate);
}, 15 * 60_000);

afterAll(() => {
  if (results.length) console.log(`real models vs torch (atol ${ATOL}, rtol ${RTOL}):\n${results.join('\n')}`);
});

describe('models/manifest.json', () => {
  it('lists the architectures the issue asks for, the committed ones present', () => {
    expect(models.map((m) => m.name).sort()).toEqual([
      'bert',
      'convnext_tiny',
      'deeplabv3_mobilenet_v3_large',
      'efficientnet_b0',
      'gpt2_decoder',
      'lstm2',
      'mobilenet_v2',
      'mobilenet_v3_large',
      'resnet50',
      'squeezenet1_1',
      'vit_b_16',
    ]);
    for (const m of models.filter((e) => e.committed)) expect(isPresent(m), `${m.name}'s committed files`).toBe(true);
    // At least one model has a symbolic batch dim and two batch sizes to run it at.
    expect(models.some((m) => Object.keys(m.cases).length >= 2)).toBe(true);
  });
});

async function runModel(entry: ModelEntry, level: GraphOptimizationLevel, useNative = true): Promise<void> {
  const started = performance.now();
  const label = useNative ? level : `${level}/ts`;
  const session = await InferenceSession.create(modelPath(entry), {
    executionProviders: [{ name: 'cpu', useNative }],
    graphOptimizationLevel: level,
    logSeverityLevel: 3,
  });
  const created = performance.now();
  try {
    expect(session.placement.providers.map((p) => p.name)).toEqual(['cpu']);
    for (const [caseName, files] of Object.entries(entry.cases)) {
      const feeds = Object.fromEntries(Object.entries(files.inputs).map(([name, file]) => [name, readNpy(fileOf(entry, file))]));
      const caseStart = performance.now();
      const outputs = await session.run(feeds);
      const ms = performance.now() - caseStart;
      for (const [name, file] of Object.entries(files.outputs)) {
        const expected = readNpy(fileOf(entry, file));
        const actual = outputs[name];
        expect(actual, `${entry.name} ${caseName} output ${name}`).toBeInstanceOf(Tensor);
        const got = actual as Tensor;
        expect(got.type).toBe('float32');
        expect(got.dims).toEqual(expected.dims);
        const c = compare(got, expected, ATOL, RTOL);
        results.push(
          `  ${entry.name.padEnd(28)} ${label.padEnd(11)} ${caseName.padEnd(7)} ${name.padEnd(17)} max abs ${c.maxAbs.toExponential(2)}  max rel ${c.maxRel.toExponential(2)}  run ${ms.toFixed(0)} ms`,
        );
        if (c.failures) {
          throw new Error(`${entry.name} (${label}) ${caseName} ${name}: ${c.failures} of ${expected.size} elements outside tolerance, max abs ${c.maxAbs}; ${c.firstFailures.join('; ')}`);
        }
      }
    }
    results.push(`  ${entry.name.padEnd(28)} ${label.padEnd(11)} session create ${(created - started).toFixed(0)} ms, total ${(performance.now() - started).toFixed(0)} ms (${session.providers[0].describe?.()})`);
  } finally {
    await session.release();
  }
}

for (const entry of models) {
  const skipReason = !entry.committed && !isPresent(entry) ? cannotGenerate : undefined;
  describe.skipIf(skipReason !== undefined)(`${entry.name}: ${entry.description}`, () => {
    for (const level of levelsOf(entry)) {
      it(`matches torch at graphOptimizationLevel '${level}'`, { timeout: 10 * 60_000 }, () => runModel(entry, level));
    }
    // The TypeScript kernels are the EP's ground truth where oneDNN is missing; on 2 cores they take
    // ~7 s for the small models but ~2 min for ResNet-50 at batch 8 and ~30 s for BERT, so the large
    // models run them only through oneDNN's fast paths (their TS-only check: see models/README.md).
    if (entry.committed) {
      it(`matches torch with TypeScript kernels only (useNative: false)`, { timeout: 10 * 60_000 }, () => runModel(entry, 'all', false));
    }
  });
  if (skipReason) {
    it.skip(`${entry.name} skipped: it is not generated and models/generate.py cannot run here: ${skipReason}`, () => {});
  }
}
