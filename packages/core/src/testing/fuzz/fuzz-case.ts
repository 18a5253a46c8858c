/**
 * One fuzz case from (seed, index) alone, so a worker can start at any index and a failure can be
 * replayed by its seed and index: the model bytes, the files beside it, the feeds, and — where the
 * case knows it — what a successful run must return.
 */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { GraphOptimizationLevel } from '../../optimize/types.js';
import { encodeModel } from '../../onnx/encode-model.js';
import { Tensor } from '../../tensor/tensor.js';
import { Random } from '../random-graph/random.js';
import { randomModel } from '../random-graph/random-model.js';
import { externalDataCase, nestedIfModel, randomMessage, type CaseFile, type Expected } from './hostile-models.js';
import { mutateAnyField, mutateTargeted } from './mutations.js';
import { parseMessage, serializeMessage } from './proto-tree.js';

export const CONFORMANCE_ROOT = '/usr/share/libonnx-testdata/data/node';

/** How the runner makes feeds once the session tells it the inputs. */
export type FeedPlan =
  /** The conformance test's `test_data_set_0` inputs (synthesised where they do not decode). */
  | { kind: 'test-data'; dir: string; extremes?: boolean }
  /** Random values shaped by the session's input metadata (symbolic dims 1 to 4). */
  | { kind: 'synthesised' }
  /** Deliberately wrong: another dtype, rank or name, a missing input, a sequence for a tensor. */
  | { kind: 'wrong' }
  | { kind: 'given'; feeds: Record<string, Tensor> };

export interface FuzzCase {
  index: number;
  kind: string;
  /** What was done to the model, for the report. */
  what: string;
  model: Uint8Array;
  /** Files to lay out in the case folder (the model then loads from `model/model.onnx`). */
  files?: CaseFile[];
  feeds: FeedPlan;
  level: GraphOptimizationLevel;
  expected?: Expected;
  /** Also run at 'disabled': every output must agree with it (an unmutated random graph). */
  differential?: boolean;
  /** The run's random source (synthesised and wrong feeds). */
  rng: Random;
}

let conformanceDirs: string[] | undefined;
const modelBytes = new Map<string, Uint8Array>();

function conformanceModels(): string[] {
  conformanceDirs ??= existsSync(CONFORMANCE_ROOT)
    ? readdirSync(CONFORMANCE_ROOT)
        .sort()
        .map((d) => join(CONFORMANCE_ROOT, d))
        .filter((d) => existsSync(join(d, 'model.onnx')))
    : [];
  return conformanceDirs;
}

function conformanceModel(rng: Random): { dir: string; bytes: Uint8Array } {
  const dirs = conformanceModels();
  if (!dirs.length) throw new Error(`fuzz: no conformance models under ${CONFORMANCE_ROOT}`);
  const dir = rng.pick(dirs);
  let bytes = modelBytes.get(dir);
  if (!bytes) modelBytes.set(dir, (bytes = new Uint8Array(readFileSync(join(dir, 'model.onnx')))));
  return { dir, bytes };
}

