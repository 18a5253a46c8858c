/**
 * Conv or ConvTranspose followed by per-output-channel affine maps, folded into its weights and bias: the maps are
 * BatchNormalization (inference mode, constant statistics: s = scale / sqrt(var + epsilon),
 * t = bias − mean · s) and Mul / Div / Add / Sub by a constant that is a scalar or per channel ([M,1,1],
 * [1,M,1,1], … — it must not broadcast Y to another shape), in any chain. With y' = s·y + t per channel c:
 *   W'[c] = W[c] · s[c],   B'[c] = B[c] · s[c] + t[c].
 * Only when W (and B, if present) and every constant are float32; the products are computed in float64
 * and rounded once. The Conv keeps its place and takes over the chain's output name. A ConvTranspose's
 * weights are [C, M/group, k…]: output channel g·(M/group) + j is column j of group g's rows.
 */
import type { GraphPass, Node, Tensor } from '@switchyard/core';
import { GraphRewriter, float32Tensor, hasOp, isOp, otherInput } from './graph-rewriter.js';

function isFloat32(t: Tensor | undefined): t is Tensor<'float32'> {
  return t !== undefined && t.type === 'float32';
}

/** Per-channel scale and shift: y' = s[c]·y + t[c]. */
export interface Affine {
  s: Float64Array;
  t: Float64Array;
}

/** A constant's value per output channel (a scalar repeats), when it broadcasts only along the channel axis of Y (rank `rank`). */
function perChannel(c: Tensor | undefined, m: number, rank: number): Float64Array | undefined {
  if (!isFloat32(c) || c.dims.length > rank) return undefined;
  if (c.size === 1) return new Float64Array(m).fill(c.data[0]);
  // Right-aligned against Y's [N, M, ...spatial]: every dim 1 but the one on the channel axis, which is M.
  const channelAxis = c.dims.length - (rank - 1);
  if (channelAxis < 0 || c.dims[channelAxis] !== m || c.dims.some((d, i) => i !== channelAxis && d !== 1)) return undefined;
  return Float64Array.from(c.data);
}

/**
 * An inference BatchNormalization's per-channel map (s = scale / sqrt(var + epsilon), t = bias − mean · s), or why
 * it is not a fixed one; `channels`, when given, is the count the statistics must have.
 */
export function batchNormAffine(rw: GraphRewriter, node: Node, channels?: number): Affine | string {
  // Only Y: Mean/Var outputs exist in training mode, which is not a fixed affine map.
  if (node.outputs.slice(1).some((o) => o !== '')) return 'BatchNormalization has training outputs';
  const attrs = rw.attrs(node);
  if (attrs.int('training_mode', 0) !== 0) return 'BatchNormalization in training mode';
  if (attrs.has('spatial') && attrs.int('spatial', 1) !== 1) return 'BatchNormalization with spatial = 0';
  const eps = attrs.float('epsilon', 1e-5);
  const stats = node.inputs.slice(1, 5).map((n) => rw.constant(n));
  if (stats.length !== 4 || !stats.every(isFloat32)) return 'BatchNormalization statistics are not float32 constants';
  const m = channels ?? stats[0]!.size;
  if (stats.some((t) => t!.size !== m)) return channels === undefined ? 'BatchNormalization statistics differ in size' : `statistics do not have the Conv's ${m} output channels`;
  const [scale, bias, mean, variance] = stats.map((t) => t!.data as Float32Array);
  const s = new Float64Array(m);
  const t = new Float64Array(m);
  for (let c = 0; c < m; c++) {
    s[c] = scale[c] / Math.sqrt(variance[c] + eps);
    t[c] = bias[c] - mean[c] * s[c];
  }
  return { s, t };
}

/** The affine map `node` applies to `y`, or why it is not one (undefined: not an op this pass folds). */
function affineOf(rw: GraphRewriter, node: Node, y: string, m: number, rank: number): Affine | string | undefined {
  if (hasOp(node, 'BatchNormalization')) return node.inputs[0] === y ? batchNormAffine(rw, node, m) : undefined;
  const op = ['Mul', 'Div', 'Add', 'Sub'].find((o) => hasOp(node, o));
  if (!op) return undefined;
  const other = otherInput(node, y);
  const k = other === undefined || other === y ? undefined : perChannel(rw.constant(other), m, rank);
  if (!k) return undefined;
  const yFirst = node.inputs[0] === y;
  if (op === 'Div' && !yFirst) return undefined; // k / y is not affine
  const ones = new Float64Array(m).fill(1);
  const zeros = new Float64Array(m);
  switch (op) {
    case 'Mul':
      return { s: k, t: zeros };
    case 'Div':
      return { s: k.map((v) => 1 / v), t: zeros };
    case 'Add':
      return { s: ones, t: k };
    default: // Sub: y − k, or k − y
      return yFirst ? { s: ones, t: k.map((v) => -v) } : { s: ones.map(() => -1), t: k };
  }
}

