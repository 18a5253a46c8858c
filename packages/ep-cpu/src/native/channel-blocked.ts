/**
 * oneDNN's channel-blocked layout (nChw8c / nChw16c) as the CPU EP's graph sees it: a logical
 * [N, C, ...spatial] tensor stored as the row-major [N, ceil(C / b), ...spatial, b], channel c of
 * the logical tensor at block floor(c / b), lane c % b; lanes past C in the last block are padding.
 * The blocked-layout pass types values this way so shape inference and the memory planner size
 * them right, and the com.switchyard Blocked* kernels read and write them.
 */
import type { ChannelBlock } from './binding.js';

/** The domain of the ops the blocked-layout pass creates. */
export const BLOCKED_DOMAIN = 'com.switchyard';

export function isChannelBlock(b: number): b is Exclude<ChannelBlock, 0> {
  return b === 8 || b === 16;
}

/** The 5-D (for 2-D images) dims holding `logical` [N, C, ...spatial] blocked by `block` (0: `logical` itself). */
export function blockedDims(logical: readonly number[], block: number): number[] {
  if (block === 0) return [...logical];
  const [n, c, ...spatial] = logical;
  return [n, Math.ceil(c / block), ...spatial, block];
}

/**
 * The logical [N, C, ...spatial] of a blocked tensor's dims, given its true channel count
 * (undefined: C taken as every lane, padding included).
 */
export function logicalDims(blocked: readonly number[], block: number, channels?: number): number[] {
  if (block === 0) return [...blocked];
  const [n, cb, ...rest] = blocked;
  return [n, channels ?? cb * block, ...rest.slice(0, -1)];
}

/** Reference conversion plain → blocked (padding lanes zero): used by tests and as documentation of the layout. */
export function toBlocked(x: Float32Array, logical: readonly number[], block: number): Float32Array {
  const [n, c] = logical;
  const spatial = logical.slice(2).reduce((a, b) => a * b, 1);
  const cb = Math.ceil(c / block);
  const out = new Float32Array(n * cb * spatial * block);
  for (let i = 0; i < n; i++) {
    for (let ch = 0; ch < c; ch++) {
      const from = (i * c + ch) * spatial;
      const to = (i * cb + Math.floor(ch / block)) * spatial * block + (ch % block);
      for (let s = 0; s < spatial; s++) out[to + s * block] = x[from + s];
    }
  }
  return out;
}

/** Reference conversion blocked → plain (padding lanes dropped). */
export function fromBlocked(x: Float32Array, logical: readonly number[], block: number): Float32Array {
  const [n, c] = logical;
  const spatial = logical.slice(2).reduce((a, b) => a * b, 1);
  const cb = Math.ceil(c / block);
  const out = new Float32Array(n * c * spatial);
  for (let i = 0; i < n; i++) {
    for (let ch = 0; ch < c; ch++) {
      const to = (i * c + ch) * spatial;
      const from = (i * cb + Math.floor(ch / block)) * spatial * block + (ch % block);
      for (let s = 0; s < spatial; s++) out[to + s] = x[from + s * block];
    }
  }
  return out;
}
