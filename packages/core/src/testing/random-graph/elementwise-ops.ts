/** Random element-wise nodes: activations, broadcasting arithmetic, Clip, and float16 islands. */
import { Tensor } from '../../tensor/tensor.js';
import { MAG_LIMIT, type GraphBuilder, type RandomValue } from './graph-builder.js';

/** The ONNX (numpy) broadcast of two shapes, or undefined when they do not broadcast. */
export function broadcastShapes(a: readonly number[], b: readonly number[]): number[] | undefined {
  const rank = Math.max(a.length, b.length);
  const out: number[] = [];
  for (let i = 0; i < rank; i++) {
    const p = a[a.length - rank + i] ?? 1;
    const q = b[b.length - rank + i] ?? 1;
    if (p !== q && p !== 1 && q !== 1) return undefined;
    out.push(p === 1 ? q : p);
  }
  return out;
}

/** A shape that broadcasts against `shape`: a suffix of it, with some dims 1, rarely one leading dim more. */
export function broadcastPartner(b: GraphBuilder, shape: readonly number[]): number[] {
  const r = b.rng;
  const keep = r.int(0, shape.length);
  const partner = shape.slice(shape.length - keep).map((d) => (r.chance(0.35) ? 1 : d));
  // One more leading dim widens the result (only in front of all of `shape`'s dims).
  if (keep === shape.length && shape.length < 5 && r.chance(0.08)) partner.unshift(2);
  return partner;
}

/** Activations and other one-input maps, with how each changes the magnitude bound. */
const UNARY: ReadonlyArray<readonly [op: string, mag: (m: number) => number]> = [
  ['Relu', (m) => m],
  ['Sigmoid', () => 1],
  ['Tanh', () => 1],
  ['HardSwish', (m) => m * Math.max(1, (m + 3) / 6)],
  ['LeakyRelu', (m) => m],
  ['Abs', (m) => m],
  ['Neg', (m) => m],
  ['Identity', (m) => m],
  ['Erf', () => 1],
  ['Softsign', () => 1],
];

export function unary(b: GraphBuilder): RandomValue | undefined {
  const x = b.pickFloat();
  if (!x) return undefined;
  const [op, mag] = b.rng.pick(UNARY.filter(([name]) => name !== 'HardSwish' || b.opset >= 14));
  const attrs = op === 'LeakyRelu' && b.rng.chance(0.7) ? { alpha: { float: b.rng.pick([0.01, 0.1, 0.2]) } } : {};
  return b.op(op, [x], { dtype: 'float32', shape: x.shape, mag: mag(x.mag) }, attrs);
}

/** Clip with constant bounds (either may be omitted), as activations like ReLU6 are written. */
export function clip(b: GraphBuilder): RandomValue | undefined {
  const x = b.pickFloat();
  if (!x) return undefined;
  const lo = b.rng.chance(0.8) ? b.rng.pick([0, -1, -0.5]) : undefined;
  const hi = b.rng.chance(0.8) ? b.rng.pick([6, 1, 0.5]) : undefined;
  const scalar = (v: number) => b.constant(new Tensor('float32', Float32Array.of(v), []));
  const inputs: Array<RandomValue | ''> = [x, lo === undefined ? '' : scalar(lo)];
  if (hi !== undefined) inputs.push(scalar(hi));
  const mag = Math.min(x.mag, Math.max(Math.abs(lo ?? -Infinity), Math.abs(hi ?? Infinity)));
  return b.op('Clip', inputs, { dtype: 'float32', shape: x.shape, mag });
}

/** The other operand of a binary op on `x`: a value of the graph that broadcasts, a new constant, or `x`. */
function partnerFor(b: GraphBuilder, x: RandomValue, multiplies: boolean): RandomValue {
  const r = b.rng;
  const fits = (v: RandomValue) => v !== x && broadcastShapes(v.shape, x.shape) !== undefined && elementsAfter(v, x) <= 4096 && (!multiplies || v.mag <= MAG_LIMIT);
  const choice = r.weighted([['value', 4], ['constant', 4], ['scalar', 2], ['self', 1]] as const);
  if (choice === 'value') {
    const v = b.pickFloat(fits);
    if (v) return v;
  }
  if (choice === 'self') return x;
  if (choice === 'scalar') return b.constant(new Tensor('float32', Float32Array.of(r.float(-1.5, 1.5)), r.chance(0.5) ? [] : [1]));
  return b.constant(b.floats(broadcastPartner(b, x.shape), -1, 1));
}