/** For each weight element, its output channel: Conv's W is [M, C/group, k…], ConvTranspose's [C, M/group, k…]. */
function outputChannelOf(rw: GraphRewriter, conv: Node, dims: readonly number[]): { m: number; channel: (i: number) => number } | undefined {
  const per = dims.slice(2).reduce((a, d) => a * d, 1);
  if (!hasOp(conv, 'ConvTranspose')) {
    const inner = per * dims[1];
    return { m: dims[0], channel: (i) => Math.floor(i / inner) };
  }
  const group = rw.attrs(conv).int('group', 1);
  const [c, mPerGroup] = dims;
  if (!(group >= 1) || c % group !== 0) return undefined;
  const rowsPerGroup = c / group;
  return { m: mPerGroup * group, channel: (i) => Math.floor(i / (mPerGroup * per) / rowsPerGroup) * mPerGroup + (Math.floor(i / per) % mPerGroup) };
}

function foldOne(rw: GraphRewriter, conv: Node): void {
  const [x, wName, bName] = conv.inputs;
  const w = rw.constant(wName);
  if (!isFloat32(w) || w.dims.length < 3) return;
  const layout = outputChannelOf(rw, conv, w.dims);
  if (!layout) return;
  const m = layout.m;
  const rank = w.dims.length;
  let total: Affine | undefined;
  const chain: Node[] = [];
  let out = conv.outputs[0];
  for (let next = rw.soleReader(out); next; next = rw.soleReader(out)) {
    const affine = affineOf(rw, next, out, m, rank);
    if (typeof affine === 'string') rw.skip(next, affine);
    if (!affine || typeof affine === 'string' || next.outputs.length < 1 || !next.outputs[0]) break;
    // Compose: s2·(s1·y + t1) + t2.
    total = total ? { s: total.s.map((v, c) => v * affine.s[c]), t: total.t.map((v, c) => v * affine.s[c] + affine.t[c]) } : affine;
    chain.push(next);
    out = next.outputs[0];
  }
  if (!total) return;
  const b = bName ? rw.constant(bName) : undefined;
  if (bName && (!isFloat32(b) || b.size !== m)) return rw.skip(conv, `${conv.opType} bias is not a float32 constant of its output channels`);
  if (rw.elemType(x) !== 'float32') return rw.skip(conv, `${conv.opType} input is not known to be float32`);
  if (!rw.owned([conv, ...chain])) return;

  const folded = new Float32Array(w.size);
  for (let i = 0; i < w.size; i++) folded[i] = w.data[i] * total.s[layout.channel(i)];
  const foldedBias = new Float32Array(m);
  for (let c = 0; c < m; c++) foldedBias[c] = (b ? (b.data as Float32Array)[c] : 0) * total.s[c] + total.t[c];
  const newW = rw.addInitializer(`${wName}_folded`, float32Tensor(folded, w.dims));
  const newB = rw.addInitializer(`${bName || conv.outputs[0]}_folded_bias`, float32Tensor(foldedBias, [m]));
  const constants = chain.flatMap((n) => n.inputs.slice(1));
  const y = conv.outputs[0];
  for (const n of chain) rw.remove(n);
  rw.update(conv, (n) => {
    n.inputs = [x, newW, newB];
    n.outputs = [out];
  });
  for (const n of [y, ...chain.slice(0, -1).map((c) => c.outputs[0])]) rw.graph.valueInfo.delete(n);
  rw.dropIfUnused([wName, bName, ...constants, ...chain.map((n) => n.inputs[0])]);
}

export const convBatchNormFolding: GraphPass = {
  name: 'cpu:conv-batchnorm-folding',
  level: 'extended',
  run(graph, report, context) {
    const rw = new GraphRewriter(graph, report, context?.mayRewrite);
    for (const node of rw.nodes()) {
      if (rw.isLive(node) && (isOp(node, 'Conv') || isOp(node, 'ConvTranspose')) && node.outputs.length === 1) foldOne(rw, node);
    }
  },
};
