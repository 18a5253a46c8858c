/**
 * Strided copies: the one loop behind Transpose, Slice, Expand, Tile and Depth/SpaceToDepth.
 * A source view (offset + per-axis strides, possibly negative or zero) is written row-major into
 * the destination. Axes that stay contiguous are merged first, so the inner loop is as long as possible.
 */
import { copyRun, fillRun, type Elements } from './elements.js';

/** Row-major strides of `dims`. */
export function rowMajorStrides(dims: readonly number[]): number[] {
  const s = new Array<number>(dims.length);
  let acc = 1;
  for (let i = dims.length - 1; i >= 0; i--) {
    s[i] = acc;
    acc *= dims[i];
  }
  return s;
}

/** Drops size-1 axes and merges neighbours whose strides make them one longer axis. */
function mergeAxes(dims: readonly number[], strides: readonly number[]): { d: number[]; s: number[] } {
  const d: number[] = [];
  const s: number[] = [];
  for (let i = 0; i < dims.length; i++) {
    if (dims[i] === 1) continue;
    const k = d.length - 1;
    if (k >= 0 && s[k] === strides[i] * dims[i]) {
      d[k] *= dims[i];
      s[k] = strides[i];
    } else {
      d.push(dims[i]);
      s.push(strides[i]);
    }
  }
  return { d, s };
}

const TILE = 32;

/**
 * Writes the view `src[srcOffset + Σ i_k·srcStrides[k]]` over `dims` row-major into `dst` from `dstOffset`.
 */
export function copyStrided(
  src: Elements,
  srcOffset: number,
  srcStrides: readonly number[],
  dims: readonly number[],
  dst: Elements,
  dstOffset = 0,
): void {
  if (dims.some((x) => x === 0)) return;
  const { d, s } = mergeAxes(dims, srcStrides);
  if (d.length === 0) {
    dst[dstOffset] = src[srcOffset];
    return;
  }
  const last = d.length - 1;
  // A transpose-like view (inner axis strided, some outer axis contiguous) reads better in tiles.
  const contiguousAxis = s.lastIndexOf(1, last - 1);
  if (s[last] !== 1 && s[last] !== 0 && contiguousAxis >= 0 && d[contiguousAxis] * d[last] >= TILE * 4) {
    copyTiled(src, srcOffset, s, d, contiguousAxis, dst, dstOffset);
    return;
  }
  // Broadcast (stride-0) outer axes: build one block, then copy the output block instead of re-reading the source.
  if (s.slice(0, last).includes(0)) {
    copyBroadcast(src, srcOffset, s, d, 0, dst, dstOffset, rowMajorStrides(d));
    return;
  }
  const n = d[last];
  const step = s[last];
  let outer = 1;
  for (let k = 0; k < last; k++) outer *= d[k];
  const idx = new Array<number>(last).fill(0);
  let so = srcOffset;
  let o = dstOffset;
  for (let r = 0; r < outer; r++) {
    if (step === 1) copyRun(src, so, dst, o, n);
    else if (step === 0) fillRun(dst, o, n, src[so]);
    else for (let j = 0, p = so; j < n; j++, p += step) dst[o + j] = src[p];
    o += n;
    for (let k = last - 1; k >= 0; k--) {
      so += s[k];
      if (++idx[k] < d[k]) break;
      so -= s[k] * d[k];
      idx[k] = 0;
    }
  }
}

function copyBroadcast(
  src: Elements,
  so: number,
  s: number[],
  d: number[],
  k: number,
  dst: Elements,
  o: number,
  ds: number[],
): void {
  if (k === d.length - 1) {
    const step = s[k];
    if (step === 1) copyRun(src, so, dst, o, d[k]);
    else for (let j = 0, p = so; j < d[k]; j++, p += step) dst[o + j] = src[p];
    return;
  }
  if (s[k] === 0) {
    copyBroadcast(src, so, s, d, k + 1, dst, o, ds);
    // Doubling: each copy duplicates everything written so far.
    for (let filled = 1; filled < d[k]; ) {
      const n = Math.min(filled, d[k] - filled);
      copyRun(dst, o, dst, o + filled * ds[k], n * ds[k]);
      filled += n;
    }
    return;
  }
  for (let i = 0; i < d[k]; i++) copyBroadcast(src, so + i * s[k], s, d, k + 1, dst, o + i * ds[k], ds);
}

/** Tiled copy over the contiguous source axis `a` and the last axis, so both sides stay in cache. */
function copyTiled(src: Elements, srcOffset: number, s: number[], d: number[], a: number, dst: Elements, dstOffset: number): void {
  const last = d.length - 1;
  const ds = rowMajorStrides(d);
  const outerAxes: number[] = [];
  for (let k = 0; k < last; k++) if (k !== a) outerAxes.push(k);
  let outer = 1;
  for (const k of outerAxes) outer *= d[k];
  const idx = new Array<number>(outerAxes.length).fill(0);
  const na = d[a];
  const nl = d[last];
  const sl = s[last];
  const da = ds[a];
  let so = srcOffset;
  let o = dstOffset;
  for (let r = 0; r < outer; r++) {
    for (let a0 = 0; a0 < na; a0 += TILE) {
      const a1 = Math.min(a0 + TILE, na);
      for (let l0 = 0; l0 < nl; l0 += TILE) {
        const l1 = Math.min(l0 + TILE, nl);
        for (let ai = a0; ai < a1; ai++) {
          const dRow = o + ai * da;
          for (let li = l0, p = so + ai + l0 * sl; li < l1; li++, p += sl) dst[dRow + li] = src[p];
        }
      }
    }
    for (let j = outerAxes.length - 1; j >= 0; j--) {
      const k = outerAxes[j];
      so += s[k];
      o += ds[k];
      if (++idx[j] < d[k]) break;
      so -= s[k] * d[k];
      o -= ds[k] * d[k];
      idx[j] = 0;
    }
  }
}

/** Writes `src` (row-major over `dims`) transposed by `perm` into `dst`. */
export function transposeInto(src: Elements, dims: readonly number[], perm: readonly number[], dst: Elements): void {
  const strides = rowMajorStrides(dims);
  copyStrided(
    src,
    0,
    perm.map((p) => strides[p]),
    perm.map((p) => dims[p]),
    dst,
  );
}
