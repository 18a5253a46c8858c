/**
 * Real architectures (models/manifest.json, written by models/generate.py) on the CPU EP at each
 * graph optimization level, against PyTorch's own outputs. The small models are committed; the
 * large ones (ResNet-50, BERT-base, the public zoo of models/zoo_vision.py and zoo_custom.py) are
 * generated into models/generated/ when missing. Converted copies (float16, int8) are also held to
 * onnxruntime.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as ort from 'onnxruntime-node';
import { InferenceSession, Tensor, registerExecutionProvider, type GraphOptimizationLevel } from '@switchyard/core';
import { executionProviderFactory } from '../index.js';
import { describeOutcome, runCaseBounded, type BoundedOutcome } from './bounded-run.js';
import { convertedCopy, converterUnavailable } from './opset-conversion.js';
import {
  compare,
  fileOf,
  generate,
  generatorUnavailable,
  isPresent,
  modelPath,
  readManifest,
  readNpy,
  scaledDifference,
  type ModelEntry,
} from './reference-models.js';

// float32 through other summation orders (oneDNN's blocked GEMMs, our reductions) vs PyTorch, over
// up to 50 layers: a few ulps per op add up to ~1e-5; a wrong kernel is off by orders more.
const ATOL = 1e-4;
const RTOL = 1e-3;
const ALL_LEVELS: readonly GraphOptimizationLevel[] = ['disabled', 'basic', 'all'];
// The committed models, ResNet-50 and BERT run at every level; the zoo's large models
// (models/zoo_vision.py, zoo_custom.py) at the two ends only, which keeps the suite's time on 2 cores in bounds:
// 'disabled' checks the graph as exported, 'all' every rewrite at once.
const ZOO_LEVELS: readonly GraphOptimizationLevel[] = ['disabled', 'all'];
const levelsOf = (entry: ModelEntry) => (entry.committed || entry.name === 'resnet50' || entry.name === 'bert' ? ALL_LEVELS : ZOO_LEVELS);

/**
 * How close a converted copy must come. σ is the standard deviation of the output it is compared
 * with (the UNet's logits: σ ≈ 2.5), so the limits follow the output's scale. Numbers measured on the
 * shared 2-core machine when the copies were made (models/README.md).
 */
type Limits = { atolSigma: number; rtol: number } | { maxSigma: number; rmsSigma: number };
const CONVERSION_LIMITS: Record<string, { vsOrt: Limits; vsTorch: Limits }> = {
  // float16 keeps 11 significant bits (each rounding off by up to 2⁻¹¹ ≈ 4.9e-4 relative).
  // onnxruntime computes the float16 Convs in float32 behind Casts it inserts, an EP may round at
  // other points, and ~23 layers add such differences up: Switchyard (on a topologically sorted copy)
  // vs onnxruntime measured max 0.011σ, so 0.02σ + 1e-2·|x| element-wise. Against torch's float32
  // the float16 weights add their own rounding: max 0.014σ (onnxruntime), 0.018σ (Switchyard).
  float16: { vsOrt: { atolSigma: 0.02, rtol: 1e-2 }, vsTorch: { atolSigma: 0.05, rtol: 5e-2 } },
  // ConvInteger is exact (int32) and its float epilogue float32 in both runtimes, so most outputs are
  // bit-identical (97 % measured). But DynamicQuantizeLinear rounds x/scale to an integer: a 1-ulp
  // float difference upstream (another summation order in the float32 ConvTranspose) flips a value at
  // a .5 boundary by one quantization step, which moves the next layer by |w|·scale and may flip
  // more roundings downstream. So differences are sparse but a few steps deep: measured rms 0.0054σ,
  // max 0.175σ. Limits: rms 0.02σ, max 0.35σ; a wrong zero point, scale or rounding mode moves every
  // element and misses the rms by orders. Per-tensor uint8 over 19 Convs vs torch's float32:
  // rms 0.089σ, max 0.55σ (onnxruntime and Switchyard alike), so rms 0.15σ, max 1σ.
  'int8-dynamic': { vsOrt: { rmsSigma: 0.02, maxSigma: 0.35 }, vsTorch: { rmsSigma: 0.15, maxSigma: 1.0 } },
};

