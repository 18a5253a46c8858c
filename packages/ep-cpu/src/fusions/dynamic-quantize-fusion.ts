/**
 * onnxruntime's `quantize_dynamic` writes every quantized Conv / MatMul as
 *   DynamicQuantizeLinear(x) → (x_q, x_scale, x_zp)
 *   ConvInteger(x_q, W_q, x_zp, w_zp) | MatMulInteger(x_q, B_q, x_zp, b_zp) → Cast(to float)
 *   → Mul(·, Mul(x_scale, w_scale)) [→ Add(·, bias)] [→ Relu]
 * with W_q / B_q, w_zp, w_scale and bias constants. Each chain becomes one com.switchyard
 * DynamicQuantizedConv / DynamicQuantizedMatMul(x, W_q, w_zp, w_scale, bias) with `relu`, one native call that
 * quantizes x, convolves in int8 and scales, doing the graph's float arithmetic step by step: the fused output
 * is identical to the unfused one (tests compare bit for bit).
 *
 * Matched only where the result is the same: the scale and bias vary per output channel (Conv: axis 1;
 * MatMul: the last axis) or not at all, the Cast is to float32, and the intermediates have no other readers.
 * One DynamicQuantizeLinear often feeds several convs: each fused node quantizes x itself (cheap next to
 * the conv), and the DynamicQuantizeLinear goes once nothing reads it.
 */
import type { GraphPass, Node } from '@switchyard/core';
import { FUSED_DOMAIN } from '../kernels/FusedMatMul.js';
import { GraphRewriter, isOp, otherInput } from './graph-rewriter.js';
import { addVector, unread, valuesAlongAxis } from './quantized-match.js';

const CAST_TO_FLOAT = 1;

interface Chain {
  /** ConvInteger / MatMulInteger. */
  product: Node;
  nodes: Node[];
  scales: Float32Array;
  bias: Float32Array | undefined;
  relu: boolean;
  output: string;
}

/** The rank of the product's output and the axis its scale / bias may vary along, when known. */
function outputAxis(rw: GraphRewriter, product: Node): { rank: number; axis: number; length: number } | undefined {
  const w = rw.constant(product.inputs[1]);
  if (!w) return undefined;
  if (product.opType === 'ConvInteger') return { rank: w.dims.length, axis: 1, length: w.dims[0] };
  if (w.dims.length !== 2) return undefined;
  const rank = Math.max(rw.rank(product.inputs[0]) ?? 2, 2);
  return { rank, axis: rank - 1, length: w.dims[1] };
}

function matchChain(rw: GraphRewriter, product: Node, dql: Node): Chain | string | undefined {
  const [xq, w, xZero, wZero] = product.inputs;
  if (xq !== dql.outputs[0] || xZero !== dql.outputs[2] || !dql.outputs[1]) return undefined;
  if (!rw.constant(w)) return 'the weights are not a constant';
  if (wZero && !rw.constant(wZero)) return 'the weight zero point is not a constant';
  const shape = outputAxis(rw, product);
  if (!shape) return 'the weights do not have the rank the fused op takes';

  const cast = rw.soleReader(product.outputs[0]);
  const castTo = cast && isOp(cast, 'Cast') ? rw.attrs(cast).int('to', 0) : undefined;
  if (!cast || castTo !== CAST_TO_FLOAT) return undefined;
  const casted = cast.outputs[0];
  const outMul = rw.soleReader(casted);
  if (!isOp(outMul, 'Mul')) return undefined;
  const scaleName = otherInput(outMul, casted);
  const scaleMul = scaleName ? rw.producer(scaleName) : undefined;
  if (!scaleName || !isOp(scaleMul, 'Mul')) return undefined;
  const weightScale = otherInput(scaleMul, dql.outputs[1]);
  if (!weightScale) return undefined;
  const scales = valuesAlongAxis(rw, weightScale, shape.rank, shape.axis, shape.length);
  if (!scales) return 'the weight scale does not vary along the output channels only';

  const nodes = [product, cast, outMul];
  // The Mul(x_scale, w_scale) goes with the chain unless another node reads its product too.
  if (rw.soleReader(scaleName) === outMul && !rw.isGraphOutput(scaleName)) nodes.splice(2, 0, scaleMul);
  let output = outMul.outputs[0];
  let bias: Float32Array | undefined;
  const add = rw.soleReader(output);
  const biasName = isOp(add, 'Add') ? otherInput(add, output) : undefined;
  if (add && biasName) {
    bias = valuesAlongAxis(rw, biasName, shape.rank, shape.axis, shape.length);
    if (bias) {
      nodes.push(add);
      output = add.outputs[0];
    }
  }
  const relu = rw.soleReader(output);
  if (isOp(relu, 'Relu')) {
    nodes.push(relu);
    output = relu.outputs[0];
  }
  return { product, nodes, scales, bias, relu: isOp(relu, 'Relu'), output };
}

function fuseAt(rw: GraphRewriter, product: Node): void {
  const dql = rw.producer(product.inputs[0]);
  if (!isOp(dql, 'DynamicQuantizeLinear')) return;
  const chain = matchChain(rw, product, dql);
  if (typeof chain === 'string') return rw.skip(product, chain);
  if (!chain || !rw.owned(chain.nodes)) return;
  const conv = product.opType === 'ConvInteger';
  const name = product.name || product.opType;
  const scales = addVector(rw, `${name}_scales`, chain.scales);
  const inputs = [dql.inputs[0], product.inputs[1], product.inputs[3] ?? '', scales];
  if (chain.bias) inputs.push(addVector(rw, `${name}_bias`, chain.bias));
  rw.replace(chain.nodes, {
    opType: conv ? 'DynamicQuantizedConv' : 'DynamicQuantizedMatMul',
    domain: FUSED_DOMAIN,
    name: `${name}_dynamic_quantized`,
    inputs,
    outputs: [chain.output],
    // ConvInteger's attributes are Conv's (MatMulInteger has none).
    attributes: new Map([...product.attributes, ['relu', { type: 'int', value: chain.relu ? 1 : 0 }]]),
  });
  rw.ensureOpset(FUSED_DOMAIN, 1);
  if (unread(rw, dql.outputs) && rw.owned([dql])) rw.remove(dql);
  const replaced = chain.nodes.filter((n) => n.opType === 'Mul' || n.opType === 'Add').flatMap((n) => n.inputs);
  rw.dropIfUnused(replaced);
}

export const dynamicQuantizeFusion: GraphPass = {
  name: 'cpu:dynamic-quantize-fusion',
  level: 'all',
  run(graph, report, context) {
    const rw = new GraphRewriter(graph, report, context?.mayRewrite);
    for (const node of rw.nodes()) {
      if (rw.isLive(node) && (isOp(node, 'ConvInteger') || isOp(node, 'MatMulInteger')) && node.outputs.length === 1) fuseAt(rw, node);
    }
  },
};
