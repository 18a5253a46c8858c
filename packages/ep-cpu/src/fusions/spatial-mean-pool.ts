/**
 * A ReduceMean over every spatial axis of an [N, C, ...spatial] float32 tensor becomes GlobalAveragePool
 * (followed by Flatten when keepdims = 0, which drops the pooled 1s and leaves [N, C]). Exporters write a
 * global average pool that way whenever the source model did (`x.mean((2, 3))` in torch: torchvision's
 * MNASNet, many squeeze-excitation blocks; tf2onnx's GAP after its transposes), and ReduceMean has no
 * channel-blocked kernel: the tensor was reordered back to NCHW for a generic reduction (MNASNet's head,
 * [1, 1280, 7, 7]: reorder 22 µs + ReduceMean 85 µs, one AVX-512 core) where the blocked pool after the
 * last conv takes ~6 µs. The mean is the same sum divided by the same count.
 * Only where the pool will be channel-blocked: a mean of a conv's output (through its activation, a
 * normalization or a residual Add / Mul). Elsewhere it would run on plain NCHW, where oneDNN's pooling
 * took 2-4x the native reduction's time on long rows (a [1, 128, 768] transformer row mean: 25 vs 7 µs;
 * [1, 96, 56, 56]: 49 vs 24 µs).
 * Only axes that are exactly {2, …, rank − 1} (negative ones normalized) from the attribute (opset < 18)
 * or a constant input (opset ≥ 18), float32, and spatial dims known and non-zero: the mean of nothing is
 * NaN where GlobalAveragePool rejects an empty plane, so a symbolic H or W keeps the ReduceMean.
 */
import type { GraphPass, Node } from '@switchyard/core';
import { GraphRewriter, hasOp } from './graph-rewriter.js';
import { reduceAxes } from './layer-norm-fusion.js';

function isEverySpatialAxis(axes: number[], rank: number): boolean {
  const spatial = new Set(axes);
  if (spatial.size !== axes.length || spatial.size !== rank - 2) return false;
  for (let a = 2; a < rank; a++) if (!spatial.has(a)) return false;
  return true;
}

/** Ops between a conv and the mean that keep the conv's layout (activations, normalization, residual Add / Mul). */
const LAYOUT_KEEPING_OPS = new Set(['Relu', 'LeakyRelu', 'Clip', 'Sigmoid', 'HardSigmoid', 'HardSwish', 'Tanh', 'Elu', 'Mul', 'Add', 'BatchNormalization']);

/** Whether `name` is a conv's output, directly or through up to `depth` layout-keeping ops (first input followed). */
function isConvOutput(rw: GraphRewriter, name: string, depth = 4): boolean {
  const producer = rw.producer(name);
  if (!producer || (producer.domain !== '' && producer.domain !== 'ai.onnx')) return false;
  if (producer.opType === 'Conv') return true;
  if (depth === 0 || !LAYOUT_KEEPING_OPS.has(producer.opType)) return false;
  return producer.inputs.some((input, i) => (i === 0 || producer.opType === 'Mul' || producer.opType === 'Add') && !!input && isConvOutput(rw, input, depth - 1));
}

function rewriteOne(rw: GraphRewriter, node: Node): void {
  const [x] = node.inputs;
  const y = node.outputs[0];
  if (!x || !y || node.outputs.length !== 1) return;
  const xType = rw.graph.typeOf(x);
  const shape = xType?.kind === 'tensor' ? xType.shape : undefined;
  if (!shape || shape.length < 3) return;
  const rank = shape.length;
  if (!shape.slice(2).every((d) => typeof d === 'number' && d > 0)) return rw.skip(node, 'ReduceMean over spatial dims that may be empty');
  if (rw.elemType(x) !== 'float32') return;
  if (!isConvOutput(rw, x)) return rw.skip(node, 'ReduceMean of a value no conv produced (it would pool plain NCHW)');
  const axes = reduceAxes(rw, node)?.map((a) => (a < 0 ? a + rank : a));
  if (!axes || !isEverySpatialAxis(axes, rank)) return;
  if (!rw.owned([node])) return;
  const keepDims = rw.attrs(node).int('keepdims', 1) !== 0;
  const base = node.name || y;
  const axesInput = node.inputs[1];
  const type = rw.graph.typeOf(y);
  if (keepDims) {
    rw.replace([node], { opType: 'GlobalAveragePool', domain: '', name: `${base}_global_pool`, inputs: [x], outputs: [y], attributes: new Map() });
  } else {
    let pooled = `${y}_pooled`;
    for (let i = 1; rw.isNameTaken(pooled); i++) pooled = `${y}_pooled_${i}`;
    rw.graph.valueInfo.set(pooled, { name: pooled, type: { kind: 'tensor', elemType: 'float32', shape: [shape[0], shape[1], ...new Array<number>(rank - 2).fill(1)] } });
    const pool = rw.replace([node], { opType: 'GlobalAveragePool', domain: '', name: `${base}_global_pool`, inputs: [x], outputs: [pooled], attributes: new Map() });
    rw.insertAfter(pool, { opType: 'Flatten', domain: '', name: `${base}_flatten`, inputs: [pooled], outputs: [y], attributes: new Map([['axis', { type: 'int', value: 1 }]]) });
    // replace() dropped the type of the ReduceMean's output; the Flatten writes it now.
    if (type) rw.graph.valueInfo.set(y, { name: y, type });
  }
  if (axesInput) rw.dropIfUnused([axesInput]);
}

export const spatialMeanPool: GraphPass = {
  name: 'cpu:spatial-mean-pool',
  level: 'extended',
  run(graph, report, context) {
    const rw = new GraphRewriter(graph, report, context?.mayRewrite);
    for (const node of rw.nodes()) {
      if (rw.isLive(node) && hasOp(node, 'ReduceMean')) rewriteOne(rw, node);
    }
  },
};
