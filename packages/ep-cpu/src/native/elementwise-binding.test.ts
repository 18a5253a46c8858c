/**
 * ElementwisePrimitive at the addon's boundary: bad programs, shapes and buffers throw coded errors
 * (never crash); the instruction set is chosen as documented; the vector transcendentals stay within a
 * few float32 ulp of a double reference on every instruction set; run() and runSync() agree.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ElementwisePrimitiveOptions } from './binding.js';
import { loadNative } from './load-native.js';
import { seededFloats } from './test-data.test-util.js';

const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const Primitive = native.ok ? native.binding.ElementwisePrimitive : undefined;

function isas(): string[] {
  return ['generic', 'avx2', 'avx512'].filter((isa) => {
    try {
      new Primitive!({ inputs: [{ dims: [1] }], program: [{ op: 'neg', args: [0] }], isa: isa as 'generic' }).dispose();
      return true;
    } catch {
      return false;
    }
  });
}

describe.skipIf(!Primitive)('ElementwisePrimitive boundary', () => {
  const P = Primitive!;
  const add: ElementwisePrimitiveOptions = { inputs: [{ dims: [2, 3] }, { dims: [3] }], program: [{ op: 'add', args: [0, 1] }] };
  const saved = process.env.SWITCHYARD_CPU_VECTOR_ISA;
  afterEach(() => {
    if (saved === undefined) delete process.env.SWITCHYARD_CPU_VECTOR_ISA;
    else process.env.SWITCHYARD_CPU_VECTOR_ISA = saved;
  });

  it('rejects malformed programs and shapes with INVALID_ARGUMENT', () => {
    const bad: Array<[unknown, RegExp]> = [
      [42, /must be an options object/],
      [{ program: add.program }, /options.inputs must be an array/],
      [{ ...add, program: [] }, /no instructions/],
      [{ ...add, program: [{ op: 'frobnicate', args: [0] }] }, /unknown op 'frobnicate'/],
      [{ ...add, program: [{ op: 'add', args: [0] }] }, /add takes 2 argument\(s\), got 1/],
      [{ ...add, program: [{ op: 'add', args: [0, 2] }] }, /must name an input or an earlier instruction/],
      [{ ...add, program: [{ op: 'neg', args: [0] }] }, /input 1 is read by no instruction/],
      [{ ...add, program: [{ op: 'add', args: [0, -1] }] }, /must be >= 0/],
      [{ ...add, program: [{ op: 'add', args: [0, 1.5] }] }, /must be an integer/],
      [{ ...add, program: [{ op: 'leaky_relu', args: [0], alpha: 'x' }, { op: 'add', args: [2, 1] }] }, /alpha must be a number/],
      [{ inputs: [{ dims: [2, 3] }, { dims: [4] }], program: add.program }, /do not broadcast/],
      [{ inputs: [{ dims: [2, -3] }, { dims: [3] }], program: add.program }, /must be >= 0/],
      [{ inputs: [{ dims: [2 ** 30, 2 ** 30] }, { dims: [1] }], program: add.program }, /more than 2\^40 elements/],
      [{ inputs: [{ dims: new Array(13).fill(1) }, { dims: [1] }], program: add.program }, /more than 12 entries/],
      [{ inputs: [{ dims: [2], type: 'int32' }, { dims: [1] }], program: add.program }, /'float32' or 'bool'/],
      [{ ...add, outputType: 'float16' }, /outputType must be 'float32' or 'bool'/],
      [{ ...add, isa: 'sse9' }, /isa must be 'auto', 'avx512', 'avx2' or 'generic'/],
      [{ inputs: new Array(65).fill({ dims: [1] }), program: [{ op: 'neg', args: [0] }] }, /at most 64 inputs/],
      [{ inputs: [{ dims: [1] }], program: new Array(257).fill({ op: 'neg', args: [0] }) }, /at most 256 instructions/],
    ];
    for (const [options, message] of bad) {
      // @ts-expect-error: deliberately malformed
      expect(() => new P(options), String(message)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(message) }));
    }
  });

  it('checks run arguments: count, dtype and length of every buffer', async () => {
    const p = new P(add);
    const a = new Float32Array(6);
    const b = new Float32Array(3);
    const y = new Float32Array(6);
    expect(() => p.runSync([a], y)).toThrow(/expected 2 inputs, got 1/);
    // @ts-expect-error: not an array
    expect(() => p.runSync(a, y)).toThrow(/inputs must be an array/);
    expect(() => p.runSync([a, new Float32Array(4)], y)).toThrow(/inputs\[1\] must have 3 elements, got 4/);
    // @ts-expect-error: a Float64Array
    expect(() => p.runSync([new Float64Array(6), b], y)).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/inputs\[0\] must be a Float32Array/) }));
    expect(() => p.runSync([a, b], new Float32Array(5))).toThrow(/output must have 6 elements/);
    expect(() => p.run([a, b], new Uint8Array(6))).toThrow(/output must be a Float32Array/);
    const where = new P({ inputs: [{ dims: [3], type: 'bool' }, { dims: [3] }, { dims: [1] }], program: [{ op: 'where', args: [0, 1, 2] }] });
    expect(() => where.runSync([new Float32Array(3), b, new Float32Array(1)], new Float32Array(3))).toThrow(/inputs\[0\] must be a Uint8Array \(bool\)/);
    await p.run([Float32Array.of(1, 2, 3, 4, 5, 6), Float32Array.of(10, 20, 30)], y); // still usable
    expect(Array.from(y)).toEqual([11, 22, 33, 14, 25, 36]);
    p.dispose();
    expect(() => p.runSync([a, b], y)).toThrow(expect.objectContaining({ code: 'RELEASED' }));
    expect(() => p.outputDims).toThrow(/disposed/);
  });

  it('reports the output shape, and runs empty outputs as no work', () => {
    const p = new P({ inputs: [{ dims: [4, 1, 3] }, { dims: [5, 1] }], program: [{ op: 'mul', args: [0, 1] }] });
    expect(p.outputDims).toEqual([4, 5, 3]);
    const empty = new P({ inputs: [{ dims: [0, 3] }, { dims: [3] }], program: [{ op: 'add', args: [0, 1] }] });
    expect(empty.outputDims).toEqual([0, 3]);
    empty.runSync([new Float32Array(0), new Float32Array(3)], new Float32Array(0));
  });

  it('picks the best instruction set, capped by SWITCHYARD_CPU_VECTOR_ISA; an explicit isa must exist', () => {
    const available = isas();
    expect(available[0]).toBe('generic');
    const best = available[available.length - 1];
    delete process.env.SWITCHYARD_CPU_VECTOR_ISA;
    expect(new P(add).implementation).toBe(`elementwise:${best}`);
    for (const isa of available) {
      process.env.SWITCHYARD_CPU_VECTOR_ISA = isa;
      expect(new P(add).implementation).toBe(`elementwise:${isa}`);
      expect(new P({ ...add, isa: isa as 'generic' }).implementation).toBe(`elementwise:${isa}`);
    }
    process.env.SWITCHYARD_CPU_VECTOR_ISA = 'avx512';
    expect(new P(add).implementation).toBe(`elementwise:${best}`); // a cap, not a demand
    process.env.SWITCHYARD_CPU_VECTOR_ISA = 'mmx';
    expect(() => new P(add)).toThrow(/SWITCHYARD_CPU_VECTOR_ISA must be/);
    if (!available.includes('avx512')) expect(() => new P({ ...add, isa: 'avx512' })).toThrow(expect.objectContaining({ code: 'UNSUPPORTED' }));
  });

  it('keeps the transcendentals within a few ulp of double precision on every instruction set', () => {
    const n = 200_000;
    const cases: Array<[op: string, lo: number, hi: number, ref: (x: number) => number, ulps: number]> = [
      ['exp', -104, 89, Math.exp, 2],
      ['log', 1e-30, 1e30, Math.log, 2],
      ['sigmoid', -100, 100, (x) => 1 / (1 + Math.exp(-x)), 4],
      ['tanh', -10, 10, Math.tanh, 4],
      ['erf', -4, 4, erfRef, 5],
      ['gelu', -12, 6, (x) => 0.5 * x * erfcRef(-x / Math.SQRT2), 12],
      ['softplus', -60, 60, (x) => Math.log1p(Math.exp(x)), 4],
      ['swish', -60, 60, (x) => x / (1 + Math.exp(-x)), 4],
      ['elu', -20, 1, (x) => (x < 0 ? Math.expm1(x) : x), 4],
    ];
    const u = seededFloats(n, 99);
    for (const isa of isas()) {
      for (const [op, lo, hi, ref, ulps] of cases) {
        const x = new Float32Array(n);
        // log: spread over magnitudes; the others: uniform over [lo, hi].
        for (let i = 0; i < n; i++) x[i] = op === 'log' ? Math.exp(Math.log(lo) + ((u[i] + 1) / 2) * (Math.log(hi) - Math.log(lo))) : lo + ((u[i] + 1) / 2) * (hi - lo);
        const y = new Float32Array(n);
        new P({ inputs: [{ dims: [n] }], program: [{ op, args: [0], alpha: 1 }], isa: isa as 'generic', threads: 1 }).runSync([x], y);
        let worst = 0;
        let at = 0;
        for (let i = 0; i < n; i++) {
          const e = ref(x[i]);
          const ulp = Math.max(Math.abs(Math.fround(e)) * 2 ** -23, 2 ** -149);
          const err = Math.abs(y[i] - e) / ulp;
          if (err > worst) [worst, at] = [err, x[i]];
        }
        expect(worst, `${op} on ${isa}: ${worst.toFixed(2)} ulp at x = ${at}`).toBeLessThanOrEqual(ulps);
      }
    }
  });

  it('gathers a repeated per-channel operand once per repeat, correctly across block and thread boundaries', async () => {
    // A channel-blocked [N, C/16, H, W, 16] tensor and a [1, C/16, 1, 1, 16] operand read twice: rows of 16
    // that repeat H·W times, so a gathered register serves many blocks, and some blocks straddle channels.
    // H·W = 510 rows: some blocks of 64 rows straddle two channels; 512: blocks end exactly where a channel does;
    // 49 (7x7): nearly every block spans two or three channels. Rows of 16 and 8 floats (AVX-512's and AVX2's
    // channel blocks) are copied at a fixed size, rows of 12 by doubling copies: all three are checked.
    for (const [h, w, b] of [[30, 17, 16], [32, 16, 16], [7, 7, 16], [7, 7, 8], [30, 17, 8], [7, 7, 12], [30, 17, 12]]) {
      const [n, cb] = [2, 3];
      const x = seededFloats(n * cb * h * w * b, 7, 3);
      const s = seededFloats(cb * b, 8);
      const expected = new Float32Array(x.length);
      for (let i = 0; i < x.length; i++) {
        const v = s[(Math.floor(i / (b * h * w)) % cb) * b + (i % b)];
        expected[i] = Math.fround(Math.fround(x[i] * v) + v);
      }
      for (const threads of [1, 2, 3]) {
        const y = new Float32Array(x.length);
        const p = new P({ inputs: [{ dims: [n, cb, h, w, b] }, { dims: [1, cb, 1, 1, b] }], program: [{ op: 'mul', args: [0, 1] }, { op: 'add', args: [2, 1] }], threads });
        if (threads === 2) await p.run([x, s], y);
        else p.runSync([x, s], y);
        const bad = y.findIndex((v, i) => !Object.is(v, expected[i]));
        expect(bad, `${h}x${w}x${b}, ${threads} thread(s): [${bad}] = ${y[bad]}, expected ${expected[bad]}`).toBe(-1);
      }
    }
  });

  it('gives the same result on one thread and on several, via run() and runSync()', async () => {
    const dims = [3, 40, 50, 7];
    const n = dims.reduce((a, b) => a * b, 1);
    const options: ElementwisePrimitiveOptions = {
      inputs: [{ dims }, { dims: [40, 1, 7] }],
      program: [{ op: 'mul', args: [0, 1] }, { op: 'tanh', args: [2] }, { op: 'add', args: [3, 0] }],
    };
    const x = seededFloats(n, 5, 3);
    const s = seededFloats(280, 6);
    const one = new Float32Array(n);
    new P({ ...options, threads: 1 }).runSync([x, s], one);
    for (const threads of [2, 4]) {
      const y = new Float32Array(n);
      await new P({ ...options, threads }).run([x, s], y);
      expect(y).toEqual(one);
    }
  });
});

/** erf by its Taylor series / continued fraction in double (for the reference only). */
function erfRef(x: number): number {
  return x < 0 ? -erfRef(-x) : 1 - erfcRef(x);
}

function erfcRef(x: number): number {
  if (x < 0) return 2 - erfcRef(-x);
  if (x < 2.5) {
    // erf series: 2/√π Σ (-1)^n x^(2n+1) / (n! (2n+1)), converges fast below 2.5 in double.
    let term = x;
    let sum = x;
    for (let n = 1; n < 80; n++) {
      term *= (-x * x) / n;
      sum += term / (2 * n + 1);
    }
    return 1 - (2 / Math.sqrt(Math.PI)) * sum;
  }
  let f = x;
  for (let k = 80; k >= 1; k--) f = x + k / 2 / f;
  return Math.exp(-x * x) / Math.sqrt(Math.PI) / f;
}
