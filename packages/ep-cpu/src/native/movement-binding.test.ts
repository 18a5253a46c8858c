/**
 * Bad input at the dtype-generic kernels' boundary (copyStrided, concat, split, gather, gatherElements, scatterElements, trilu,
 * pad, cast, reduce, argReduce, softmax, normalizeGroups, batchNorm, lpNormalize, meanVariance, lrn,
 * vectorIsa): each case throws a coded error naming the argument, never crashes or reads outside a buffer.
 */
import { describe, expect, it } from 'vitest';
import { loadNative } from './load-native.js';
import type { NativeBinding } from './binding.js';

const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const b = (native.ok && typeof native.binding.copyStrided === 'function' ? native.binding : undefined) as Required<NativeBinding> | undefined;

/** Calls `fn` (arguments deliberately malformed) and expects a coded INVALID_ARGUMENT error matching `message`. */
function rejects(fn: () => unknown, message: RegExp): void {
  let error: unknown;
  try {
    fn();
  } catch (e) {
    error = e;
  }
  expect(error, String(message)).toBeInstanceOf(Error);
  expect((error as Error).message).toMatch(message);
  expect((error as { code?: string }).code).toBe('INVALID_ARGUMENT');
}

// The malformed calls below bypass the binding's types on purpose.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const any = (v: unknown) => v as any;

