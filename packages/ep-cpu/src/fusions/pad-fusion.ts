/**
 * A Pad of zeros on the spatial axes only, read by nothing but a Conv or an AveragePool, becomes that
 * op's own padding: TF and Paddle exports write every "SAME" convolution as Pad + Conv, and torch exports
 * `avg_pool2d(padding=p)` (count_include_pad) as Pad + AveragePool, which otherwise cost a padded copy of
 * the tensor and keep the op out of the channel-blocked layout. The sums are the same: the padded zeros
 * add nothing to a convolution, and an average that counts padding (count_include_pad = 1) counts them.
 * Only constant pads ≥ 0, mode `constant` with value 0, no `axes` input, and an op with explicit pads
 * (auto_pad NOTSET); an AveragePool only with ceil_mode 0, and one that does not count its own padding
 * only when it has none.
 */
import type { AttributeValue, GraphPass, Node } from '@switchyard/core';
import { GraphRewriter, hasOp } from './graph-rewriter.js';

/** Begin and end pads per axis of a Pad that pads spatial axes with zeros, or undefined. */
function zeroSpatialPads(rw: GraphRewriter, pad: Node, rank: number): { begin: number[]; end: number[] } | undefined {
  const attrs = rw.attrs(pad);
  if (attrs.string('mode', 'constant') !== 'constant') return undefined;
  let pads: number[] | undefined;
  if ((rw.opset() ?? 1) < 11) {
    if (attrs.float('value', 0) !== 0) return undefined;
    pads = attrs.has('pads') ? attrs.ints('pads') : undefined;
  } else {
    if (pad.inputs[3]) return undefined; // axes (opset 18)
    const value = pad.inputs[2];
    if (value) {
      const v = rw.constant(value);
      if (!v || v.size !== 1 || Number((v.data as ArrayLike<number | bigint>)[0]) !== 0) return undefined;
    }
    const p = rw.constant(pad.inputs[1]);
    if (p && (p.type === 'int64' || p.type === 'int32')) pads = Array.from(p.data as ArrayLike<number | bigint>, Number);
  }
  if (!pads || pads.length !== 2 * rank || pads.some((v) => !(v >= 0))) return undefined;
  const begin = pads.slice(0, rank);
  const end = pads.slice(rank);
  // N and C untouched: only spatial padding has a meaning for the op after.
  if (begin[0] !== 0 || begin[1] !== 0 || end[0] !== 0 || end[1] !== 0) return undefined;
  return { begin, end };
}

function ints(value: number[]): AttributeValue {
  return { type: 'ints', value };
}

function fuseOne(rw: GraphRewriter, pad: Node): void {
  const [x] = pad.inputs;
  const padded = pad.outputs[0];
  if (!x || !padded || pad.outputs.length !== 1 || rw.isGraphOutput(padded)) return;
  const reader = rw.soleReader(padded);
  if (!reader || reader.inputs[0] !== padded || reader.inputs.slice(1).includes(padded)) return;
  const isConv = hasOp(reader, 'Conv');
  if (!isConv && !hasOp(reader, 'AveragePool')) return;
  const rank = rw.rank(x) ?? rw.rank(padded);
  if (rank === undefined || rank < 3) return;
  const spatial = rank - 2;
  const amounts = zeroSpatialPads(rw, pad, rank);
  if (!amounts) return;
  const attrs = rw.attrs(reader);
  if (attrs.string('auto_pad', 'NOTSET') !== 'NOTSET') return rw.skip(pad, `${reader.opType} with auto_pad keeps the Pad before it`);
  const own = attrs.has('pads') ? attrs.ints('pads') : new Array<number>(2 * spatial).fill(0);
  if (own.length !== 2 * spatial) return;
  const changes: Array<[string, AttributeValue]> = [];
  if (!isConv) {
    if (attrs.int('ceil_mode', 0) !== 0) return rw.skip(pad, 'AveragePool with ceil_mode keeps the Pad before it');
    if (attrs.int('count_include_pad', 0) === 0) {
      // The Pad's zeros are counted in each average; the pool's own padding is not: both only when it has none.
      if (own.some((v) => v !== 0)) return rw.skip(pad, 'AveragePool that does not count its own padding keeps the Pad before it');
      changes.push(['count_include_pad', { type: 'int', value: 1 }]);
    }
  }
  const merged = own.map((v, i) => v + (i < spatial ? amounts.begin[i + 2] : amounts.end[i - spatial + 2]));
  if (!rw.owned([pad, reader])) return;
  const attributes = new Map([...reader.attributes, ['pads', ints(merged)], ...changes]);
  rw.replace([pad, reader], { opType: reader.opType, domain: reader.domain, name: reader.name, inputs: [x, ...reader.inputs.slice(1)], outputs: [...reader.outputs], attributes });
  rw.dropIfUnused(pad.inputs.slice(1));
}

export const padFusion: GraphPass = {
  name: 'cpu:pad-fusion',
  level: 'extended',
  run(graph, report, context) {
    const rw = new GraphRewriter(graph, report, context?.mayRewrite);
    for (const node of rw.nodes()) {
      if (rw.isLive(node) && hasOp(node, 'Pad')) fuseOne(rw, node);
    }
  },
};
