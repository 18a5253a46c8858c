// CPU references for the kernel library (src/native/kernels), written independently of the kernels
// in plain JavaScript with float64 arithmetic. Pure functions over flat arrays of numbers and dims;
// no addon, no device -- vitest checks these on machines without a GPU (src/kernels-js.test.ts).

// ---- float16 bits <-> number (IEEE binary16, round to nearest even)

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

export function f32ToF16Bits(value) {
  f32[0] = value;
  const x = u32[0];
  const sign = (x >>> 16) & 0x8000;
  const abs = x & 0x7fffffff;
  if (abs >= 0x7f800000) return sign | 0x7c00 | (abs > 0x7f800000 ? 0x200 : 0);
  if (abs >= 0x477ff000) return sign | 0x7c00;
  if (abs < 0x38800000) {
    if (abs < 0x33000000) return sign;
    const mantissa = (abs & 0x7fffff) | 0x800000;
    const shift = 126 - (abs >>> 23);
    const half = mantissa >>> shift;
    const remainder = mantissa & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    return sign | (half + (remainder > halfway || (remainder === halfway && (half & 1)) ? 1 : 0));
  }
  const rebased = abs - 0x38000000;
  let half = rebased >>> 13;
  const remainder = rebased & 0x1fff;
  if (remainder > 0x1000 || (remainder === 0x1000 && (half & 1))) half += 1;
  return sign | half;
}

export function f16BitsToF32(bits) {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >>> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 31) return mantissa ? NaN : sign * Infinity;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

export const roundF16 = (v) => f16BitsToF32(f32ToF16Bits(v));

// ---- seeded random numbers (mulberry32), so a failure reproduces

export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randomValues(count, rand, lo = -2, hi = 2) {
  return Array.from({ length: count }, () => lo + (hi - lo) * rand());
}

// ---- shapes

export const sizeOf = (dims) => dims.reduce((n, d) => n * d, 1);

export function stridesOf(dims) {
  const strides = new Array(dims.length);
  let s = 1;
  for (let i = dims.length - 1; i >= 0; i--) {
    strides[i] = s;
    s *= dims[i];
  }
  return strides;
}

export function broadcastDims(...shapes) {
  const rank = Math.max(...shapes.map((s) => s.length));
  const out = [];
  for (let i = 0; i < rank; i++) {
    let d = 1;
    for (const s of shapes) {
      const k = i - (rank - s.length);
      const v = k >= 0 ? s[k] : 1;
      if (v !== 1 && d !== 1 && v !== d) throw new Error(`shapes ${JSON.stringify(shapes)} do not broadcast`);
      if (v !== 1) d = v;
    }
    out.push(d);
  }
  return out;
}

// The coordinates of flat index `i` in `dims`.
export function coordsOf(i, dims) {
  const c = new Array(dims.length);
  for (let d = dims.length - 1; d >= 0; d--) {
    c[d] = i % dims[d];
    i = Math.floor(i / dims[d]);
  }
  return c;
}

// Flat index into `inDims` of the output coordinates, under numpy broadcasting.
export function broadcastSource(coords, inDims) {
  const offset = coords.length - inDims.length;
  let index = 0;
  for (let d = 0; d < inDims.length; d++) index = index * inDims[d] + (inDims[d] === 1 ? 0 : coords[d + offset]);
  return index;
}

// ---- math

// erf by its Maclaurin series for |x| < 3 and the continued fraction of erfc beyond (error < 1e-12).
export function erf(x) {
  if (Number.isNaN(x)) return NaN;
  const ax = Math.abs(x);
  if (ax < 3) {
    let term = ax, sum = ax;
    for (let n = 1; n < 100; n++) {
      term *= (-ax * ax) / n;
      const add = term / (2 * n + 1);
      sum += add;
      if (Math.abs(add) < 1e-17 * Math.abs(sum)) break;
    }
    return Math.sign(x) * (2 / Math.sqrt(Math.PI)) * sum;
  }
  // erfc(x) = exp(-x^2)/sqrt(pi) * 1/(x + 1/2/(x + 1/(x + 3/2/(x + ...)))), evaluated bottom-up.
  let f = ax;
  for (let k = 60; k >= 1; k--) f = ax + k / 2 / f;
  const erfc = Math.exp(-ax * ax) / Math.sqrt(Math.PI) / f;
  return Math.sign(x) * (1 - erfc);
}

