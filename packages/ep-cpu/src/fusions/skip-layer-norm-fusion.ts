/**
 * The residual Add feeding a LayerNormalization, y = LN(a + b) with a and b of one shape, becomes
 * one com.switchyard SkipLayerNormalization(a, b, Scale[, B]) → (Y[, Sum]): the addon adds and
 * normalizes in one call instead of a TS Add pass over the activations. Sum (a + b) is output only
 * when another node still reads it. Scale/B must span exactly the normalized axes (no broadcast),
 * and the LayerNormalization must not output Mean/InvStdDev.
 */
import type { AttributeValue, Dim, GraphPass, Node } from '@switchyard/core';
import { FUSED_DOMAIN } from '../kernels/FusedMatMul.js';
import { GraphRewriter, isOp } from './graph-rewriter.js';

function isLayerNorm(node: Node): boolean {
  return node.opType === 'LayerNormalization' && (node.domain === '' || node.domain === 'ai.onnx' || node.domain === 'com.microsoft');
}

function shapeOf(rw: GraphRewriter, name: string): readonly Dim[] | undefined {
  const t = rw.graph.typeOf(name);
  return t?.kind === 'tensor' ? t.shape : undefined;
}

/** Known, equal shapes (numbers or the same symbol): the Add does not broadcast. */
function sameShape(p: readonly Dim[] | undefined, q: readonly Dim[] | undefined): boolean {
  return !!p && !!q && p.length === q.length && p.every((d, i) => d !== undefined && d === q[i]);
}

function fuseAt(rw: GraphRewriter, ln: Node): void {
  const [x, scale, bias] = ln.inputs;
  if (!x || !scale || ln.outputs.slice(1).some(Boolean) || !ln.outputs[0]) return;
  const add = rw.producer(x);
  if (!isOp(add, 'Add') || add.inputs.length !== 2) return;
  const [a, b] = add.inputs;
  if (!a || !b || [a, b, x, scale, ...(bias ? [bias] : [])].some((v) => rw.elemType(v) !== 'float32')) return;
  const shape = shapeOf(rw, x);
  if (!sameShape(shapeOf(rw, a), shape) || !sameShape(shapeOf(rw, b), shape)) return;
  const rank = shape!.length;
  const rawAxis = rw.attrs(ln).int('axis', -1);
  const axis = rawAxis < 0 ? rawAxis + rank : rawAxis;
  if (axis < 0 || axis >= rank) return;
  const normalized = shape!.slice(axis);
  if (!normalized.every((d): d is number => typeof d === 'number')) return;
  const cols = normalized.reduce((p, q) => p * q, 1);
  const sizeOk = (v: string) => rw.staticShape(v)?.reduce((p, q) => p * q, 1) === cols && (rw.rank(v) ?? 0) <= normalized.length;
  if (!sizeOk(scale) || (bias && !sizeOk(bias))) return;

  // Sum is kept when someone else reads it; they must all come after the LayerNormalization,
  // where the fused node will stand.
  const others = [...rw.readers(x)].filter((n) => n !== ln);
  const keepSum = others.length > 0 || rw.isGraphOutput(x);
  const at = rw.graph.nodes.indexOf(ln);
  if (others.some((n) => !n.inputs.includes(x) || rw.graph.nodes.indexOf(n) < at)) return;
  if (!rw.owned([add, ln])) return;

  const attributes = new Map<string, AttributeValue>([
    ['axis', { type: 'int', value: axis }],
    ['epsilon', { type: 'float', value: rw.attrs(ln).float('epsilon', 1e-5) }],
  ]);
  rw.replace([add, ln], {
    opType: 'SkipLayerNormalization',
    domain: FUSED_DOMAIN,
    name: `${ln.name || 'LayerNormalization'}_skip`,
    inputs: bias ? [a, b, scale, bias] : [a, b, scale],
    outputs: keepSum ? [ln.outputs[0], x] : [ln.outputs[0]],
    attributes,
  });
  rw.ensureOpset(FUSED_DOMAIN, 1);
}

export const skipLayerNormFusion: GraphPass = {
  name: 'cpu:skip-layer-norm-fusion',
  level: 'extended',
  run(graph, report, context) {
    const rw = new GraphRewriter(graph, report, context?.mayRewrite);
    for (const node of rw.nodes()) if (rw.isLive(node) && isLayerNorm(node)) fuseAt(rw, node);
  },
};
