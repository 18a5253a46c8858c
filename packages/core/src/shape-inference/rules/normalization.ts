/** Normalisations: Y keeps X's shape; the statistics outputs are per channel or per normalised row. */
import type { ShapeRule } from '../context.js';
import type { Dim } from '../../ir/graph.js';
import { normalizeAxis, unifyDim } from '../dims.js';

/**
 * BatchNormalization. Extra outputs exist in training: opset ≥ 14 returns running mean/var, opsets
 * 9–13 return mean, var, saved mean, saved var — all per channel, `[C]`.
 */
const batchNormalization: ShapeRule = (ctx) => {
  const x = ctx.shape(0);
  ctx.setShape(0, x);
  const channels: Dim = unifyDim(x?.[1], ctx.shape(1)?.[0]);
  for (let o = 1; o < ctx.outputs.length; o++) {
    if (ctx.hasOutput(o)) ctx.setShape(o, [channels], ctx.outputElemType(o) ?? ctx.elemType(1));
  }
};

/** LayerNormalization: Mean and InvStdDev keep X's leading dims up to `axis` and 1 after it. */
const layerNormalization: ShapeRule = (ctx) => {
  const x = ctx.shape(0);
  ctx.setShape(0, x);
  const axis = normalizeAxis(ctx.attrs.int('axis', -1), x?.length);
  // stash_type 1 (the default) computes statistics in float32 whatever X is.
  const statType = ctx.attrs.int('stash_type', 1) === 1 ? 'float32' : ctx.elemType(0);
  const stats = x && axis !== undefined ? x.map((d, i) => (i < axis ? d : 1)) : undefined;
  for (const o of [1, 2]) if (ctx.hasOutput(o)) ctx.setShape(o, stats, statType);
};

/** GroupNormalization (opset 18) keeps X's shape. */
const sameAsX: ShapeRule = (ctx) => ctx.setShape(0, ctx.shape(0));

export const normalizationRules: Record<string, ShapeRule> = {
  BatchNormalization: batchNormalization,
  LayerNormalization: layerNormalization,
  GroupNormalization: sameAsX,
};