const clamp01 = (v) => (v < 0 ? 0 : v > 1 ? 1 : v);

export const UNARY = {
  Identity: (x) => x,
  Relu: (x) => (x < 0 ? 0 : x),
  LeakyRelu: (x, p) => (x < 0 ? p.alpha * x : x),
  Sigmoid: (x) => 1 / (1 + Math.exp(-x)),
  Tanh: Math.tanh,
  GeluErf: (x) => 0.5 * x * (1 + erf(x / Math.SQRT2)),
  GeluTanh: (x) => 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x ** 3))),
  HardSigmoid: (x, p) => clamp01(p.alpha * x + p.beta),
  HardSwish: (x) => x * clamp01(x / 6 + 0.5),
  Clip: (x, p) => (x < p.alpha ? p.alpha : x > p.beta ? p.beta : x),
  Erf: erf,
  Exp: Math.exp,
  Log: Math.log,
  Sqrt: Math.sqrt,
  Neg: (x) => -x,
  Abs: Math.abs,
  Reciprocal: (x) => 1 / x,
};

const nanMax = (a, b) => (Number.isNaN(a) || Number.isNaN(b) ? NaN : Math.max(a, b));
const nanMin = (a, b) => (Number.isNaN(a) || Number.isNaN(b) ? NaN : Math.min(a, b));

export const BINARY = {
  Add: (a, b) => a + b,
  Sub: (a, b) => a - b,
  Mul: (a, b) => a * b,
  Div: (a, b) => a / b,
  Pow: (a, b) => a ** b,
  Max: nanMax,
  Min: nanMin,
  Equal: (a, b) => (a === b ? 1 : 0),
  Less: (a, b) => (a < b ? 1 : 0),
  Greater: (a, b) => (a > b ? 1 : 0),
  LessOrEqual: (a, b) => (a <= b ? 1 : 0),
  GreaterOrEqual: (a, b) => (a >= b ? 1 : 0),
};

export const COMPARISONS = new Set(['Equal', 'Less', 'Greater', 'LessOrEqual', 'GreaterOrEqual']);

// ---- references: each returns { data: number[], dims: number[] }

export function binary(op, a, aDims, b, bDims) {
  const dims = broadcastDims(aDims, bDims);
  const f = BINARY[op];
  const data = Array.from({ length: sizeOf(dims) }, (_, i) => {
    const c = coordsOf(i, dims);
    return f(a[broadcastSource(c, aDims)], b[broadcastSource(c, bDims)]);
  });
  return { data, dims };
}

export function where(cond, cDims, x, xDims, y, yDims) {
  const dims = broadcastDims(cDims, xDims, yDims);
  const data = Array.from({ length: sizeOf(dims) }, (_, i) => {
    const c = coordsOf(i, dims);
    return cond[broadcastSource(c, cDims)] ? x[broadcastSource(c, xDims)] : y[broadcastSource(c, yDims)];
  });
  return { data, dims };
}

export function unary(op, x, dims, params = { alpha: 0, beta: 0 }) {
  return { data: x.map((v) => UNARY[op](v, params)), dims };
}

// Reduces axes [axisBegin, axisEnd); the output keeps the other dims (keepdims = 0 layout).
export function reduce(op, x, dims, axisBegin, axisEnd) {
  const outer = sizeOf(dims.slice(0, axisBegin));
  const n = sizeOf(dims.slice(axisBegin, axisEnd));
  const inner = sizeOf(dims.slice(axisEnd));
  const data = [];
  for (let o = 0; o < outer; o++) {
    for (let j = 0; j < inner; j++) {
      const values = Array.from({ length: n }, (_, k) => x[(o * n + k) * inner + j]);
      data.push(reduceValues(op, values));
    }
  }
  return { data, dims: [...dims.slice(0, axisBegin), ...dims.slice(axisEnd)] };
}

