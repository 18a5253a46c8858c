/**
 * ai.onnx.ml TreeEnsemble (opset 5): X [N, F] through a forest of binary trees; each tree's leaf adds
 * its weight to one target, aggregated by SUM, AVERAGE, MIN or MAX, then post-transformed; Y [N,
 * n_targets]. Interior nodes are the `nodes_*` tuples; a branch is either another node or a leaf
 * (`leaf_*` tuples), as `nodes_trueleafs` / `nodes_falseleafs` say.
 */
import { SwitchyardError, defineKernel, type AttributeReader, type Tensor } from '@switchyard/core';
import { FLOAT_KERNEL_TYPES, floatData, floatOutput } from '../nn/float-io.js';
import { applyPostTransform, postTransformOf } from './ml-post-transform.js';

const OP = 'TreeEnsemble';

const enum Mode {
  LEQ = 0,
  LT = 1,
  GTE = 2,
  GT = 3,
  EQ = 4,
  NEQ = 5,
  MEMBER = 6,
}
const AGGREGATES = ['AVERAGE', 'SUM', 'MIN', 'MAX'] as const;
type Aggregate = (typeof AGGREGATES)[number];

/** Largest finite value per type: where MIN aggregation starts (MAX starts at its negative). */
const LARGEST: Record<string, number> = { float32: 3.4028234663852886e38, float64: Number.MAX_VALUE, float16: 65504 };

interface Forest {
  features: Int32Array;
  modes: Uint8Array;
  splits: Float64Array;
  members: (Set<number> | undefined)[];
  trueIds: Int32Array;
  falseIds: Int32Array;
  trueLeaf: Uint8Array;
  falseLeaf: Uint8Array;
  missingTrue: Uint8Array;
  roots: Int32Array;
  leafTargets: Int32Array;
  leafWeights: Float64Array;
  targets: number;
}

function tensorAttr(attrs: AttributeReader, name: string): Tensor {
  const t = attrs.tensor(name);
  if (!t) throw new SwitchyardError('INVALID_MODEL', `${OP}: attribute '${name}' is required`);
  return t;
}

function readForest(attrs: AttributeReader): Forest {
  const features = Int32Array.from(attrs.ints('nodes_featureids'));
  const n = features.length;
  const modesT = tensorAttr(attrs, 'nodes_modes');
  if (modesT.type !== 'uint8') throw new SwitchyardError('INVALID_MODEL', `${OP}: nodes_modes must be a uint8 tensor, got ${modesT.type}`);
  const modes = Uint8Array.from(modesT.data as ArrayLike<number>);
  const splits = Float64Array.from(floatData(tensorAttr(attrs, 'nodes_splits'), `${OP} nodes_splits`));
  const trueIds = Int32Array.from(attrs.ints('nodes_truenodeids'));
  const falseIds = Int32Array.from(attrs.ints('nodes_falsenodeids'));
  const trueLeaf = Uint8Array.from(attrs.ints('nodes_trueleafs'));
  const falseLeaf = Uint8Array.from(attrs.ints('nodes_falseleafs'));
  const missingTrue = Uint8Array.from(attrs.ints('nodes_missing_value_tracks_true', new Array<number>(n).fill(0)));
  const lengths = [modes.length, splits.length, trueIds.length, falseIds.length, trueLeaf.length, falseLeaf.length, missingTrue.length];
  if (lengths.some((l) => l !== n)) throw new SwitchyardError('INVALID_MODEL', `${OP}: the nodes_* attributes must all have ${n} entries, got [${lengths.join(', ')}]`);
  const leafTargets = Int32Array.from(attrs.ints('leaf_targetids'));
  const leafWeights = Float64Array.from(floatData(tensorAttr(attrs, 'leaf_weights'), `${OP} leaf_weights`));
  if (leafTargets.length !== leafWeights.length) throw new SwitchyardError('INVALID_MODEL', `${OP}: ${leafTargets.length} leaf_targetids but ${leafWeights.length} leaf_weights`);
  const maxTarget = leafTargets.reduce((m, t) => Math.max(m, t), -1);
  const targets = attrs.has('n_targets') ? attrs.int('n_targets') : maxTarget + 1;
  if (leafTargets.some((t) => t < 0 || t >= targets)) throw new SwitchyardError('INVALID_MODEL', `${OP}: leaf_targetids must lie in [0, ${targets})`);
  for (let i = 0; i < n; i++) {
    if (modes[i] > Mode.MEMBER) throw new SwitchyardError('INVALID_MODEL', `${OP}: node ${i} has unknown mode ${modes[i]}`);
    for (const [leaf, id] of [[trueLeaf[i], trueIds[i]], [falseLeaf[i], falseIds[i]]]) {
      const limit = leaf ? leafWeights.length : n;
      if (id < 0 || id >= limit) throw new SwitchyardError('INVALID_MODEL', `${OP}: node ${i} branches to ${leaf ? 'leaf' : 'node'} ${id}, outside [0, ${limit})`);
    }
  }
  // Each BRANCH_MEMBER node takes the next NaN-terminated run of membership_values, in node order.
  const members: (Set<number> | undefined)[] = new Array(n);
  const memberT = attrs.tensor('membership_values');
  const memberValues = memberT ? floatData(memberT, `${OP} membership_values`) : new Float64Array(0);
  let at = 0;
  for (let i = 0; i < n; i++) {
    if (modes[i] !== Mode.MEMBER) continue;
    if (at >= memberValues.length) throw new SwitchyardError('INVALID_MODEL', `${OP}: membership_values has no set for BRANCH_MEMBER node ${i}`);
    const set = new Set<number>();
    while (at < memberValues.length && !Number.isNaN(memberValues[at])) set.add(memberValues[at++]);
    at++; // the NaN delimiter
    members[i] = set;
  }
  const roots = Int32Array.from(attrs.ints('tree_roots'));
  if (roots.some((r) => r < 0 || r >= n)) throw new SwitchyardError('INVALID_MODEL', `${OP}: tree_roots must index nodes_* entries`);
  return { features, modes, splits, members, trueIds, falseIds, trueLeaf, falseLeaf, missingTrue, roots, leafTargets, leafWeights, targets };
}

