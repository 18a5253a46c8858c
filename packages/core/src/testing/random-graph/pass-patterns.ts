/**
 * What the basic passes look for: repeated subexpressions (CSE), Identity and Dropout chains,
 * expressions of constants (folding), dead branches (DCE), and If nodes whose branches read outer
 * values and hold the same kinds of work (the passes also run inside subgraphs).
 */
import { Graph } from '../../ir/graph.js';
import { Tensor } from '../../tensor/tensor.js';
import { broadcastPartner, broadcastShapes, binary, unary } from './elementwise-ops.js';
import { GraphBuilder, type OutputSpec, type RandomValue } from './graph-builder.js';

/** Ops whose repetition CSE may merge (pure, deterministic). */
const REPEATABLE = new Set(['Add', 'Sub', 'Mul', 'Div', 'Relu', 'Sigmoid', 'Tanh', 'Shape', 'Gather', 'Reshape', 'Transpose', 'Slice', 'Concat', 'MatMul', 'Conv', 'Split', 'Constant', 'ReduceMean', 'Cast', 'Unsqueeze']);

/** Repeats a node of the graph with the same inputs and attributes: CSE merges the two. */
export function duplicate(b: GraphBuilder): RandomValue | undefined {
  const candidates = b.graph.nodes.filter((n) => REPEATABLE.has(n.opType) && n.outputs.every((o) => b.values.some((v) => v.name === o)));
  if (candidates.length === 0) return undefined;
  const outs = b.duplicate(b.rng.pick(candidates));
  return outs[0];
}

/**
 * Two nodes of one op on the same inputs that differ only in an attribute or in operand order: CSE
 * must keep both. Their results are combined so both reach an output.
 */
export function nearDuplicates(b: GraphBuilder): RandomValue | undefined {
  const x = b.pickFloat((v) => v.shape.length >= 2);
  if (!x) return undefined;
  const r = b.rng;
  const rank = x.shape.length;
  const f32 = (shape: readonly number[], mag = x.mag): OutputSpec => ({ dtype: 'float32', shape, mag });
  const kind = r.pick(['LeakyRelu', 'Softmax', 'ReduceMean', 'Sub', 'Transpose', 'Gather'] as const);
  let p: RandomValue;
  let q: RandomValue;
  if (kind === 'LeakyRelu') {
    [p, q] = [0.1, 0.3].map((alpha) => b.op(kind, [x], f32(x.shape), { alpha: { float: alpha } }));
  } else if (kind === 'Softmax') {
    [p, q] = [-1, 0].map((axis) => b.op(kind, [x], f32(x.shape, 1), { axis }));
  } else if (kind === 'ReduceMean') {
    [p, q] = [rank - 1, 0].map((axis) => b.reduce(kind, x, [axis], f32(x.shape.map((d, i) => (i === axis ? 1 : d)))));
  } else if (kind === 'Sub') {
    const y = b.constant(b.floats(x.shape, -1, 1));
    [p, q] = [b.op(kind, [x, y], f32(x.shape, x.mag + 1)), b.op(kind, [y, x], f32(x.shape, x.mag + 1))];
  } else if (kind === 'Transpose') {
    // Two perms of a square pair of trailing axes give the same shape.
    const perm = (swap: boolean) => Array.from({ length: rank }, (_, i) => (swap && i >= rank - 2 ? 2 * rank - 3 - i : i));
    if (x.shape[rank - 1] !== x.shape[rank - 2]) return undefined;
    [p, q] = [false, true].map((swap) => b.op(kind, [x], f32(x.shape), { perm: perm(swap) }));
  } else {
    // One index into axes of equal length.
    const axes = x.shape.map((d, i) => i).filter((i) => x.shape[i] === x.shape[0]);
    if (axes.length < 2) return undefined;
    const idx = b.constant(b.int64s([r.int(0, x.shape[0] - 1)]), 'idx');
    [p, q] = axes.slice(0, 2).map((axis) => b.op(kind, [x, idx], f32(x.shape.map((d, i) => (i === axis ? 1 : d))), { axis }));
  }
  const shape = p.shape.map((d, i) => Math.max(d, q.shape[i]));
  return b.op('Sub', [p, q], f32(shape, p.mag + q.mag));
}

