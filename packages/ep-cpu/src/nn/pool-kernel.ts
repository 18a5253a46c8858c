/** The run function shared by MaxPool, AveragePool, LpPool and their Global forms. */
import { SwitchyardError, elementCount, type KernelInit, type KernelRunContext, type KernelResult, type Tensor } from '@switchyard/core';
import { floatData, floatOutput } from './float-io.js';
import { readWindowAttrs, to3d, windowGeometry, type WindowAttrs } from './geometry.js';
import { poolForward, type PoolKind } from './pool.js';

function checkInput(op: string, X: Tensor): void {
  if (X.dims.length < 3) throw new SwitchyardError('INVALID_SHAPE', `${op}: input must have rank ≥ 3 ([N, C, ...spatial]), got [${X.dims.join(', ')}]`);
}

/** Lp exponent: float attribute in LpPool-1, int from version 2. */
function readP(init: KernelInit): number {
  const raw = init.attrs.raw('p');
  const p = raw === undefined ? 2 : raw.type === 'int' || raw.type === 'float' ? raw.value : NaN;
  if (!(p > 0) || !Number.isFinite(p)) throw new SwitchyardError('INVALID_ARGUMENT', `${init.node.opType}: p must be a positive number`);
  return p;
}

export function runWindowPool(op: string, kind: PoolKind, ctx: KernelRunContext, init: KernelInit): KernelResult {
  const X = ctx.input(0);
  checkInput(op, X);
  const spatial = X.dims.slice(2);
  const w: WindowAttrs = readWindowAttrs(op, init.attrs, spatial.length);
  const geom = windowGeometry(op, spatial, w);
  const g3 = to3d(op, geom);
  const outDims = [X.dims[0], X.dims[1], ...geom.output];
  const planes = X.dims[0] * X.dims[1];
  const n = spatial.length;
  const pe = [...new Array<number>(3 - n).fill(0), ...geom.padsEnd] as [number, number, number];
  const wantIndices = kind === 'max' && ctx.node.outputs.length > 1 && ctx.node.outputs[1] !== '';
  const indices = wantIndices ? ctx.output(1, 'int64', outDims) : undefined;
  const opts = {
    kind,
    countIncludePad: init.attrs.int('count_include_pad', 0) !== 0,
    padsEnd3: pe,
    p: kind === 'lp' ? readP(init) : 2,
    indices: indices?.data,
    storageOrder: init.attrs.int('storage_order', 0),
  };
  if (X.type === 'int8' || X.type === 'uint8') {
    if (kind !== 'max') throw new SwitchyardError('INVALID_ARGUMENT', `${op}: ${X.type} input is not supported`);
    const y = ctx.output(0, X.type, outDims);
    poolForward(planes, g3, X.data as Int8Array | Uint8Array, y.data as Int8Array | Uint8Array, opts);
    return indices ? [y, indices] : [y];
  }
  const y = floatOutput(ctx, 0, X.type, outDims);
  poolForward(planes, g3, floatData(X), y.data, opts);
  return indices ? [y.commit(), indices] : [y.commit()];
}

/** Global pools: one value per (N, C) plane. */
export function runGlobalPool(op: string, kind: PoolKind, ctx: KernelRunContext, init: KernelInit): KernelResult {
  const X = ctx.input(0);
  checkInput(op, X);
  const planes = X.dims[0] * X.dims[1];
  const size = elementCount(X.dims.slice(2));
  if (size === 0) throw new SwitchyardError('INVALID_SHAPE', `${op}: spatial size is zero`);
  const p = kind === 'lp' ? readP(init) : 2;
  const x = floatData(X);
  const y = floatOutput(ctx, 0, X.type, [X.dims[0], X.dims[1], ...X.dims.slice(2).map(() => 1)]);
  const out = y.data;
  for (let pl = 0; pl < planes; pl++) {
    const o = pl * size;
    if (kind === 'max') {
      let m = -Infinity;
      for (let i = 0; i < size; i++) if (x[o + i] > m) m = x[o + i];
      out[pl] = m;
    } else if (kind === 'avg') {
      let s = 0;
      for (let i = 0; i < size; i++) s += x[o + i];
      out[pl] = s / size;
    } else {
      let s = 0;
      for (let i = 0; i < size; i++) s += Math.abs(x[o + i]) ** p;
      out[pl] = s ** (1 / p);
    }
  }
  return [y.commit()];
}