/** Seeds of neighbouring cases must not give correlated streams: mix (seed, index) first. */
function caseSeed(seed: number, index: number): number {
  let h = (seed ^ 0x9e3779b9) >>> 0;
  h = Math.imul(h ^ index, 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

const LEVELS: readonly GraphOptimizationLevel[] = ['disabled', 'basic', 'extended', 'all'];

function feedPlanFor(rng: Random, dir: string): FeedPlan {
  const roll = rng.next();
  if (roll < 0.7 && existsSync(join(dir, 'test_data_set_0'))) return { kind: 'test-data', dir: join(dir, 'test_data_set_0'), extremes: rng.chance(0.25) };
  return roll < 0.9 ? { kind: 'synthesised' } : { kind: 'wrong' };
}

function mutateModel(rng: Random, bytes: Uint8Array): { bytes: Uint8Array; what: string } {
  const tree = parseMessage(bytes, 'Model');
  if (!tree) return { bytes, what: 'unparsable' };
  const steps: string[] = [];
  for (let k = rng.weighted([[1, 5], [2, 3], [3, 2], [6, 1]] as const); k > 0; k--) steps.push(rng.chance(0.5) ? mutateTargeted(rng, tree) : mutateAnyField(rng, tree));
  return { bytes: serializeMessage(tree), what: steps.join('; ') };
}

type Kind = 'mutated' | 'truncated' | 'bit-flips' | 'random-bytes' | 'random-protobuf' | 'nested-if' | 'external-data' | 'random-graph' | 'mutated-random-graph' | 'wrong-feeds' | 'clean';

const KINDS: ReadonlyArray<readonly [Kind, number]> = [
  ['mutated', 36],
  ['truncated', 7],
  ['bit-flips', 6],
  ['random-bytes', 3],
  ['random-protobuf', 5],
  ['nested-if', 3],
  ['external-data', 8],
  ['random-graph', 2],
  ['mutated-random-graph', 8],
  ['wrong-feeds', 10],
  ['clean', 12],
];

/** The case numbered `index` of the run seeded `seed`. `caseFolder` is where its files will lie. */
export function fuzzCase(seed: number, index: number, caseFolder: string): FuzzCase {
  const rng = new Random(caseSeed(seed, index));
  const kind = rng.weighted(KINDS);
  const level = rng.pick(LEVELS);
  const base = { index, kind, level, rng };
  switch (kind) {
    case 'mutated': {
      const { dir, bytes } = conformanceModel(rng);
      const m = mutateModel(rng, bytes);
      return { ...base, what: `${dir}: ${m.what}`, model: m.bytes, feeds: feedPlanFor(rng, dir) };
    }
    case 'truncated': {
      const { dir, bytes } = conformanceModel(rng);
      const at = rng.int(0, Math.max(0, bytes.length - 1));
      return { ...base, what: `${dir} cut at byte ${at} of ${bytes.length}`, model: bytes.slice(0, at), feeds: feedPlanFor(rng, dir) };
    }
    case 'bit-flips': {
      const { dir, bytes } = conformanceModel(rng);
      const out = bytes.slice();
      const flips = rng.int(1, 8);
      for (let k = 0; k < flips && out.length; k++) out[rng.int(0, out.length - 1)] ^= 1 << rng.int(0, 7);
      return { ...base, what: `${dir} with ${flips} bits flipped`, model: out, feeds: feedPlanFor(rng, dir) };
    }
    case 'random-bytes': {
      const out = new Uint8Array(rng.int(0, 600)).map(() => rng.int(0, 255));
      return { ...base, what: `${out.length} random bytes`, model: out, feeds: { kind: 'synthesised' } };
    }
    case 'random-protobuf': {
      const tree = randomMessage(rng, 'Model', rng.int(2, 8));
      return { ...base, what: 'random protobuf shaped like a model', model: serializeMessage(tree), feeds: { kind: 'synthesised' } };
    }
    case 'nested-if': {
      const depth = rng.pick([1, 2, 3, 8, 30, 63, 64, 65, 66, 200, 500]);
      const x = Float32Array.of(1, -2, 3, -4);
      return {
        ...base,
        what: `If nested ${depth} deep`,
        model: nestedIfModel(depth),
        feeds: { kind: 'given', feeds: { x: new Tensor('float32', x, [4]), cond: new Tensor('bool', Uint8Array.of(1), []) } },
        expected: { y0: x },
      };
    }
    case 'external-data': {
      const c = externalDataCase(rng, caseFolder);
      return { ...base, what: c.what, model: c.model, files: c.files, feeds: { kind: 'given', feeds: { x: new Tensor('float32', c.x, [c.x.length]) } }, expected: c.expected };
    }
    case 'random-graph':
    case 'mutated-random-graph': {
      const graphSeed = rng.int(1, 2 ** 30);
      const rm = randomModel(graphSeed, { nodes: rng.int(3, 14) });
      const encoded = encodeModel(rm.model);
      const m = kind === 'mutated-random-graph' ? mutateModel(rng, encoded) : { bytes: encoded, what: 'as generated' };
      return { ...base, what: `random graph ${graphSeed}: ${m.what}`, model: m.bytes, feeds: { kind: 'given', feeds: rm.feeds }, differential: kind === 'random-graph' };
    }
    case 'wrong-feeds': {
      const { dir, bytes } = conformanceModel(rng);
      return { ...base, what: `${dir} with wrong feeds`, model: bytes, feeds: { kind: 'wrong' } };
    }
    default: {
      const { dir, bytes } = conformanceModel(rng);
      return { ...base, what: dir, model: bytes, feeds: feedPlanFor(rng, dir) };
    }
  }
}
