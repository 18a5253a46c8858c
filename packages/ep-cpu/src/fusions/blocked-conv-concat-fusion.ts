/**
 * Concat (on channels) of BlockedConv outputs that nothing else reads becomes one com.switchyard
 * BlockedConvConcat that runs the convolutions straight into their slices of the concatenated
 * tensor, as SqueezeNet's fire modules (expand 1x1 and expand 3x3 of one squeeze, concatenated):
 * in the channel-blocked layout each input of such a Concat is one contiguous run of the output
 * per image, so the copy (which at 2 threads also pulls the other core's freshly written cache
 * lines) disappears, and with it a node.
 *
 * Runs after the blocked-layout pass. Each branch must be a BlockedConv with a blocked Y, no Z,
 * constant weights and an output channel count that fills whole blocks (the blocked Concat already
 * needs that); the Concat's inputs must be distinct. The fused node keeps each conv's inputs (X, W,
 * B or '', three per branch) and its attributes under the prefix `b<i>_`; `branches` counts them.
 */
import type { AttributeValue, GraphPass, Node } from '@switchyard/core';
import { BLOCKED_DOMAIN } from '../native/channel-blocked.js';
import { GraphRewriter, hasOp } from './graph-rewriter.js';

function intAttr(node: Node, name: string): number | undefined {
  const a = node.attributes.get(name);
  return a?.type === 'int' ? Number(a.value) : undefined;
}

/** The BlockedConv producing `name` when it can write into a slice of a concatenation by `concat`, else undefined. */
function branchConv(rw: GraphRewriter, name: string, concat: Node, block: number): Node | undefined {
  const conv = rw.producer(name);
  if (conv?.opType !== 'BlockedConv' || conv.domain !== BLOCKED_DOMAIN || conv.outputs.length !== 1) return undefined;
  const [, w, , z] = conv.inputs;
  const wDims = rw.staticShape(w);
  if (z || !wDims || !rw.constant(w) || wDims[0] % block !== 0 || intAttr(conv, 'y_block') !== block) return undefined;
  return rw.soleReader(name) === concat ? conv : undefined;
}

function fuse(rw: GraphRewriter, concat: Node): void {
  const axis = rw.attrs(concat).int('axis', 1);
  const out = concat.outputs[0];
  if (axis !== 1 || !out || concat.outputs.length !== 1 || concat.inputs.length < 2) return;
  if (new Set(concat.inputs).size !== concat.inputs.length || concat.inputs.some((i) => !i)) return;
  const first = rw.producer(concat.inputs[0]);
  const block = first ? intAttr(first, 'y_block') : undefined;
  if (!block) return;
  const convs: Node[] = [];
  for (const input of concat.inputs) {
    const conv = branchConv(rw, input, concat, block);
    if (!conv) return;
    convs.push(conv);
  }
  if (!rw.owned([...convs, concat])) return;
  const attributes = new Map<string, AttributeValue>([
    ['branches', { type: 'int', value: convs.length }],
    ['y_block', { type: 'int', value: block }],
  ]);
  const inputs: string[] = [];
  convs.forEach((conv, i) => {
    const [x, w, b = ''] = conv.inputs;
    inputs.push(x, w, b);
    for (const [name, value] of conv.attributes) attributes.set(`b${i}_${name}`, value);
  });
  rw.replace([...convs, concat], {
    opType: 'BlockedConvConcat',
    domain: BLOCKED_DOMAIN,
    name: `${concat.name || 'Concat'}_convs`,
    inputs,
    outputs: [out],
    attributes,
  });
}

/** The pass; it must run after the blocked-layout pass (it fuses BlockedConv nodes only). */
export const blockedConvConcatFusion: GraphPass = {
  name: 'cpu:blocked-conv-concat-fusion',
  level: 'all',
  run(graph, report, context) {
    const rw = new GraphRewriter(graph, report, context?.mayRewrite);
    for (const node of rw.nodes()) {
      if (rw.isLive(node) && hasOp(node, 'Concat')) fuse(rw, node);
    }
  },
};
