/**
 * Cast pairs that undo each other between float32 and float16: Cast(X → V) whose every reader is a
 * Cast(V → W) back to X's type. The readers of W read X instead and both Casts go (ONNX Runtime's
 * duplicate-Cast removal does the same). Such pairs are what computing float16 regions in float32
 * leaves where a converter's keep_io_types Casts meet the pass's own (float16-in-float32.ts), and
 * what a converter leaves around the ops it keeps in float32.
 *
 * float16 → float32 → float16 is exact, so dropping it changes nothing. float32 → float16 → float32
 * rounds to float16 on the way: dropping it keeps float32 precision and range (no rounding, no
 * overflow to ±Inf past 65504), which is why this runs at the 'extended' level, not 'basic'.
 *
 * When W is a graph output (its name must stay), X's producer writes W directly instead.
 */
import { dataTypeFromOnnx, type DataType, type GraphPass, type Node } from '@switchyard/core';
import { GraphRewriter, isOp } from './graph-rewriter.js';

type Half = 'float32' | 'float16';

function isHalf(t: DataType | undefined): t is Half {
  return t === 'float32' || t === 'float16';
}

/** The element type a Cast node converts to, when it is float32 or float16. */
function castTarget(node: Node): Half | undefined {
  const to = node.attributes.get('to');
  if (to?.type !== 'int') return undefined;
  const type = dataTypeFromOnnx(to.value);
  return isHalf(type) ? type : undefined;
}

/** Whether every reader of `name` reads it as a node input (not from inside a subgraph). */
function readDirectly(rw: GraphRewriter, name: string): boolean {
  return [...rw.readers(name)].every((r) => r.inputs.includes(name));
}

function renameInputs(rw: GraphRewriter, from: string, to: string): void {
  for (const r of [...rw.readers(from)]) rw.update(r, (n) => (n.inputs = n.inputs.map((i) => (i === from ? to : i))));
}

/**
 * Drops `second` (Cast V → W, W of x's type) so W's readers read `x`; when W is a graph output,
 * x's producer writes W instead. Returns the name x goes by afterwards, or undefined when the Cast
 * must stay.
 */
function bypass(rw: GraphRewriter, x: string, second: Node): string | undefined {
  const w = second.outputs[0];
  if (!w || !readDirectly(rw, w)) return undefined;
  if (!rw.isGraphOutput(w)) {
    if (!rw.owned([...rw.readers(w)])) return undefined;
    rw.remove(second);
    renameInputs(rw, w, x);
    rw.graph.valueInfo.delete(w);
    return x;
  }
  const producer = rw.producer(x);
  if (!producer || rw.isGraphOutput(x) || !readDirectly(rw, x) || !rw.owned([producer, ...rw.readers(x)])) return undefined;
  rw.remove(second);
  rw.update(producer, (n) => (n.outputs = n.outputs.map((o) => (o === x ? w : o))));
  renameInputs(rw, x, w);
  rw.graph.valueInfo.delete(x);
  return w;
}

function collapseFrom(rw: GraphRewriter, first: Node): void {
  let x = first.inputs[0];
  const v = first.outputs[0];
  const from = x ? rw.elemType(x) : undefined;
  const to = castTarget(first);
  if (!x || !v || !isHalf(from) || !to || from === to || rw.isGraphOutput(v)) return;
  const seconds = [...rw.readers(v)];
  if (seconds.length === 0 || !seconds.every((r) => isOp(r, 'Cast') && r.inputs[0] === v && castTarget(r) === from)) return;
  if (!rw.owned([first, ...seconds])) return;
  for (const second of seconds) {
    const now = bypass(rw, x, second);
    if (now === undefined) return;
    x = now;
  }
  rw.remove(first);
  rw.graph.valueInfo.delete(v);
}

export const castPairCollapse: GraphPass = {
  name: 'cpu:cast-pair-collapse',
  level: 'extended',
  run(graph, report, context) {
    const rw = new GraphRewriter(graph, report, context?.mayRewrite);
    for (const node of rw.nodes()) if (rw.isLive(node) && isOp(node, 'Cast')) collapseFrom(rw, node);
  },
};
