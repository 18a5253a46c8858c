/**
 * If, Loop and Scan: their bodies are inferred with seeded inputs, and the node's outputs are read
 * from the bodies' outputs. Outer-scope names resolve through the body's `parent`.
 */
import type { ShapeRule } from '../context.js';
import type { Dim, Graph, ValueType } from '../../ir/graph.js';
import { commonType, normalizeAxis } from '../dims.js';
import { withoutShape } from '../schema-dtypes.js';

function bodyOutputType(body: Graph, index: number): ValueType | undefined {
  const out = body.outputs[index];
  return out ? body.typeOf(out.name) : undefined;
}

/** A loop-carried value may change shape between iterations: keep its type and rank only. */
function rankOnly(t: ValueType | undefined): ValueType | undefined {
  if (t?.kind !== 'tensor') return t;
  return t.shape ? { kind: 'tensor', elemType: t.elemType, shape: t.shape.map(() => undefined) } : t;
}

/** Type of one iteration's slice of a scanned tensor. */
function withDimRemoved(t: ValueType | undefined, axis: number): ValueType | undefined {
  if (t?.kind !== 'tensor' || !t.shape) return t?.kind === 'tensor' ? { kind: 'tensor', elemType: t.elemType } : undefined;
  const a = normalizeAxis(axis, t.shape.length);
  if (a === undefined) return { kind: 'tensor', elemType: t.elemType };
  return { kind: 'tensor', elemType: t.elemType, shape: t.shape.filter((_, i) => i !== a) };
}

/** The stacked type of per-iteration values, `count` long at `axis`. */
function withDimInserted(t: ValueType | undefined, axis: number, count: Dim): ValueType | undefined {
  if (t?.kind !== 'tensor' || !t.shape) return t?.kind === 'tensor' ? { kind: 'tensor', elemType: t.elemType } : undefined;
  const a = normalizeAxis(axis, t.shape.length + 1);
  if (a === undefined) return { kind: 'tensor', elemType: t.elemType };
  const shape = [...t.shape];
  shape.splice(a, 0, count);
  return { kind: 'tensor', elemType: t.elemType, shape };
}

const ifRule: ShapeRule = (ctx) => {
  const thenBranch = ctx.attrs.graph('then_branch');
  const elseBranch = ctx.attrs.graph('else_branch');
  ctx.inferSubgraph(thenBranch, []);
  ctx.inferSubgraph(elseBranch, []);
  const cond = ctx.numbers(0);
  for (let o = 0; o < ctx.outputs.length; o++) {
    const a = bodyOutputType(thenBranch, o);
    const b = bodyOutputType(elseBranch, o);
    // A known condition picks the branch; otherwise only what both branches agree on is certain.
    ctx.setType(o, cond?.length === 1 ? (cond[0] ? a : b) : commonType(a, b));
  }
};

const loop: ShapeRule = (ctx) => {
  const body = ctx.attrs.graph('body');
  const carried = ctx.inputCount - 2;
  const seeds: (ValueType | undefined)[] = [
    { kind: 'tensor', elemType: 'int64', shape: [] },
    { kind: 'tensor', elemType: 'bool', shape: [] },
  ];
  for (let i = 0; i < carried; i++) seeds.push(rankOnly(ctx.type(i + 2)));
  ctx.inferSubgraph(body, seeds);
  // Without a condition input the loop runs exactly M times, so scan outputs have M rows.
  const tripCount = ctx.hasInput(1) ? undefined : ctx.scalar(0);
  for (let o = 0; o < ctx.outputs.length; o++) {
    const fromBody = bodyOutputType(body, o + 1);
    if (o < carried) {
      // Zero iterations return the initial value, so only what it shares with the body's result holds.
      const initial = ctx.type(o + 2);
      ctx.setType(o, fromBody && initial ? commonType(initial, fromBody) : withoutShape(fromBody ?? initial));
    } else {
      ctx.setType(o, withDimInserted(fromBody, 0, tripCount));
    }
  }
};

/** Scan (opset ≥ 9): N state inputs, then M scanned inputs sliced along their scan axes. */
const scan: ShapeRule = (ctx) => {
  const body = ctx.attrs.graph('body');
  if (ctx.opset < 9) return; // opset 8's batched form: body inferred generically, outputs left to the schema
  const m = ctx.attrs.int('num_scan_inputs');
  const n = ctx.inputCount - m;
  const inputAxes = ctx.attrs.ints('scan_input_axes', Array<number>(m).fill(0));
  const outputAxes = ctx.attrs.ints('scan_output_axes', Array<number>(ctx.outputs.length - n).fill(0));
  const seeds: (ValueType | undefined)[] = [];
  for (let i = 0; i < n; i++) seeds.push(ctx.type(i));
  let seqLen: Dim;
  for (let j = 0; j < m; j++) {
    const t = ctx.type(n + j);
    seeds.push(withDimRemoved(t, inputAxes[j] ?? 0));
    const shape = t?.kind === 'tensor' ? t.shape : undefined;
    const axis = normalizeAxis(inputAxes[j] ?? 0, shape?.length);
    if (seqLen === undefined && shape && axis !== undefined) seqLen = shape[axis];
  }
  ctx.inferSubgraph(body, seeds);
  for (let o = 0; o < ctx.outputs.length; o++) {
    const fromBody = bodyOutputType(body, o);
    ctx.setType(o, o < n ? fromBody : withDimInserted(fromBody, outputAxes[o - n] ?? 0, seqLen));
  }
};

export const controlFlowRules: Record<string, ShapeRule> = {
  If: ifRule,
  Loop: loop,
  Scan: scan,
};