function elementsAfter(a: RandomValue, x: RandomValue): number {
  return (broadcastShapes(a.shape, x.shape) ?? []).reduce((p, d) => p * d, 1);
}

/** Add, Sub or Mul with broadcasting, operands in either order. */
export function binary(b: GraphBuilder): RandomValue | undefined {
  const op = b.rng.pick(['Add', 'Sub', 'Mul', 'Add']);
  let x = b.pickFloat();
  if (!x) return undefined;
  if (op === 'Mul') x = b.tame(x);
  const y = partnerFor(b, x, op === 'Mul');
  const shape = broadcastShapes(x.shape, y.shape)!;
  const mag = op === 'Mul' ? x.mag * y.mag : x.mag + y.mag;
  const [p, q] = b.rng.chance(0.5) ? [x, y] : [y, x];
  return b.op(op, [p, q], { dtype: 'float32', shape, mag });
}

/**
 * Div by something safely away from zero: a constant of one sign in [0.5, 2], or a value of the graph
 * made positive (Sigmoid + 0.5).
 */
export function divide(b: GraphBuilder): RandomValue | undefined {
  const x = b.pickFloat();
  if (!x) return undefined;
  const r = b.rng;
  let d: RandomValue;
  const other = r.chance(0.4) ? b.pickFloat((v) => v !== x && broadcastShapes(v.shape, x.shape) !== undefined) : undefined;
  if (other) {
    const s = b.op('Sigmoid', [other], { dtype: 'float32', shape: other.shape, mag: 1 });
    const half = b.constant(new Tensor('float32', Float32Array.of(0.5), []));
    d = b.op('Add', [s, half], { dtype: 'float32', shape: other.shape, mag: 1.5 });
  } else {
    const sign = r.chance(0.5) ? 1 : -1;
    const shape = r.chance(0.3) ? [] : broadcastPartner(b, x.shape);
    const t = b.floats(shape, 0.5, 2);
    for (let i = 0; i < t.data.length; i++) t.data[i] *= sign;
    d = b.constant(t);
  }
  return b.op('Div', [x, d], { dtype: 'float32', shape: broadcastShapes(x.shape, d.shape)!, mag: x.mag * 2 });
}

/**
 * A float16 island, as float16 converters leave models: Cast to float16, a few float16 ops with
 * float16 constants, Cast back. Only from exact values, so the island's rounding is the same at every level.
 */
export function float16Island(b: GraphBuilder): RandomValue | undefined {
  const x = b.pickFloat((v) => v.exact && v.mag <= MAG_LIMIT);
  if (!x) return undefined;
  const r = b.rng;
  let h = b.op('Cast', [x], { dtype: 'float16', shape: x.shape, mag: x.mag }, { to: 10 });
  for (let i = r.int(1, 3); i > 0; i--) {
    const op = r.pick(['Relu', 'Add', 'Mul', 'Sigmoid', 'Sub']);
    if (op === 'Relu' || op === 'Sigmoid') h = b.op(op, [h], { dtype: 'float16', shape: h.shape, mag: op === 'Sigmoid' ? 1 : h.mag });
    else {
      const c = b.constant(b.float16s(broadcastPartner(b, h.shape), -1, 1));
      const shape = broadcastShapes(h.shape, c.shape)!;
      h = b.op(op, r.chance(0.5) ? [h, c] : [c, h], { dtype: 'float16', shape, mag: op === 'Mul' ? h.mag : h.mag + 1 });
    }
  }
  return b.op('Cast', [h], { dtype: 'float32', shape: h.shape, mag: h.mag }, { to: 1 });
}