describe.skipIf(!b)('dtype-generic kernels: argument errors', () => {
  it('copyStrided: buffers, lengths, strides that reach outside src, absurd dims', () => {
    const src = new Float32Array(12);
    rejects(() => b!.copyStrided(any([1, 2]), 0, [1], [2], new Float32Array(2)), /copyStrided: src must be a typed array, got an Array/);
    rejects(() => b!.copyStrided(src, 0, [4, 1], [3, 4], new Float32Array(11)), /dst must have 12 elements, got 11/);
    rejects(() => b!.copyStrided(src, 0, [4, 1], [3, 4], new Int32Array(12)), /dst must be a typed array of the input's type/);
    rejects(() => b!.copyStrided(src, 1, [4, 1], [3, 4], new Float32Array(12)), /the view reaches outside src \(12 elements\)/);
    rejects(() => b!.copyStrided(src, 0, [-1], [2], new Float32Array(2)), /reaches outside src/);
    rejects(() => b!.copyStrided(src, 0, [1], [2.5], new Float32Array(2)), /dims\[0\] must be an integer/);
    rejects(() => b!.copyStrided(src, 0, [1, 1], [2], new Float32Array(2)), /strides and dims must have the same length/);
    rejects(() => b!.copyStrided(src, 0, [0, 0, 0], [2 ** 30, 2 ** 30, 2 ** 30], new Float32Array(1)), /element count passes 2\^53/);
    rejects(() => b!.copyStrided(src, 0, new Array(40).fill(0), new Array(40).fill(1), new Float32Array(1)), /strides has 40 entries, at most 32/);
    rejects(() => b!.copyStrided(src, -1, [1], [2], new Float32Array(2)), /offset must be an integer/);
  });

  it('concat / split: parts of the wrong type or size', () => {
    const dst = new Float32Array(10);
    rejects(() => b!.concat([new Float32Array(4), new Float32Array(5)], dst, 1, [4, 6]), /part 1 has 5 elements, expected outer × runs\[1\] = 6/);
    rejects(() => b!.concat([new Float32Array(4), new Float64Array(6)], dst, 1, [4, 6]), /srcs\[1\] must be a typed array of the other tensors' type/);
    rejects(() => b!.concat([new Float32Array(4)], dst, 1, [4, 6]), /runs must have one entry per part/);
    rejects(() => b!.concat([new Float32Array(4), new Float32Array(4)], dst, 1, [4, 4]), /dst has 10 elements, the parts 8/);
    rejects(() => b!.split(dst, any('x'), 1, [10]), /split: dsts must be an Array of typed arrays/);
  });

  it('gather / gatherElements: index types, shapes and out-of-range indices (nothing written)', () => {
    const data = new Float32Array(6);
    const dst = new Float32Array(2).fill(7);
    rejects(() => b!.gather(data, any(new Float32Array(2)), dst, 1, 6, 1), /indices must be an Int32Array or a BigInt64Array/);
    rejects(() => b!.gather(data, new Int32Array(2), dst, 1, 5, 1), /data must have outer × axisDim × inner elements/);
    rejects(() => b!.gather(data, new Int32Array([0, 6]), dst, 1, 6, 1), /gather: index 6 is out of bounds for a dimension of size 6/);
    rejects(() => b!.gather(data, BigInt64Array.from([-7n, 0n]), dst, 1, 6, 1), /index -7 is out of bounds/);
    expect([...dst]).toEqual([7, 7]);
    rejects(() => b!.gatherElements(data, [2, 3], new Int32Array(4), [2, 2, 1], 0, new Float32Array(4)), /indices must have data's rank/);
    rejects(() => b!.gatherElements(data, [2, 3], new Int32Array(8), [2, 4], 0, new Float32Array(8)), /indicesDims\[1\] exceeds dataDims/);
    rejects(() => b!.gatherElements(data, [2, 3], new Int32Array([0, 2]), [2, 1], 0, new Float32Array(2)), /index 2 is out of bounds for a dimension of size 2/);
    rejects(() => b!.gatherElements(data, [2, 3], new Int32Array(2), [2, 1], 2, new Float32Array(2)), /axis must be an integer in \[0, 1\]/);
    rejects(() => b!.trilu(data, new Float32Array(5), 2, 3, 0, true), /y must have 6 elements/);
    rejects(() => b!.trilu(data, new Float32Array(6), 4, 1, 0, true), /x must hold whole rows × cols matrices/);
    rejects(() => b!.trilu(data, new Float32Array(6), 2, 3, 0, any(1)), /upper must be a boolean/);
    const upd = new Float32Array(2);
    rejects(() => b!.scatterElements(data, [2, 3], new Int32Array(2), [2, 1], new Float32Array(3), 0, 'none', new Float32Array(6)), /updates must have 2 elements/);
    rejects(() => b!.scatterElements(data, [2, 3], new Int32Array(2), [2, 1], any(new Int32Array(2)), 0, 'none', new Float32Array(6)), /updates must be a typed array of the input's type/);
    rejects(() => b!.scatterElements(data, [2, 3], new Int32Array(2), [2, 1], upd, 0, any('avg'), new Float32Array(6)), /reduction must be 'none', 'add', 'mul', 'max' or 'min'/);
    rejects(() => b!.scatterElements(data, [2, 3], new Int32Array(2), [2, 1], upd, 0, 'add', new Float32Array(5)), /dst must have 6 elements/);
    rejects(() => b!.scatterElements(data, [2, 3], new Int32Array([0, -3]), [2, 1], upd, 0, 'add', new Float32Array(6)), /scatterElements: index -3 is out of bounds for a dimension of size 2/);
  });

  it('pad: pads, mode and constant', () => {
    const x = new Float32Array(6);
    rejects(() => b!.pad(x, [2, 3], new Float32Array(6), [0, 0, 0], 'constant', null), /pads must have 2 × rank entries/);
    rejects(() => b!.pad(x, [2, 3], new Float32Array(6), [0, -4, 0, 0], 'constant', null), /pads crop axis 1 below zero/);
    rejects(() => b!.pad(x, [2, 3], new Float32Array(6), [0, 0, 0, 0], any('mirror'), null), /mode must be 'constant', 'reflect', 'edge' or 'wrap', got 'mirror'/);
    rejects(() => b!.pad(x, [2, 3], new Float32Array(6), [0, 0, 0, 0], 'constant', new Float64Array(1)), /value must be a typed array of the input's type/);
    rejects(() => b!.pad(x, [2, 3], new Float32Array(7), [0, 0, 0, 0], 'constant', null), /y must have 6 elements/);
    rejects(() => b!.pad(new Float32Array(0), [2, 0], new Float32Array(4), [0, 1, 0, 1], 'reflect', null), /only constant mode can pad the empty axis 1/);
  });

  it('cast: dtype names against the arrays that hold them', () => {
    rejects(() => b!.cast(new Float32Array(2), any('float8'), new Float32Array(2), 'float32'), /from 'float8' is not a dtype cast converts natively/);
    rejects(() => b!.cast(new Float32Array(2), 'float16', new Float32Array(2), 'float32'), /src is not the typed array that holds float16/);
    rejects(() => b!.cast(new Float32Array(2), 'float32', new BigUint64Array(2), 'int64'), /dst is not the typed array that holds int64/);
    rejects(() => b!.cast(new Float32Array(2), 'float32', new Float32Array(3), 'float32'), /dst must have 2 elements/);
  });

  it('reduce / argReduce / softmax: shapes, axes, ops', () => {
    const x = new Float32Array(6);
    rejects(() => b!.reduce(x, [2, 3], [2], 'sum', new Float32Array(2)), /axes\[0\] must be an integer in \[0, 1\]/);
    rejects(() => b!.reduce(x, [2, 3], [1, 1], 'sum', new Float32Array(2)), /axes repeat axis 1/);
    rejects(() => b!.reduce(x, [2, 3], [1], any('median'), new Float32Array(2)), /op 'median' is not a reduction/);
    rejects(() => b!.reduce(x, [2, 2], [1], 'sum', new Float32Array(2)), /x must have Π dims elements/);
    rejects(() => b!.reduce(x, [2, 3], [1], 'sum', new Float32Array(3)), /y must have 2 elements/);
    rejects(() => b!.argReduce(x, 2, 3, 1, true, false, any(new Float64Array(2))), /y must be a BigInt64Array/);
    rejects(() => b!.argReduce(x, 6, 0, 1, true, false, new BigInt64Array(6)), /len must be an integer in \[1,/);
    rejects(() => b!.argReduce(x, 2, 3, 1, any(1), false, new BigInt64Array(2)), /isMax and selectLast must be booleans/);
    rejects(() => b!.softmax(x, x, 2, 3, 1, any('sparsemax')), /kind must be 'softmax', 'logSoftmax' or 'hardmax'/);
    rejects(() => b!.softmax(x, x, 2, 4, 1, 'softmax'), /x must have outer × len × inner elements/);
  });

  it('normalizations: parameter lengths, epsilon, tiling', () => {
    const x = new Float32Array(12);
    const y = new Float32Array(12);
    rejects(() => b!.normalizeGroups(x, y, 3, 4, -1, null, null, 1, 1, null, null), /epsilon must be a number >= 0/);
    rejects(() => b!.normalizeGroups(x, y, 3, 4, 1e-5, new Float32Array(3), null, 1, 1, null, null), /scale \/ bias do not tile the row's blocks/);
    rejects(() => b!.normalizeGroups(x, y, 3, 4, 1e-5, new Float32Array(4), new Float32Array(2), 1, 1, null, null), /do not tile/);
    rejects(() => b!.normalizeGroups(x, y, 3, 4, 1e-5, null, null, 1, 3, null, null), /colBlock must divide cols/);
    rejects(() => b!.normalizeGroups(x, y, 3, 4, 1e-5, new Float32Array(3), null, 2, 4, null, null), /multiples of rowPeriod/);
    rejects(() => b!.normalizeGroups(x, y, 3, 4, 1e-5, null, null, 1, 1, new Float32Array(2), null), /mean must have 3 elements/);
    rejects(() => b!.batchNorm(x, y, 1, 3, 4, new Float32Array(3), new Float32Array(3), new Float32Array(3), new Float32Array(2), 1e-5), /var must have 3 elements/);
    rejects(() => b!.lpNormalize(x, y, 1, 12, 1, any(3)), /p must be an integer in \[1, 2\]/);
    rejects(() => b!.meanVariance(x, y, [5, 4], [1]), /x must have Π dims elements/);
    rejects(() => b!.meanVariance(x, y, [3, 4], [2]), /axes/);
    rejects(() => b!.lrn(x, y, 2, 3, 4, 5, 1e-4, 0.75, 1), /x must have n × c × spatial elements/);
    rejects(() => b!.lrn(x, y, 1, 3, 4, 0, 1e-4, 0.75, 1), /size must be an integer/);
    rejects(() => b!.lrn(x, y, 1, 3, 4, 5, 1e-4, NaN, 1), /beta must be finite/);
  });

  it('vectorIsa: names, and a build this CPU cannot run', () => {
    rejects(() => b!.vectorIsa(any('sse9')), /vectorIsa: set must be 'avx512', 'avx2', 'generic' or 'auto', got 'sse9'/);
    const now = b!.vectorIsa();
    expect(['generic', 'avx2', 'avx512']).toContain(now);
    expect(b!.vectorIsa('generic')).toBe('generic');
    expect(b!.vectorIsa('auto')).toBe(now);
  });
});