function reduceValues(op, v) {
  const sum = (f) => v.reduce((s, x) => s + f(x), 0);
  switch (op) {
    case 'Sum': return sum((x) => x);
    case 'Mean': return sum((x) => x) / v.length;
    case 'Max': return v.reduce(nanMax, -Infinity);
    case 'Min': return v.reduce(nanMin, Infinity);
    case 'SumSquare': return sum((x) => x * x);
    case 'L1': return sum(Math.abs);
    case 'L2': return Math.sqrt(sum((x) => x * x));
    case 'LogSumExp': {
      const m = v.reduce(nanMax, -Infinity);
      const shift = Number.isFinite(m) ? m : 0;
      return Math.log(sum((x) => Math.exp(x - shift))) + shift;
    }
  }
  throw new Error(`unknown reduce op ${op}`);
}

export function softmax(x, dims, log) {
  const cols = dims[dims.length - 1];
  const data = new Array(x.length);
  for (let r = 0; r * cols < x.length; r++) {
    const row = x.slice(r * cols, (r + 1) * cols);
    const m = Math.max(...row);
    const s = row.reduce((acc, v) => acc + Math.exp(v - m), 0);
    row.forEach((v, c) => {
      data[r * cols + c] = log ? v - m - Math.log(s) : Math.exp(v - m) / s;
    });
  }
  return { data, dims };
}

export function layerNorm(x, residual, gamma, beta, dims, epsilon) {
  const cols = dims[dims.length - 1];
  const rows = x.length / cols;
  const out = [], sum = [], mean = [], invStd = [];
  for (let r = 0; r < rows; r++) {
    const h = Array.from({ length: cols }, (_, c) => x[r * cols + c] + (residual ? residual[r * cols + c] : 0));
    const mu = h.reduce((a, v) => a + v, 0) / cols;
    const variance = h.reduce((a, v) => a + (v - mu) ** 2, 0) / cols;
    const inv = 1 / Math.sqrt(variance + epsilon);
    h.forEach((v, c) => {
      sum.push(v);
      out.push((v - mu) * inv * gamma[c] + (beta ? beta[c] : 0));
    });
    mean.push(mu);
    invStd.push(inv);
  }
  return { out, sum, mean, invStd, dims };
}

// Out-of-range indices give zeros, as the kernel documents.
export function gather(data, dims, indices, indexDims, axis) {
  const outer = sizeOf(dims.slice(0, axis));
  const axisDim = dims[axis];
  const inner = sizeOf(dims.slice(axis + 1));
  const out = [];
  for (let o = 0; o < outer; o++) {
    for (const raw of indices) {
      let k = Number(raw);
      if (k < 0) k += axisDim;
      for (let j = 0; j < inner; j++) out.push(k >= 0 && k < axisDim ? data[(o * axisDim + k) * inner + j] : 0);
    }
  }
  return { data: out, dims: [...dims.slice(0, axis), ...indexDims, ...dims.slice(axis + 1)] };
}

export function concat(parts, axis) {
  const dims = [...parts[0].dims];
  dims[axis] = parts.reduce((n, p) => n + p.dims[axis], 0);
  const outer = sizeOf(dims.slice(0, axis));
  const out = [];
  for (let o = 0; o < outer; o++) {
    for (const p of parts) {
      const run = sizeOf(p.dims.slice(axis));
      out.push(...p.data.slice(o * run, (o + 1) * run));
    }
  }
  return { data: out, dims };
}

export function slice(x, dims, starts, steps, outDims) {
  const strides = stridesOf(dims);
  const data = Array.from({ length: sizeOf(outDims) }, (_, i) => {
    const c = coordsOf(i, outDims);
    return x[c.reduce((acc, v, d) => acc + (starts[d] + v * steps[d]) * strides[d], 0)];
  });
  return { data, dims: outDims };
}

