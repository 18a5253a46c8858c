/**
 * RNN, GRU, LSTM. X is `[seq, batch, input]` (layout 0) or `[batch, seq, input]` (layout 1, opset 14);
 * Y is `[seq, dirs, batch, hidden]` / `[batch, seq, dirs, hidden]`; Y_h and Y_c are `[dirs, batch, hidden]`
 * / `[batch, dirs, hidden]`.
 */
import type { ShapeRule } from '../context.js';
import type { Dim } from '../../ir/graph.js';

const recurrent: ShapeRule = (ctx) => {
  const x = ctx.shape(0);
  const layout = ctx.attrs.int('layout', 0);
  const seq: Dim = x?.[layout === 0 ? 0 : 1];
  const batch: Dim = x?.[layout === 0 ? 1 : 0];
  const direction = ctx.attrs.string('direction', 'forward');
  const dirs: Dim = direction === 'bidirectional' ? 2 : 1;
  // R is [dirs, gates × hidden, hidden]: its last dim is the hidden size when the attribute is absent.
  const hidden: Dim = ctx.attrs.has('hidden_size') ? ctx.attrs.int('hidden_size') : ctx.shape(2)?.[2];
  ctx.setShape(0, layout === 0 ? [seq, dirs, batch, hidden] : [batch, seq, dirs, hidden]);
  const state: Dim[] = layout === 0 ? [dirs, batch, hidden] : [batch, dirs, hidden];
  for (const o of [1, 2]) if (o < ctx.outputs.length) ctx.setShape(o, [...state]);
};

export const recurrentRules: Record<string, ShapeRule> = {
  RNN: recurrent,
  GRU: recurrent,
  LSTM: recurrent,
};
