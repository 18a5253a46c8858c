import { describe, expect, it } from 'vitest';
import { copyStrided, rowMajorStrides, transposeInto } from './strided.js';
import { iota, rng } from './test-util.js';

/** Element-at-a-time reference: no merging, no tiling. */
function naiveStrided(src: ArrayLike<number>, offset: number, strides: number[], dims: number[]): number[] {
  const n = dims.reduce((a, b) => a * b, 1);
  const out: number[] = [];
  const idx = new Array<number>(dims.length).fill(0);
  for (let i = 0; i < n; i++) {
    let p = offset;
    idx.forEach((c, k) => (p += c * strides[k]));
    out.push(src[p]);
    for (let k = dims.length - 1; k >= 0; k--) {
      if (++idx[k] < dims[k]) break;
      idx[k] = 0;
    }
  }
  return out;
}

function permutation(r: number, next: (n: number) => number): number[] {
  const p = iota(r);
  for (let i = r - 1; i > 0; i--) {
    const j = next(i + 1);
    [p[i], p[j]] = [p[j], p[i]];
  }
  return p;
}

describe('copyStrided', () => {
  it('matches the element-wise reference for random transposes (tiled and untiled paths)', () => {
    const next = rng(7);
    for (let trial = 0; trial < 60; trial++) {
      const r = 1 + next(4);
      // Every third trial has two long axes, large enough for the tiled path; sizes stay small.
      const big = trial % 3 === 0 ? [next(r), next(r)] : [];
      const dims = Array.from({ length: r }, (_, k) => 1 + next(big.includes(k) ? 70 : 5));
      const size = dims.reduce((a, b) => a * b, 1);
      const src = Float64Array.from(iota(size));
      const perm = permutation(r, next);
      const dst = new Float64Array(size);
      transposeInto(src, dims, perm, dst);
      const s = rowMajorStrides(dims);
      expect(Array.from(dst)).toEqual(naiveStrided(src, 0, perm.map((p) => s[p]), perm.map((p) => dims[p])));
    }
  });

  it('handles negative and zero strides and offsets', () => {
    const src = Float64Array.from(iota(24));
    const cases: Array<[number, number[], number[]]> = [
      [23, [-12, -4, -1], [2, 3, 4]],
      [5, [0, 1], [3, 4]],
      [3, [12, 0, -1], [2, 2, 3]],
      [0, [], []],
    ];
    for (const [off, strides, dims] of cases) {
      const n = dims.reduce((a, b) => a * b, 1);
      const dst = new Float64Array(n);
      copyStrided(src, off, strides, dims, dst);
      expect(Array.from(dst)).toEqual(naiveStrided(src, off, strides, dims));
    }
  });

  it('copies strings and bigints', () => {
    const s = ['a', 'b', 'c', 'd', 'e', 'f'];
    const out = new Array<string>(6).fill('');
    transposeInto(s, [2, 3], [1, 0], out);
    expect(out).toEqual(['a', 'd', 'b', 'e', 'c', 'f']);
    const b = BigInt64Array.from([1n, 2n, 3n, 4n]);
    const ob = new BigInt64Array(4);
    transposeInto(b, [2, 2], [1, 0], ob);
    expect(Array.from(ob)).toEqual([1n, 3n, 2n, 4n]);
  });

  it('writes nothing for empty dims', () => {
    const dst = new Float64Array(0);
    copyStrided(new Float64Array(4), 0, [1, 1], [0, 4], dst);
    expect(dst.length).toBe(0);
  });
});
