/**
 * Conv → BatchNormalization (inference mode, constant statistics) folded into the Conv's weights and
 * bias: per output channel c, with s = scale[c] / sqrt(var[c] + epsilon),
 *   W'[c] = W[c] · s,   B'[c] = (B[c] − mean[c]) · s + bias[c].
 * Only when W (and B, if present) and all four statistics are float32 constants; the products are
 * computed in float64 and rounded once. The Conv keeps its place and takes over BN's output name.
 */
import type { GraphPass, Node, Tensor } from '@switchyard/core';
import { GraphRewriter, float32Tensor, isOp } from './graph-rewriter.js';

function isFloat32(t: Tensor | undefined): t is Tensor<'float32'> {
  return t !== undefined && t.type === 'float32';
}

function foldOne(rw: GraphRewriter, conv: Node): void {
  const [x, wName, bName] = conv.inputs;
  const y = conv.outputs[0];
  const bn = rw.soleReader(y);
  if (!isOp(bn, 'BatchNormalization') || bn.inputs[0] !== y) return;
  // Only Y: Mean/Var outputs exist in training mode, which is not a fixed affine map.
  if (bn.outputs.slice(1).some((o) => o !== '')) return rw.skip(bn, 'BatchNormalization has training outputs');
  const attrs = rw.attrs(bn);
  if (attrs.int('training_mode', 0) !== 0) return rw.skip(bn, 'BatchNormalization in training mode');
  if (attrs.has('spatial') && attrs.int('spatial', 1) !== 1) return rw.skip(bn, 'BatchNormalization with spatial = 0');
  const eps = attrs.float('epsilon', 1e-5);
  const w = rw.constant(wName);
  const b = bName ? rw.constant(bName) : undefined;
  const [scale, bias, mean, variance] = bn.inputs.slice(1, 5).map((n) => rw.constant(n));
  if (!isFloat32(w) || (bName && !isFloat32(b))) return rw.skip(conv, 'Conv weights/bias are not float32 constants');
  if (![scale, bias, mean, variance].every(isFloat32)) return rw.skip(bn, 'BatchNormalization statistics are not float32 constants');
  const m = w.dims[0];
  if (w.dims.length < 3 || [scale, bias, mean, variance].some((t) => t!.size !== m) || (b && b.size !== m)) {
    return rw.skip(bn, `statistics do not have the Conv's ${m} output channels`);
  }
  if (rw.elemType(x) !== 'float32') return rw.skip(conv, 'Conv input is not known to be float32');

  const per = w.size / m;
  const wd = w.data;
  const folded = new Float32Array(w.size);
  const foldedBias = new Float32Array(m);
  const sd = scale!.data as Float32Array;
  const bd = bias!.data as Float32Array;
  const md = mean!.data as Float32Array;
  const vd = variance!.data as Float32Array;
  for (let c = 0; c < m; c++) {
    const s = sd[c] / Math.sqrt(vd[c] + eps);
    for (let i = c * per; i < (c + 1) * per; i++) folded[i] = wd[i] * s;
    foldedBias[c] = ((b ? (b.data as Float32Array)[c] : 0) - md[c]) * s + bd[c];
  }
  if (!rw.owned([conv, bn])) return;
  const newW = rw.addInitializer(`${wName}_bn_folded`, float32Tensor(folded, w.dims));
  const newB = rw.addInitializer(`${bName || conv.outputs[0]}_bn_folded_bias`, float32Tensor(foldedBias, [m]));
  const bnOut = bn.outputs[0];
  const oldStats = bn.inputs.slice(1, 5);
  rw.remove(bn);
  rw.update(conv, (n) => {
    n.inputs = [x, newW, newB];
    n.outputs = [bnOut];
  });
  rw.graph.valueInfo.delete(y);
  rw.dropIfUnused([wName, bName, ...oldStats]);
}

export const convBatchNormFolding: GraphPass = {
  name: 'cpu:conv-batchnorm-folding',
  level: 'extended',
  run(graph, report, context) {
    const rw = new GraphRewriter(graph, report, context?.mayRewrite);
    for (const node of rw.nodes()) {
      if (rw.isLive(node) && isOp(node, 'Conv') && node.outputs.length === 1) foldOne(rw, node);
    }
  },
};
