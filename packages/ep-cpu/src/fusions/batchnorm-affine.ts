/**
 * A BatchNormalization that no Conv absorbed (it follows a Concat, an Add or a graph input: DenseNet's
 * pre-activation blocks, BatchNorm1d heads) becomes Mul by s and Add of t, per-channel constants
 * [C, 1, …] (s = scale / sqrt(var + epsilon), t = bias − mean · s). Those are ops every later pass
 * understands: the blocked layout keeps them channel-blocked between convolutions, and the elementwise
 * fusion runs them with the activation after them in one pass, where BatchNormalization ran as its own
 * pass over plain NCHW with reorders around it. Inference mode with constant float32 statistics only.
 */
import type { GraphPass, Node } from '@switchyard/core';
import { batchNormAffine } from './conv-batchnorm-folding.js';
import { GraphRewriter, float32Tensor, isOp } from './graph-rewriter.js';

function rewriteOne(rw: GraphRewriter, node: Node): void {
  const [x] = node.inputs;
  const y = node.outputs[0];
  if (!x || !y) return;
  const rank = rw.rank(x);
  if (rank === undefined || rank < 2) return rw.skip(node, 'BatchNormalization input of unknown rank');
  if (rw.elemType(x) !== 'float32') return rw.skip(node, 'BatchNormalization input is not known to be float32');
  const affine = batchNormAffine(rw, node);
  if (typeof affine === 'string') return rw.skip(node, affine);
  if (!rw.owned([node])) return;
  const c = affine.s.length;
  // [C, 1, …]: right-aligned against [N, C, …spatial], so it broadcasts along the channel axis only.
  const dims = [c, ...new Array<number>(rank - 2).fill(1)];
  const base = node.name || y;
  const s = rw.addInitializer(`${base}_scale`, float32Tensor(Float32Array.from(affine.s), dims));
  const t = rw.addInitializer(`${base}_shift`, float32Tensor(Float32Array.from(affine.t), dims));
  let scaled = `${y}_scaled`;
  for (let i = 1; rw.isNameTaken(scaled); i++) scaled = `${y}_scaled_${i}`;
  const type = rw.graph.typeOf(y) ?? rw.graph.typeOf(x);
  if (type) rw.graph.valueInfo.set(scaled, { name: scaled, type });
  const stats = node.inputs.slice(1);
  const mul = rw.replace([node], { opType: 'Mul', domain: '', name: `${base}_mul`, inputs: [x, s], outputs: [scaled], attributes: new Map() });
  rw.insertAfter(mul, { opType: 'Add', domain: '', name: `${base}_add`, inputs: [scaled, t], outputs: [y], attributes: new Map() });
  // replace() dropped the type of the BatchNormalization's output; the Add writes it now.
  if (type) rw.graph.valueInfo.set(y, { name: y, type });
  rw.dropIfUnused(stats);
}

export const batchNormAffinePass: GraphPass = {
  name: 'cpu:batchnorm-affine',
  level: 'all',
  run(graph, report, context) {
    const rw = new GraphRewriter(graph, report, context?.mayRewrite);
    for (const node of rw.nodes()) {
      if (rw.isLive(node) && isOp(node, 'BatchNormalization')) rewriteOne(rw, node);
    }
  },
};