/**
 * Where the CPU EP fails today, per level (found by the zoo, left for the EP's owners; times from
 * the shared 2-core machine, for orientation). The test expects exactly that outcome, so a fix shows
 * up as a failing test that says to update the entry. These models and the converted copies run in
 * a child process (bounded-run.ts), so a crash or a hang cannot take the rest of this file down,
 * bounded at max(60 s, 10 × onnxruntime's time on the same case): "hopelessly slow" is relative to
 * what another runtime does on the same machine. A bounded run costs its whole bound, so a model that
 * times out at every level is bounded once ('not run' elsewhere).
 */
interface KnownFailure {
  outcome: RegExp | 'timeout' | 'crash' | 'not run';
  why: string;
}
const KNOWN_FAILURES: Record<string, Partial<Record<GraphOptimizationLevel, KnownFailure>>> = {
  unet_1024_fp16: {
    disabled: {
      outcome: 'timeout',
      why: "every node runs a float16 TypeScript kernel at this level (one run at 'basic' took 199 s, onnxruntime 5 s); from 'extended' up the body computes in float32 natively",
    },
  },
};
const BOUND_MIN_MS = 60_000;
/** The opset the converted copies are taken to (onnx 1.23's converter; models from current exporters). */
const NEW_OPSET = 21;
const BOUND_ORT_FACTOR = 10;

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
      'crnn_recognizer',
      'db_text_detector',
      'deeplabv3_mobilenet_v3_large',
      'efficientnet_b0',
      'gpt2_decoder',
      'lstm2',
      'mobilenet_v2',
      'mobilenet_v3_large',
      'modern_encoder',
      'modern_encoder_opset23',
      'resnet50',
      'squeezenet1_1',
      'unet_1024',
      'unet_1024_fp16',
      'unet_1024_int8',
      'vad_streaming',
      'vit_b_16',
    ]);
    for (const m of models.filter((e) => e.committed)) expect(isPresent(m), `${m.name}'s committed files`).toBe(true);
    // At least one model has a symbolic batch dim and two batch sizes to run it at.
    expect(models.some((m) => Object.keys(m.cases).length >= 2)).toBe(true);
    for (const m of models.filter((e) => e.conversion)) expect(CONVERSION_LIMITS[m.conversion!], `limits for ${m.conversion}`).toBeDefined();
  });
});

function feedsOf(entry: ModelEntry, caseName: string): Record<string, Tensor> {
  return Object.fromEntries(Object.entries(entry.cases[caseName].inputs).map(([name, file]) => [name, readNpy(fileOf(entry, file))]));
}