function goesTrue(f: Forest, node: number, v: number): boolean {
  if (Number.isNaN(v) && f.missingTrue[node]) return true;
  const s = f.splits[node];
  switch (f.modes[node]) {
    case Mode.LEQ: return v <= s;
    case Mode.LT: return v < s;
    case Mode.GTE: return v >= s;
    case Mode.GT: return v > s;
    case Mode.EQ: return v === s;
    case Mode.NEQ: return v !== s;
    default: return f.members[node]!.has(v);
  }
}

/** The leaf row `x` reaches from `root`; a malformed forest with a cycle is caught by the step count. */
function leafOf(f: Forest, root: number, x: ArrayLike<number>, base: number): number {
  let node = root;
  for (let steps = 0; steps <= f.features.length; steps++) {
    const t = goesTrue(f, node, x[base + f.features[node]]);
    const next = t ? f.trueIds[node] : f.falseIds[node];
    if (t ? f.trueLeaf[node] : f.falseLeaf[node]) return next;
    node = next;
  }
  throw new SwitchyardError('INVALID_MODEL', `${OP}: the tree at root ${root} has a cycle`);
}

export const treeEnsembleKernel = defineKernel({
  ep: 'cpu',
  domain: 'ai.onnx.ml',
  opType: OP,
  sinceVersion: 5,
  implementation: 'ts',
  typeConstraints: { T: FLOAT_KERNEL_TYPES },
  create({ attrs }) {
    const forest = readForest(attrs);
    const transform = postTransformOf(attrs.int('post_transform', 0), OP);
    const aggregate: Aggregate | undefined = AGGREGATES[attrs.int('aggregate_function', 1)];
    if (!aggregate) throw new SwitchyardError('INVALID_MODEL', `${OP}: aggregate_function must be 0–3`);
    const maxFeature = forest.features.reduce((m, v) => Math.max(m, v), -1);
    return {
      run(ctx) {
        const x = ctx.input(0);
        if (x.dims.length !== 2) throw new SwitchyardError('INVALID_SHAPE', `${OP}: X must be [N, F], got [${x.dims.join(', ')}]`);
        const [N, F] = x.dims;
        if (maxFeature >= F || forest.features.some((v) => v < 0)) throw new SwitchyardError('INVALID_SHAPE', `${OP}: the trees read feature ${maxFeature} but X has ${F}`);
        const xs = floatData(x, `${OP} X`);
        const T = forest.targets;
        const scores = new Float64Array(N * T);
        const start = aggregate === 'MIN' ? LARGEST[x.type] : aggregate === 'MAX' ? -LARGEST[x.type] : 0;
        scores.fill(start);
        const trees = forest.roots.length;
        for (let i = 0; i < N; i++) {
          for (let t = 0; t < trees; t++) {
            const leaf = leafOf(forest, forest.roots[t], xs, i * F);
            const j = i * T + forest.leafTargets[leaf];
            const w = forest.leafWeights[leaf];
            if (aggregate === 'SUM') scores[j] += w;
            else if (aggregate === 'AVERAGE') scores[j] += w / trees;
            else if (aggregate === 'MIN') scores[j] = Math.min(scores[j], w);
            else scores[j] = Math.max(scores[j], w);
          }
        }
        applyPostTransform(transform, scores, T);
        const out = floatOutput(ctx, 0, x.type, [N, T]);
        out.data.set(scores);
        return [out.commit()];
      },
    };
  },
});
