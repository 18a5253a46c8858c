/**
 * Differential test of the optimizer: seeded random graphs (`randomModel` from core's testing entry)
 * run on the CPU EP at 'basic', 'extended' and 'all' must compute what they compute at 'disabled',
 * with the oneDNN addon and without it.
 *
 * The graphs mix broadcasting arithmetic, shape chains, convolutions, matmuls, normalizations, the
 * chains every CPU fusion matches (and near misses it must leave alone), repeated subexpressions,
 * foldable constants, dead branches, If nodes, several outputs, and nodes shuffled in the file.
 *
 * Tolerance: outputs the generator knows are exact (integers, float16, elements only moved or selected)
 * must match bit for bit. Other float outputs may differ by 1e-4 of (1 + the output's largest
 * magnitude): fusions round differently by design (BatchNormalization folded into the weights, bias
 * added inside the matmul, LayerNorm and GELU in one kernel, a Winograd or blocked convolution where
 * 'disabled' runs a plain one). Over 6,000 graphs without the addon and 5,500 with it (AVX-512, and
 * 1,000 capped to AVX2) the largest such difference was 2e-5 of that scale (a LayerNorm over two
 * elements with epsilon 1e-12, ill-conditioned by nature), mostly under 1e-6; a real fusion bug (a
 * wrong axis, bias or broadcast) is off by O(1).
 *
 * SWITCHYARD_DIFF_GRAPHS=n runs n graphs in each mode (default: 300 without the addon, 100 with it,
 * whose per-shape primitive creation makes each graph slower); SWITCHYARD_DIFF_SEED=s starts at seed s.
 */
import { describe, expect, it } from 'vitest';
import { compareOptimizationLevels, randomModel } from '@switchyard/core/testing';
import { CpuExecutionProvider } from './cpu-provider.js';

const TOLERANCE = 1e-4;
const requested = Number(process.env.SWITCHYARD_DIFF_GRAPHS ?? 0);
const FIRST_SEED = Number(process.env.SWITCHYARD_DIFF_SEED ?? 1);
const hasAddon = new CpuExecutionProvider().nativeUnavailable === undefined;

const modes = [
  { useNative: false, graphs: requested || 300 },
  ...(hasAddon ? [{ useNative: true, graphs: requested || 100 }] : []),
];

describe.each(modes)('optimization levels agree with disabled on random graphs (oneDNN addon: $useNative)', ({ useNative, graphs }) => {
  it(`${graphs} graphs from seed ${FIRST_SEED}`, async () => {
    const problems: string[] = [];
    const fired = new Set<string>();
    for (let seed = FIRST_SEED; seed < FIRST_SEED + graphs; seed++) {
      const result = await compareOptimizationLevels(() => randomModel(seed), {
        // Half the seeds with small Gemm/Softmax problems in TS (the default), half all in oneDNN.
        providers: () => [new CpuExecutionProvider({ useNative, smallOpsInTs: seed % 2 === 0 })],
        tolerance: TOLERANCE,
        // Half through the loader (encoded bytes), half through fromModel.
        viaBytes: seed % 2 === 1,
      });
      for (const p of result.problems) problems.push(`seed ${seed}: ${p}`);
      for (const name of result.firedPasses) fired.add(name);
    }
    expect(problems).toEqual([]);
    // The generator must keep producing what every pass looks for, or this test proves little.
    if (graphs >= 100) {
      const passes = ['constant-folding', 'identity-elimination', 'common-subexpression-elimination', 'dead-code-elimination'];
      for (const pass of new CpuExecutionProvider({ useNative }).graphPasses ?? []) passes.push(pass.name);
      // The generator builds float graphs only; the quantized fusions are held to their unfused graphs
      // (bit-identical, or within one quantization step) by quantized-fusions.test.ts and quantized-ort.test.ts.
      const notGenerated = new Set(['cpu:dynamic-quantize-fusion', 'cpu:qdq-fusion']);
      expect(passes.filter((p) => !fired.has(p) && !notGenerated.has(p))).toEqual([]);
    }
    // Generous: about 0.3 s a graph with the addon on the shared 2-core machine, 0.05 s without.
  }, Math.max(600_000, graphs * 2_000));
});