async function runModel(entry: ModelEntry, level: GraphOptimizationLevel, useNative = true, copy?: { path: string; label: string }): Promise<void> {
  const started = performance.now();
  const label = copy?.label ?? (useNative ? level : `${level}/ts`);
  const session = await InferenceSession.create(copy?.path ?? modelPath(entry), {
    executionProviders: [{ name: 'cpu', useNative }],
    graphOptimizationLevel: level,
    logSeverityLevel: 3,
  });
  const created = performance.now();
  try {
    expect(session.placement.providers.map((p) => p.name)).toEqual(['cpu']);
    for (const [caseName, files] of Object.entries(entry.cases)) {
      const feeds = feedsOf(entry, caseName);
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

// ---------------------------------------------------------------- bounded runs: converted copies, known failures

interface OrtRun {
  ms: number;
  outputs: Record<string, Tensor>;
}
const ortRuns = new Map<string, Promise<Record<string, OrtRun>>>();

/** onnxruntime's outputs for every case of the model, computed once. */
function ortOutputs(entry: ModelEntry): Promise<Record<string, OrtRun>> {
  let runs = ortRuns.get(entry.name);
  if (!runs) {
    runs = (async () => {
      const session = await ort.InferenceSession.create(modelPath(entry), { logSeverityLevel: 3 });
      try {
        const result: Record<string, OrtRun> = {};
        for (const caseName of Object.keys(entry.cases)) {
          const feeds = Object.fromEntries(Object.entries(feedsOf(entry, caseName)).map(([n, t]) => [n, new ort.Tensor(t.type as ort.Tensor.Type, t.data as ort.Tensor.DataType, t.dims)]));
          const started = performance.now();
          const out = await session.run(feeds);
          const ms = performance.now() - started;
          // Float32 outputs only: the converters keep float32 inputs and outputs (int8 only inside).
          result[caseName] = { ms, outputs: Object.fromEntries(Object.entries(out).map(([n, t]) => [n, new Tensor('float32', t.data as Float32Array, t.dims)])) };
        }
        return result;
      } finally {
        await session.release();
      }
    })();
    ortRuns.set(entry.name, runs);
  }
  return runs;
}

/** Throws unless `actual` is within `limits` of `expected`; returns the result line. */
function checkLimits(what: string, actual: Tensor, expected: Tensor, limits: Limits): string {
  expect(actual.dims, `${what} dims`).toEqual(expected.dims);
  const d = scaledDifference(actual, expected);
  const line = `max ${d.max.toExponential(2)}σ rms ${d.rms.toExponential(2)}σ (σ ${d.sigma.toPrecision(3)})`;
  if ('atolSigma' in limits) {
    const c = compare(actual, expected, limits.atolSigma * d.sigma, limits.rtol);
    if (c.failures) throw new Error(`${what}: ${c.failures} of ${expected.size} elements outside ${limits.atolSigma}σ + ${limits.rtol}·|x|, ${line}; ${c.firstFailures.join('; ')}`);
  } else if (!(d.max <= limits.maxSigma && d.rms <= limits.rmsSigma)) {
    throw new Error(`${what}: ${line}, limits max ${limits.maxSigma}σ rms ${limits.rmsSigma}σ`);
  }
  return line;
}

async function ortMatchesTorch(entry: ModelEntry): Promise<void> {
  const runs = await ortOutputs(entry);
  for (const [caseName, files] of Object.entries(entry.cases)) {
    for (const [name, file] of Object.entries(files.outputs)) {
      const line = checkLimits(`onnxruntime ${entry.name} ${caseName} ${name} vs torch`, runs[caseName].outputs[name], readNpy(fileOf(entry, file)), CONVERSION_LIMITS[entry.conversion!].vsTorch);
      results.push(`  ${entry.name.padEnd(28)} onnxruntime ${caseName.padEnd(7)} ${name.padEnd(17)} vs torch ${line}, run ${runs[caseName].ms.toFixed(0)} ms`);
    }
  }
}

function asKnown(known: KnownFailure, outcome: BoundedOutcome): boolean {
  if (known.outcome instanceof RegExp) return outcome.kind === 'error' && known.outcome.test(outcome.message);
  return outcome.kind === known.outcome;
}

/**
 * The CPU EP in a bounded child process: a converted copy against onnxruntime (tight) and torch
 * (loose), another model against torch as runModel does; or the known failure.
 */
async function runBounded(entry: ModelEntry, level: GraphOptimizationLevel): Promise<void> {
  const known = KNOWN_FAILURES[entry.name]?.[level];
  const runs = await ortOutputs(entry);
  for (const [caseName, files] of Object.entries(entry.cases)) {
    const ortMs = runs[caseName].ms;
    const bound = Math.max(BOUND_MIN_MS, BOUND_ORT_FACTOR * ortMs);
    const inputs = Object.fromEntries(Object.entries(files.inputs).map(([name, file]) => [name, fileOf(entry, file)]));
    const outcome = await runCaseBounded(modelPath(entry), level, inputs, bound);
    const label = `  ${entry.name.padEnd(28)} ${level.padEnd(11)} ${caseName.padEnd(7)}`;
    const seen = `${describeOutcome(outcome)} (bound ${(bound / 1000).toFixed(0)} s; onnxruntime ${(ortMs / 1000).toFixed(1)} s)`;
    if (known) {
      results.push(`${label} KNOWN FAILURE: ${seen}`);
      if (!asKnown(known, outcome)) throw new Error(`${entry.name} (${level}) was expected to fail (${known.why}) but: ${seen}. If the EP now handles it, update KNOWN_FAILURES.`);
      continue;
    }
    if (outcome.kind !== 'ok') throw new Error(`${entry.name} (${level}) ${caseName}: ${seen}`);
    for (const [name, file] of Object.entries(files.outputs)) {
      const expected = readNpy(fileOf(entry, file));
      const actual = outcome.outputs[name];
      if (entry.conversion) {
        const limits = CONVERSION_LIMITS[entry.conversion];
        const vsOrt = checkLimits(`${entry.name} (${level}) ${caseName} ${name} vs onnxruntime`, actual, runs[caseName].outputs[name], limits.vsOrt);
        const vsTorch = checkLimits(`${entry.name} (${level}) ${caseName} ${name} vs torch`, actual, expected, limits.vsTorch);
        results.push(`${label} ${name.padEnd(17)} vs onnxruntime ${vsOrt}; vs torch ${vsTorch}; ${seen}`);
        continue;
      }
      expect(actual.dims).toEqual(expected.dims);
      const c = compare(actual, expected, ATOL, RTOL);
      results.push(`${label} ${name.padEnd(17)} max abs ${c.maxAbs.toExponential(2)}  max rel ${c.maxRel.toExponential(2)}  ${seen}`);
      if (c.failures) throw new Error(`${entry.name} (${level}) ${caseName} ${name}: ${c.failures} of ${expected.size} elements outside tolerance; ${c.firstFailures.join('; ')}`);
    }
  }
}

for (const entry of models) {
  const skipReason = !entry.committed && !isPresent(entry) ? cannotGenerate : undefined;
  describe.skipIf(skipReason !== undefined)(`${entry.name}: ${entry.description}`, () => {
    const bounded = entry.conversion !== undefined || KNOWN_FAILURES[entry.name] !== undefined;
    for (const level of levelsOf(entry)) {
      const known = KNOWN_FAILURES[entry.name]?.[level];
      if (known?.outcome === 'not run') {
        it.skip(`not run at '${level}': ${known.why}`, () => {});
      } else if (known && process.env.SWITCHYARD_SKIP_KNOWN_FAILURES) {
        // scripts/test.sh's AVX2-capped pass: a known failure is the TypeScript kernels' speed at that
        // level, the same on every ISA (checked once, in the main pass; it runs up to its bound, ~60 s).
        it.skip(`fails as known at '${level}' (checked in the uncapped pass): ${known.why}`, () => {});
      } else if (bounded) {
        const check = entry.conversion ? 'matches onnxruntime (tight) and torch (loose)' : 'matches torch (in a child process)';
        it(known ? `fails as known at '${level}': ${known.why}` : `${check} at graphOptimizationLevel '${level}'`, { timeout: 15 * 60_000 }, () => runBounded(entry, level));
      } else {
        it(`matches torch at graphOptimizationLevel '${level}'`, { timeout: 10 * 60_000 }, () => runModel(entry, level));
      }
    }
    if (entry.conversion) {
      it(`onnxruntime's run of the converted file stays near torch's float32 outputs`, { timeout: 10 * 60_000 }, () => ortMatchesTorch(entry));
    }
    // The TypeScript kernels are the EP's ground truth where oneDNN is missing; on 2 cores they take
    // ~7 s for the small models but ~2 min for ResNet-50 at batch 8 and ~30 s for BERT, so the large
    // models run them only through oneDNN's fast paths (their TS-only check: see models/README.md).
    if (entry.committed) {
      it(`matches torch with TypeScript kernels only (useNative: false)`, { timeout: 10 * 60_000 }, () => runModel(entry, 'all', false));
    }
    // The float32 exports again, converted to opset 21 by onnx 1.23's version converter and saved at
    // its IR version (14). (The float16 and int8 copies are conversions already; their limits are
    // relative to onnxruntime, so they stay at the exporter's opset.)
    // scripts/test.sh's second, AVX2-capped pass sets SWITCHYARD_SKIP_OPSET_COPIES: the copies run the
    // same kernels as the originals, so once per CI run is enough.
    // (The current exporter's files are at opset 20 and 23 already.)
    if (!entry.conversion && !entry.exporter && !process.env.SWITCHYARD_SKIP_OPSET_COPIES) {
      const why = converterUnavailable();
      it.skipIf(why !== undefined)(`its opset ${NEW_OPSET} copy (onnx 1.23 version converter, IR 14) matches torch at 'all'${why ? ` — skipped: ${why}` : ''}`, { timeout: 10 * 60_000 }, () =>
        runModel(entry, 'all', true, { path: convertedCopy(entry.name, modelPath(entry), NEW_OPSET), label: `opset${NEW_OPSET}/all` }));
    }
  });
  if (skipReason) {
    it.skip(`${entry.name} skipped: it is not generated and models/generate.py cannot run here: ${skipReason}`, () => {});
  }
}
