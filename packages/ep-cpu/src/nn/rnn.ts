/**
 * Shared driver for RNN, GRU and LSTM: validates shapes, handles layout, directions and
 * sequence_lens, precomputes X·Wᵀ for all steps with one GEMM per direction, then steps the cell.
 */
import { SwitchyardError, type KernelInit, type KernelRunContext, type KernelResult, type Tensor } from '@switchyard/core';
import { floatData, floatOutput, scratchLike, type FloatArray } from './float-io.js';
import { gemmAccumulate } from './gemm.js';
import { resolveActivations, type Activation } from './rnn-activations.js';

export type CellKind = 'rnn' | 'gru' | 'lstm';

const GATES: Record<CellKind, number> = { rnn: 1, gru: 3, lstm: 4 };
const DEFAULT_ACTIVATIONS: Record<CellKind, string[]> = { rnn: ['Tanh'], gru: ['Sigmoid', 'Tanh'], lstm: ['Sigmoid', 'Tanh', 'Tanh'] };

function fail(op: string, msg: string): never {
  throw new SwitchyardError('INVALID_SHAPE', `${op}: ${msg}`);
}

/** Moves dims 0 and 1 of a [a, b, rest] array: [a, b, rest] → [b, a, rest]. */
function swap01(src: FloatArray, a: number, b: number, rest: number, dst: FloatArray): void {
  for (let i = 0; i < a; i++) for (let j = 0; j < b; j++) for (let k = 0; k < rest; k++) dst[(j * a + i) * rest + k] = src[(i * b + j) * rest + k];
}

