/**
 * Einsum, general: any number of operands, repeated labels (diagonals), ellipsis broadcasting,
 * implicit or explicit output. One loop over output positions; for each, a sum over the contracted
 * labels whose per-operand offsets are precomputed once. Values are combined in float64
 * (64-bit integers beyond 2^53 lose precision).
 */
import { SwitchyardError, type Tensor } from '@switchyard/core';
import { NUMERIC_TYPES, allocOutput, numberValue, storageValue } from '../tensor-ops/elements.js';
import { rowMajorStrides } from '../tensor-ops/strided.js';
import { tensorKernel } from '../tensor-ops/define.js';

const MAX_CONTRACTION_TABLE = 2 ** 27;

interface ParsedTerm {
  letters: string[];
  /** Position of '...' among the labels, or -1. */
  ellipsisAt: number;
}

function parseTerm(term: string, equation: string): ParsedTerm {
  const letters: string[] = [];
  let ellipsisAt = -1;
  for (let i = 0; i < term.length; i++) {
    if (term.startsWith('...', i)) {
      if (ellipsisAt >= 0) throw new SwitchyardError('INVALID_MODEL', `Einsum: two ellipses in a term of '${equation}'`);
      ellipsisAt = letters.length;
      i += 2;
    } else if (/[a-zA-Z]/.test(term[i])) letters.push(term[i]);
    else throw new SwitchyardError('INVALID_MODEL', `Einsum: unexpected '${term[i]}' in '${equation}'`);
  }
  return { letters, ellipsisAt };
}

/** Labels of a term with its ellipsis expanded into `count` broadcast labels aligned to the right of `total`. */
function expandLabels(t: ParsedTerm, count: number, total: number): string[] {
  if (t.ellipsisAt < 0) return t.letters;
  const ell = Array.from({ length: count }, (_, k) => `.${total - count + k}`);
  return [...t.letters.slice(0, t.ellipsisAt), ...ell, ...t.letters.slice(t.ellipsisAt)];
}