// ONNX Slice's start/end/step clamping, giving the kernel's (starts, steps, outDims).
export function resolveSlice(dims, starts, ends, steps) {
  const s = [], out = [];
  dims.forEach((dim, d) => {
    const step = steps[d];
    let start = starts[d] < 0 ? starts[d] + dim : starts[d];
    let end = ends[d] < 0 ? ends[d] + dim : ends[d];
    if (step > 0) {
      start = Math.min(Math.max(start, 0), dim);
      end = Math.min(Math.max(end, 0), dim);
    } else {
      start = Math.min(Math.max(start, -1), dim - 1);
      end = Math.min(Math.max(end, -1), dim - 1);
    }
    const n = Math.max(0, Math.ceil((end - start) / step));
    out.push(n);
    s.push(n > 0 ? start : 0);
  });
  return { starts: s, steps, outDims: out };
}

export function transpose(x, dims, perm) {
  const outDims = perm.map((p) => dims[p]);
  const strides = stridesOf(dims);
  const data = Array.from({ length: x.length }, (_, i) => {
    const c = coordsOf(i, outDims);
    return x[c.reduce((acc, v, d) => acc + v * strides[perm[d]], 0)];
  });
  return { data, dims: outDims };
}

export function expand(x, dims, outDims) {
  const data = Array.from({ length: sizeOf(outDims) }, (_, i) => x[broadcastSource(coordsOf(i, outDims), dims)]);
  return { data, dims: outDims };
}

export function pad(x, dims, begin, end, mode, value) {
  const outDims = dims.map((d, i) => d + begin[i] + end[i]);
  const strides = stridesOf(dims);
  const data = Array.from({ length: sizeOf(outDims) }, (_, i) => {
    const c = coordsOf(i, outDims);
    let offset = 0;
    for (let d = 0; d < dims.length; d++) {
      let k = c[d] - begin[d];
      if (k < 0 || k >= dims[d]) {
        if (mode === 'constant') return value;
        if (mode === 'edge' || dims[d] === 1) k = k < 0 ? 0 : dims[d] - 1;
        else {
          // reflect, one bounce at a time (pads may exceed the dim)
          while (k < 0 || k >= dims[d]) k = k < 0 ? -k : 2 * (dims[d] - 1) - k;
        }
      }
      offset += k * strides[d];
    }
    return x[offset];
  });
  return { data, dims: outDims };
}

export function biasActivation(x, dims, bias, residual, axis, activation, params, residualFirst) {
  const inner = sizeOf(dims.slice(axis + 1));
  const channels = dims[axis];
  const f = UNARY[activation ?? 'Identity'];
  const data = x.map((v, i) => {
    let t = v + (bias ? bias[Math.floor(i / inner) % channels] : 0);
    if (residual && residualFirst) t += residual[i];
    t = f(t, params);
    if (residual && !residualFirst) t += residual[i];
    return t;
  });
  return { data, dims };
}

// ---- comparison

// null when every element is within atol + rtol*|expected| (NaN matches NaN, inf matches same inf);
// otherwise a message naming the worst element.
export function compare(actual, expected, { atol = 1e-5, rtol = 1e-5 } = {}) {
  if (actual.length !== expected.length) return `length ${actual.length} != expected ${expected.length}`;
  let worst = -1, worstExcess = 0, bad = 0;
  for (let i = 0; i < expected.length; i++) {
    const a = Number(actual[i]), e = Number(expected[i]);
    if (Number.isNaN(e) ? Number.isNaN(a) : a === e) continue;
    const excess = Math.abs(a - e) - (atol + rtol * Math.abs(e));
    if (!(excess <= 0)) {
      bad++;
      if (worst < 0 || !(excess <= worstExcess)) {
        worst = i;
        worstExcess = excess;
      }
    }
  }
  if (bad === 0) return null;
  return `${bad}/${expected.length} elements off; worst at ${worst}: got ${actual[worst]}, expected ${expected[worst]} (atol ${atol}, rtol ${rtol})`;
}