/** Identity / Dropout (inference) chains, which identity elimination removes. */
export function identityChain(b: GraphBuilder): RandomValue | undefined {
  let x = b.pickFloat();
  if (!x) return undefined;
  for (let k = b.rng.int(1, 3); k > 0; k--) {
    if (b.rng.chance(0.7)) x = b.op('Identity', [x], { dtype: 'float32', shape: x.shape, mag: x.mag });
    else {
      const ratio = b.rng.chance(0.5) ? [b.constant(new Tensor('float32', Float32Array.of(0.3), []))] : [];
      const outputs: OutputSpec[] = [{ dtype: 'float32', shape: x.shape, mag: x.mag }];
      // Sometimes with the mask output too (all true in inference), read or not.
      if (b.rng.chance(0.3)) outputs.push({ dtype: 'bool', shape: x.shape, mag: 1 });
      x = b.node('Dropout', [x, ...ratio], outputs)[0];
    }
  }
  return x;
}

/** Arithmetic and shape ops on constants only: constant folding turns them into initializers. */
export function foldable(b: GraphBuilder): RandomValue | undefined {
  const x = b.pickFloat();
  const r = b.rng;
  const shape = x ? broadcastPartner(b, x.shape) : [r.int(1, 4)];
  let c = b.constant(b.floats(shape, -1, 1));
  for (let k = r.int(1, 3); k > 0; k--) {
    const op = r.pick(['Add', 'Mul', 'Relu', 'Sigmoid', 'Cast16']);
    if (op === 'Relu' || op === 'Sigmoid') c = b.op(op, [c], { dtype: 'float32', shape: c.shape, mag: op === 'Sigmoid' ? 1 : c.mag });
    else if (op === 'Cast16') {
      const h = b.op('Cast', [c], { dtype: 'float16', shape: c.shape, mag: c.mag }, { to: 10 });
      c = b.op('Cast', [h], { dtype: 'float32', shape: c.shape, mag: c.mag }, { to: 1 });
    } else {
      const d = b.constant(b.floats(broadcastPartner(b, c.shape), -1, 1));
      c = b.op(op, [c, d], { dtype: 'float32', shape: broadcastShapes(c.shape, d.shape)!, mag: op === 'Mul' ? c.mag : c.mag + 1 });
    }
  }
  if (!x || broadcastShapes(x.shape, c.shape) === undefined) return c;
  return b.op(r.pick(['Add', 'Mul']), r.chance(0.5) ? [x, c] : [c, x], { dtype: 'float32', shape: broadcastShapes(x.shape, c.shape)!, mag: x.mag * 2 + 1 });
}

/** A few nodes nothing reads afterwards: dead-code elimination drops them. */
export function deadBranch(b: GraphBuilder): RandomValue | undefined {
  const before = b.values.length;
  for (let k = b.rng.int(1, 3); k > 0; k--) (b.rng.chance(0.5) ? unary : binary)(b);
  b.retire(b.values.slice(before));
  return undefined;
}

/**
 * An If on a boolean graph input. Each branch maps an outer value to its shape with a few nodes that
 * read other outer values, fold, repeat or pass through; a branch may also return the outer value itself.
 */