export function einsum(equation: string, inputs: readonly Tensor[]): { dims: number[]; values: Float64Array } {
  const eq = equation.replace(/\s+/g, '');
  const arrow = eq.indexOf('->');
  const lhs = arrow >= 0 ? eq.slice(0, arrow) : eq;
  const terms = lhs.split(',').map((t) => parseTerm(t, equation));
  if (terms.length !== inputs.length) throw new SwitchyardError('INVALID_MODEL', `Einsum: '${equation}' names ${terms.length} operands, got ${inputs.length}`);
  const ellCounts = terms.map((t, i) => {
    const e = inputs[i].dims.length - t.letters.length;
    if (e < 0 || (t.ellipsisAt < 0 && e !== 0)) {
      throw new SwitchyardError('INVALID_SHAPE', `Einsum: operand ${i} has rank ${inputs[i].dims.length}, term needs ${t.letters.length}`);
    }
    return e;
  });
  const ellRank = Math.max(0, ...ellCounts);
  const labelsPer = terms.map((t, i) => expandLabels(t, ellCounts[i], ellRank));

  const size = new Map<string, number>();
  labelsPer.forEach((labels, i) =>
    labels.forEach((l, k) => {
      const d = inputs[i].dims[k];
      const prev = size.get(l);
      if (prev === undefined || prev === 1) size.set(l, d);
      else if (d !== prev && !(d === 1 && l.startsWith('.'))) {
        throw new SwitchyardError('INVALID_SHAPE', `Einsum: label '${l}' has sizes ${prev} and ${d}`);
      }
    }),
  );
  for (let k = 0; k < ellRank; k++) if (!size.has(`.${k}`)) size.set(`.${k}`, 1);

  let outLabels: string[];
  if (arrow >= 0) {
    const outTerm = parseTerm(eq.slice(arrow + 2), equation);
    outLabels = expandLabels(outTerm, outTerm.ellipsisAt >= 0 ? ellRank : 0, ellRank);
    for (const l of outLabels) if (!size.has(l)) throw new SwitchyardError('INVALID_MODEL', `Einsum: output label '${l}' is not in any input`);
    if (new Set(outLabels).size !== outLabels.length) throw new SwitchyardError('INVALID_MODEL', `Einsum: repeated output label in '${equation}'`);
  } else {
    const counts = new Map<string, number>();
    for (const t of terms) for (const l of t.letters) counts.set(l, (counts.get(l) ?? 0) + 1);
    const once = [...counts].filter(([, c]) => c === 1).map(([l]) => l).sort();
    outLabels = [...Array.from({ length: ellRank }, (_, k) => `.${k}`), ...once];
  }
  const sumLabels = [...size.keys()].filter((l) => !outLabels.includes(l));

  // Per operand, the stride of each label (summed over repeats, 0 when absent or broadcast).
  const strideOf = labelsPer.map((labels, i) => {
    const s = rowMajorStrides(inputs[i].dims);
    const m = new Map<string, number>();
    labels.forEach((l, k) => {
      if (inputs[i].dims[k] !== 1 || size.get(l) === 1) m.set(l, (m.get(l) ?? 0) + s[k]);
    });
    return (l: string) => m.get(l) ?? 0;
  });
  const values = inputs.map((t) => {
    const v = new Float64Array(t.size);
    for (let j = 0; j < t.size; j++) v[j] = numberValue(t.type, t.data[j]);
    return v;
  });

  const outDims = outLabels.map((l) => size.get(l)!);
  const outSize = outDims.reduce((a, b) => a * b, 1);
  const sumDims = sumLabels.map((l) => size.get(l)!);
  const sumSize = sumDims.reduce((a, b) => a * b, 1);
  const nOps = inputs.length;
  if (sumSize * nOps > MAX_CONTRACTION_TABLE) throw new SwitchyardError('UNSUPPORTED', `Einsum: contraction over ${sumSize} positions is too large`);

  // Offsets of every contracted position, per operand.
  const sumOff = Array.from({ length: nOps }, () => new Float64Array(sumSize));
  const sIdx = new Array<number>(sumDims.length).fill(0);
  for (let p = 0; p < sumSize; p++) {
    for (let op = 0; op < nOps; op++) {
      let off = 0;
      for (let k = 0; k < sumLabels.length; k++) off += sIdx[k] * strideOf[op](sumLabels[k]);
      sumOff[op][p] = off;
    }
    for (let k = sumDims.length - 1; k >= 0; k--) {
      if (++sIdx[k] < sumDims[k]) break;
      sIdx[k] = 0;
    }
  }

  const outStrides = inputs.map((_, op) => outLabels.map((l) => strideOf[op](l)));
  const base = new Array<number>(nOps).fill(0);
  const oIdx = new Array<number>(outDims.length).fill(0);
  const result = new Float64Array(outSize);
  for (let p = 0; p < outSize; p++) {
    let acc = 0;
    if (nOps === 1) {
      const [v, so, b] = [values[0], sumOff[0], base[0]];
      for (let s = 0; s < sumSize; s++) acc += v[b + so[s]];
    } else if (nOps === 2) {
      const [v0, v1, s0, s1, b0, b1] = [values[0], values[1], sumOff[0], sumOff[1], base[0], base[1]];
      for (let s = 0; s < sumSize; s++) acc += v0[b0 + s0[s]] * v1[b1 + s1[s]];
    } else {
      for (let s = 0; s < sumSize; s++) {
        let prod = 1;
        for (let op = 0; op < nOps; op++) prod *= values[op][base[op] + sumOff[op][s]];
        acc += prod;
      }
    }
    result[p] = acc;
    for (let k = outDims.length - 1; k >= 0; k--) {
      for (let op = 0; op < nOps; op++) base[op] += outStrides[op][k];
      if (++oIdx[k] < outDims[k]) break;
      for (let op = 0; op < nOps; op++) base[op] -= outStrides[op][k] * outDims[k];
      oIdx[k] = 0;
    }
  }
  return { dims: outDims, values: result };
}

export const einsumKernel = tensorKernel({
  opType: 'Einsum',
  sinceVersion: 12,
  typeConstraints: { T: NUMERIC_TYPES },
  create({ attrs }) {
    const equation = attrs.string('equation');
    return {
      run(ctx) {
        const inputs = ctx.node.inputs.map((_, i) => ctx.input(i));
        const type = inputs[0].type;
        if (inputs.some((t) => t.type !== type)) throw new SwitchyardError('RUNTIME', 'Einsum: operands must share one type');
        const { dims, values } = einsum(equation, inputs);
        const out = allocOutput(ctx, 0, type, dims);
        const isInt = type !== 'float32' && type !== 'float64' && type !== 'float16' && type !== 'bfloat16';
        for (let i = 0; i < values.length; i++) out.data[i] = storageValue(type, isInt ? Math.round(values[i]) : values[i]);
        return [out];
      },
    };
  },
});
