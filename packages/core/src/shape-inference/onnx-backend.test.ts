/**
 * Cross-check against the ONNX backend test data: every node-test model is loaded, its declared output
 * (and intermediate) types are stripped, `inferShapes` runs, and every output it infers fully — element
 * type and static shape — must match test_data_set_0's reference outputs; partly inferred outputs must
 * agree in element type, rank and every known dim.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeTensor, loadModel } from '../onnx/index.js';
import { formatShape, isStaticShape } from './dims.js';
import { inferShapes } from './infer.js';

const DATA = '/usr/share/libonnx-testdata/data';
/**
 * Each suite with the share of tensor outputs that must come out fully inferred: a guard against a
 * silent collapse. `simple` feeds most shapes as graph inputs, so little of it is static.
 */
const SUITES: Array<[suite: string, minFullyInferred: number]> = [
  ['node', 0.8],
  ['pytorch-converted', 0.9],
  ['pytorch-operator', 0.9],
  ['simple', 0.3],
];

/**
 * Known-wrong cases, each with the reason. Keep it short: a new entry needs a reason that is about
 * the test data, not about our rules.
 */
const BFLOAT16_AS_UINT16 = 'the model declares a bfloat16 output; ONNX 1.12 stored the reference as uint16 bits';
const SKIP = new Map<string, string>([
  ['test_cast_FLOAT_to_BFLOAT16', BFLOAT16_AS_UINT16],
  ['test_castlike_FLOAT_to_BFLOAT16', BFLOAT16_AS_UINT16],
  ['test_castlike_FLOAT_to_BFLOAT16_expanded', BFLOAT16_AS_UINT16],
]);

interface Tally {
  models: number;
  loadFailures: string[];
  tensorOutputs: number;
  fullyInferred: number;
  mismatches: string[];
  /** Outputs left partly unknown (printed when SHAPE_INFERENCE_REPORT is set). */
  partial: string[];
}

async function crossCheck(dir: string, tally: Tally): Promise<void> {
  const name = path.basename(dir);
  const modelPath = path.join(dir, 'model.onnx');
  const dataDir = path.join(dir, 'test_data_set_0');
  if (!existsSync(modelPath) || !existsSync(dataDir)) return;
  let model;
  try {
    model = await loadModel(modelPath);
  } catch (e) {
    tally.loadFailures.push(`${name}: ${e instanceof Error ? e.message : String(e)}`);
    return;
  }
  tally.models++;
  const g = model.graph;
  const declared = g.outputs.map((o) => o.type);
  for (const o of g.outputs) o.type = undefined;
  g.valueInfo.clear();
  inferShapes(g);
  g.outputs.forEach((output, i) => {
    if (declared[i]?.kind !== 'tensor') return;
    const file = path.join(dataDir, `output_${i}.pb`);
    if (!existsSync(file)) return;
    tally.tensorOutputs++;
    const inferred = g.valueInfo.get(output.name)?.type ?? g.typeOf(output.name);
    const full = inferred?.kind === 'tensor' && isStaticShape(inferred.shape);
    if (full) tally.fullyInferred++;
    else {
      const shown = inferred?.kind === 'tensor' ? `${inferred.elemType}${formatShape(inferred.shape)}` : inferred?.kind ?? 'unknown';
      tally.partial.push(`${name} output ${i}: ${shown}`);
    }
    if (inferred?.kind !== 'tensor' || SKIP.has(name)) return;
    // Partly inferred outputs are checked too: element type, rank, and every dim that is a number.
    const expected = decodeTensor(readFileSync(file));
    const shape = inferred.shape;
    const agrees =
      inferred.elemType === expected.type &&
      (!shape || (shape.length === expected.dims.length && shape.every((d, k) => typeof d !== 'number' || d === expected.dims[k])));
    if (!agrees) {
      tally.mismatches.push(
        `${name} output ${i} '${output.name}': inferred ${inferred.elemType}${formatShape(shape)}, ` +
          `reference ${expected.type}${formatShape(expected.dims)}`,
      );
    }
  });
}

describe('inferShapes against the ONNX backend test data', () => {
  it.each(SUITES)('%s: every fully inferred output matches the reference', async (suite, minFullyInferred) => {
    const root = path.join(DATA, suite);
    if (!existsSync(root)) return; // libonnx-testdata not installed: nothing to compare against
    const tally: Tally = { models: 0, loadFailures: [], tensorOutputs: 0, fullyInferred: 0, mismatches: [], partial: [] };
    for (const d of readdirSync(root).sort()) await crossCheck(path.join(root, d), tally);
    console.log(
      `shape inference, ${suite}: ${tally.fullyInferred}/${tally.tensorOutputs} tensor outputs fully inferred ` +
        `over ${tally.models} models (${tally.loadFailures.length} not loadable)`,
    );
    if (process.env.SHAPE_INFERENCE_REPORT) console.log(tally.partial.join('\n'));
    expect(tally.mismatches).toEqual([]);
    expect(tally.fullyInferred).toBeGreaterThan(tally.tensorOutputs * minFullyInferred);
  });
});