export function ifNode(b: GraphBuilder): RandomValue | undefined {
  const x = b.pickFloat((v) => v.shape.length >= 1);
  if (!x) return undefined;
  const r = b.rng;
  const cond = b.values.find((v) => v.dtype === 'bool' && v.shape.length === 0) ?? b.input('bool', []);
  const branch = (label: string): Graph => {
    const g = new Graph({ name: b.fresh(label), opsetImports: new Map(), parent: b.graph });
    const sub = b.child(g);
    let y = x;
    if (r.chance(0.15)) {
      // The branch returns the outer value as it is.
      g.outputs = [{ name: x.name, type: { kind: 'tensor', elemType: 'float32', shape: [...x.shape] } }];
      return g;
    }
    for (let k = r.int(1, 4); k > 0; k--) {
      const step = r.weighted([['map', 3], ['mix', 3], ['repeat', 1], ['identity', 1], ['constant', 1]] as const);
      if (step === 'map') y = sub.op(r.pick(['Relu', 'Tanh', 'Neg', 'Sigmoid']), [y], { dtype: 'float32', shape: y.shape, mag: Math.max(1, y.mag) });
      else if (step === 'identity') y = sub.op('Identity', [y], { dtype: 'float32', shape: y.shape, mag: y.mag });
      else if (step === 'repeat' && g.nodes.some((n) => n.opType !== 'Constant')) {
        // Every non-Constant node of the branch yields x's shape, so its repeat can carry the chain on.
        y = sub.duplicate(r.pick(g.nodes.filter((n) => n.opType !== 'Constant')))[0] ?? y;
      }
      else {
        // An outer value or a (folding) constant that broadcasts into y's shape.
        const fits = (v: RandomValue) => v.dtype === 'float32' && v !== y && broadcastShapes(v.shape, y.shape)?.every((d, i) => d === y.shape[i]) === true;
        const other = step === 'mix' ? sub.pickFloat(fits) : undefined;
        const c = other ?? sub.constant(sub.floats(y.shape.slice(-1), -1, 1));
        y = sub.op(r.pick(['Add', 'Mul', 'Sub']), [y, c], { dtype: 'float32', shape: y.shape, mag: y.mag * 2 + 1 });
      }
    }
    if (y.mag > 6) y = sub.op('Tanh', [y], { dtype: 'float32', shape: y.shape, mag: 1 });
    g.outputs = [{ name: y.name, type: { kind: 'tensor', elemType: 'float32', shape: [...y.shape] } }];
    return g;
  };
  const thenBranch = branch('then');
  const elseBranch = branch('else');
  return b.op('If', [cond], { dtype: 'float32', shape: x.shape, mag: 6 }, { then_branch: { type: 'graph', value: thenBranch }, else_branch: { type: 'graph', value: elseBranch } });
}

/**
 * A Loop of a constant 1 to 3 trips carrying one value: the body maps it (reading outer values and
 * constants, with repeats and identities for the passes inside) and squashes it, so trips stay bounded.
 */
export function loopNode(b: GraphBuilder): RandomValue | undefined {
  const x = b.pickFloat((v) => v.shape.length >= 1 && v.shape.length <= 4);
  if (!x) return undefined;
  const r = b.rng;
  const body = new Graph({ name: b.fresh('body'), opsetImports: new Map(), parent: b.graph });
  const sub = b.child(body);
  sub.bodyInput('int64', [], 3);
  const condIn = sub.bodyInput('bool', [], 1);
  let v = sub.bodyInput('float32', x.shape, x.mag);
  const start = v;
  for (let k = r.int(1, 3); k > 0; k--) {
    const fits = (w: RandomValue) => w !== v && broadcastShapes(w.shape, v.shape)?.every((d, i) => d === v.shape[i]) === true;
    const step = r.weighted([['map', 2], ['mix', 3], ['repeat', 1], ['identity', 1]] as const);
    if (step === 'map') v = sub.op(r.pick(['Relu', 'Neg', 'Sigmoid']), [v], { dtype: 'float32', shape: v.shape, mag: Math.max(1, v.mag) });
    else if (step === 'identity') v = sub.op('Identity', [v], { dtype: 'float32', shape: v.shape, mag: v.mag });
    else if (step === 'repeat' && body.nodes.some((n) => n.opType !== 'Constant')) {
      // Every non-Constant node of the body yields the carried shape.
      v = sub.duplicate(r.pick(body.nodes.filter((n) => n.opType !== 'Constant')))[0] ?? v;
    } else {
      const other = sub.pickFloat((w) => w.mag <= 6 && fits(w)) ?? sub.constant(sub.floats(v.shape.slice(-1), -1, 1));
      v = sub.op(r.pick(['Add', 'Mul']), [v, other], { dtype: 'float32', shape: v.shape, mag: v.mag * 6 + 1 });
    }
  }
  if (v === start || v.mag > 1) v = sub.op('Tanh', [v], { dtype: 'float32', shape: v.shape, mag: 1 });
  const condOut = r.chance(0.5) ? sub.op('Identity', [condIn], { dtype: 'bool', shape: [], mag: 1 }) : condIn;
  body.outputs = [condOut, v].map((o) => ({ name: o.name, type: { kind: 'tensor', elemType: o.dtype, shape: [...o.shape] } }));
  const trips = b.constant(b.int64s([r.int(1, 3)], []), 'trips');
  const cond = r.chance(0.5) ? b.constant(new Tensor('bool', Uint8Array.of(1), []), 'cond') : '';
  return b.op('Loop', [trips, cond, x], { dtype: 'float32', shape: x.shape, mag: 1 }, { body: { type: 'graph', value: body } });
}