export function runRecurrent(kind: CellKind, ctx: KernelRunContext, init: KernelInit): KernelResult {
  const op = ctx.node.opType;
  const a = init.attrs;
  const G = GATES[kind];
  const X = ctx.input(0);
  const W = ctx.input(1);
  const R = ctx.input(2);
  const Bt = ctx.optionalInput(3);
  const lensT = ctx.optionalInput(4);
  const h0T = ctx.optionalInput(5);
  const c0T = kind === 'lstm' ? ctx.optionalInput(6) : undefined;
  const pT = kind === 'lstm' ? ctx.optionalInput(7) : undefined;
  const layout = init.opset >= 14 ? a.int('layout', 0) : 0;
  const direction = a.string('direction', 'forward');
  if (!['forward', 'reverse', 'bidirectional'].includes(direction)) throw new SwitchyardError('INVALID_ARGUMENT', `${op}: direction '${direction}' is unknown`);
  const dirs = direction === 'bidirectional' ? 2 : 1;
  if (X.dims.length !== 3) fail(op, `X must be rank 3, got [${X.dims.join(', ')}]`);
  const [seq, batch, inSize] = layout === 0 ? X.dims : [X.dims[1], X.dims[0], X.dims[2]];
  const H = a.int('hidden_size', W.dims[1] / G);
  if (!(H >= 1) || !Number.isInteger(H)) fail(op, `hidden_size ${H} is invalid`);
  if (W.dims.join() !== [dirs, G * H, inSize].join()) fail(op, `W must be [${dirs}, ${G * H}, ${inSize}], got [${W.dims.join(', ')}]`);
  if (R.dims.join() !== [dirs, G * H, H].join()) fail(op, `R must be [${dirs}, ${G * H}, ${H}], got [${R.dims.join(', ')}]`);
  if (Bt && Bt.size !== dirs * 2 * G * H) fail(op, `B must have ${dirs * 2 * G * H} elements`);
  const stateSize = dirs * batch * H;
  for (const [t, name] of [[h0T, 'initial_h'], [c0T, 'initial_c']] as const) if (t && t.size !== stateSize) fail(op, `${name} must have ${stateSize} elements`);
  if (pT && pT.size !== dirs * 3 * H) fail(op, `P must have ${dirs * 3 * H} elements`);
  const clip = a.has('clip') ? a.float('clip') : Infinity;
  const linearBeforeReset = kind === 'gru' && a.int('linear_before_reset', 0) !== 0;
  const inputForget = kind === 'lstm' && a.int('input_forget', 0) !== 0;
  const perDir = DEFAULT_ACTIVATIONS[kind].length;
  const names = a.has('activations') ? a.strings('activations') : [];
  const actNames = names.length === 0 ? Array.from({ length: dirs }, () => DEFAULT_ACTIVATIONS[kind]).flat() : names.length === perDir && dirs === 2 ? [...names, ...names] : names;
  if (actNames.length !== perDir * dirs) fail(op, `activations needs ${perDir * dirs} names, got ${actNames.length}`);
  const acts: Activation[] = resolveActivations(op, actNames, a.has('activation_alpha') ? a.floats('activation_alpha') : [], a.has('activation_beta') ? a.floats('activation_beta') : []);

  let lens: Int32Array | undefined;
  if (lensT) {
    if (lensT.size !== batch) fail(op, `sequence_lens must have ${batch} entries`);
    lens = Int32Array.from(lensT.data as ArrayLike<number>, Number);
    for (const l of lens) if (!(l >= 0 && l <= seq)) throw new SwitchyardError('INVALID_ARGUMENT', `${op}: sequence length ${l} is outside [0, ${seq}]`);
  }

  const xRaw = floatData(X);
  const x = layout === 0 ? xRaw : scratchLike(xRaw, xRaw.length);
  if (layout !== 0) swap01(xRaw, batch, seq, inSize, x);
  const w = floatData(W);
  const r = floatData(R);
  const bias = Bt ? floatData(Bt) : undefined;
  // Initial states come as [batch, dirs, H] in layout 1; reorder into copies (never into the inputs).
  const state = (t: Tensor | undefined) => {
    if (!t) return undefined;
    const src = floatData(t);
    if (layout === 0) return src;
    const dst = scratchLike(src, src.length);
    swap01(src, batch, dirs, H, dst);
    return dst;
  };
  const h0 = state(h0T);
  const c0 = state(c0T);
  const p = pT ? floatData(pT) : undefined;

  const y = scratchLike(x, seq * dirs * batch * H); // [seq, dirs, batch, H]
  const yh = scratchLike(x, stateSize);
  const yc = scratchLike(x, stateSize);
  const xw = scratchLike(x, seq * batch * G * H);
  const hr = scratchLike(x, batch * G * H);
  const hPrev = scratchLike(x, batch * H);
  const cPrev = scratchLike(x, batch * H);
  const gates = scratchLike(x, G * H);
  const clipv = (v: number) => (v > clip ? clip : v < -clip ? -clip : v);

  for (let d = 0; d < dirs; d++) {
    const reverse = direction === 'reverse' || d === 1;
    const [f, g, h] = [acts[d * perDir], acts[d * perDir + 1], acts[d * perDir + 2]];
    const wb = d * 2 * G * H;
    const rb = wb + G * H;
    // X·Wᵀ + Wb (+ Rb, except GRU's h gate whose Rb sits inside the reset product) for every step.
    for (let i = 0; i < seq * batch; i++) {
      for (let k = 0; k < G * H; k++) {
        const rbUsed = bias && !(kind === 'gru' && k >= 2 * H) ? bias[rb + k] : 0;
        xw[i * G * H + k] = bias ? bias[wb + k] + rbUsed : 0;
      }
    }
    gemmAccumulate(seq * batch, G * H, inSize, 1, { data: x, offset: 0, ld: inSize, trans: false }, { data: w, offset: d * G * H * inSize, ld: inSize, trans: true }, xw, 0, G * H);
    for (let b = 0; b < batch; b++) {
      for (let k = 0; k < H; k++) {
        hPrev[b * H + k] = h0 ? h0[(d * batch + b) * H + k] : 0;
        cPrev[b * H + k] = c0 ? c0[(d * batch + b) * H + k] : 0;
      }
    }
    for (let step = 0; step < seq; step++) {
      hr.fill(0);
      gemmAccumulate(batch, G * H, H, 1, { data: hPrev, offset: 0, ld: H, trans: false }, { data: r, offset: d * G * H * H, ld: H, trans: true }, hr, 0, G * H);
      for (let b = 0; b < batch; b++) {
        const len = lens ? lens[b] : seq;
        const t = reverse ? len - 1 - step : step;
        if (step >= len) continue; // past this sequence's end: state frozen, Y stays zero
        const xo = (t * batch + b) * G * H;
        const ho = b * G * H;
        for (let k = 0; k < G * H; k++) gates[k] = xw[xo + k] + hr[ho + k];
        const hp = b * H;
        const yo = ((t * dirs + d) * batch + b) * H;
        if (kind === 'rnn') {
          for (let k = 0; k < H; k++) hPrev[hp + k] = f(clipv(gates[k]));
        } else if (kind === 'gru') {
          for (let k = 0; k < H; k++) {
            gates[k] = f(clipv(gates[k])); // z
            gates[H + k] = f(clipv(gates[H + k])); // r
          }
          const rbh = bias ? rb + 2 * H : -1;
          for (let k = 0; k < H; k++) {
            let pre = xw[xo + 2 * H + k];
            if (linearBeforeReset) {
              // r ⊙ (H_prev·R_hᵀ + Rb_h)
              pre += gates[H + k] * (hr[ho + 2 * H + k] + (bias ? bias[rbh + k] : 0));
            } else {
              // (r ⊙ H_prev)·R_hᵀ + Rb_h: the reset applies before the product, so it cannot reuse hr.
              pre += bias ? bias[rbh + k] : 0;
              const rrow = d * G * H * H + (2 * H + k) * H;
              for (let j = 0; j < H; j++) pre += gates[H + j] * hPrev[hp + j] * r[rrow + j];
            }
            gates[2 * H + k] = g(clipv(pre));
          }
          for (let k = 0; k < H; k++) hPrev[hp + k] = (1 - gates[k]) * gates[2 * H + k] + gates[k] * hPrev[hp + k];
        } else {
          const po = d * 3 * H;
          for (let k = 0; k < H; k++) {
            const cp = cPrev[hp + k];
            const ig = f(clipv(gates[k] + (p ? p[po + k] * cp : 0)));
            const fg = inputForget ? 1 - ig : f(clipv(gates[2 * H + k] + (p ? p[po + 2 * H + k] * cp : 0)));
            const cand = g(clipv(gates[3 * H + k]));
            const c = fg * cp + ig * cand;
            const og = f(clipv(gates[H + k] + (p ? p[po + H + k] * c : 0)));
            cPrev[hp + k] = c;
            hPrev[hp + k] = og * h(c);
          }
        }
        for (let k = 0; k < H; k++) y[yo + k] = hPrev[hp + k];
      }
    }
    for (let i = 0; i < batch * H; i++) {
      yh[d * batch * H + i] = hPrev[i];
      yc[d * batch * H + i] = cPrev[i];
    }
  }

  const results: Array<Tensor | null> = [];
  const outs = ctx.node.outputs;
  const emit = (slot: number, data: FloatArray, dims: number[], layoutSwap: (dst: FloatArray) => void) => {
    if (!outs[slot]) return results.push(null);
    const o = floatOutput(ctx, slot, X.type, dims);
    if (layout === 0) o.data.set(data);
    else layoutSwap(o.data);
    return results.push(o.commit());
  };
  emit(0, y, layout === 0 ? [seq, dirs, batch, H] : [batch, seq, dirs, H], (dst) => {
    for (let t = 0; t < seq; t++)
      for (let d = 0; d < dirs; d++)
        for (let b = 0; b < batch; b++)
          for (let k = 0; k < H; k++) dst[((b * seq + t) * dirs + d) * H + k] = y[((t * dirs + d) * batch + b) * H + k];
  });
  if (outs.length > 1) emit(1, yh, layout === 0 ? [dirs, batch, H] : [batch, dirs, H], (dst) => swap01(yh, dirs, batch, H, dst));
  if (kind === 'lstm' && outs.length > 2) emit(2, yc, layout === 0 ? [dirs, batch, H] : [batch, dirs, H], (dst) => swap01(yc, dirs, batch, H, dst));
  return results;
}
