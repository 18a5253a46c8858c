/**
 * The random source of the sampling ops (RandomUniform/Normal(Like), Bernoulli, Multinomial).
 *
 * Like ONNX Runtime, a node with a `seed` attribute owns a generator seeded once when the kernel is
 * built: its values are reproducible for a given session and sequence of runs, and successive runs keep
 * drawing from the same stream (they do not repeat). Without `seed`, the generator is seeded from
 * Math.random. The bits will never match other runtimes' (numpy's, ORT's std::mt19937) values.
 */
import { SwitchyardError } from '@switchyard/core';

/** splitmix32: spreads a 32-bit seed into well-mixed state words. */
function splitmix32(state: { s: number }): number {
  state.s = (state.s + 0x9e3779b9) | 0;
  let z = state.s;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}

/** xoshiro128**: small, fast, and statistically sound for sampling (not for cryptography). */
export class RandomSource {
  readonly #s = new Uint32Array(4);
  #spareNormal: number | undefined;

  /** `seed` is the ONNX float attribute; every bit of its double value feeds the state. */
  constructor(seed: number) {
    const bits = new Uint32Array(new Float64Array([seed]).buffer);
    const mix = { s: bits[0] ^ Math.imul(bits[1], 0x27d4eb2d) };
    for (let i = 0; i < 4; i++) this.#s[i] = splitmix32(mix);
  }

  /** A uniform 32-bit unsigned integer. */
  nextUint32(): number {
    const s = this.#s;
    const result = Math.imul(rotl(Math.imul(s[1], 5), 7), 9) >>> 0;
    const t = s[1] << 9;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 11);
    return result;
  }

  /** A uniform double in [0, 1) with 53 random bits. */
  uniform(): number {
    const hi = this.nextUint32() >>> 5; // 27 bits
    const lo = this.nextUint32() >>> 6; // 26 bits
    return (hi * 67108864 + lo) / 9007199254740992;
  }

  /** A standard normal value (Box–Muller; the second value of each pair is kept for the next call). */
  normal(): number {
    if (this.#spareNormal !== undefined) {
      const v = this.#spareNormal;
      this.#spareNormal = undefined;
      return v;
    }
    const u1 = 1 - this.uniform(); // (0, 1], so the log is finite
    const u2 = this.uniform();
    const radius = Math.sqrt(-2 * Math.log(u1));
    this.#spareNormal = radius * Math.sin(2 * Math.PI * u2);
    return radius * Math.cos(2 * Math.PI * u2);
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/** The node's generator: seeded from the `seed` attribute when present, from Math.random otherwise. */
export function randomSourceFor(seed: number | undefined, op: string): RandomSource {
  if (seed !== undefined && !Number.isFinite(seed)) throw new SwitchyardError('INVALID_MODEL', `${op}: seed must be finite, got ${seed}`);
  return new RandomSource(seed ?? Math.random() * 2 ** 32);
}
