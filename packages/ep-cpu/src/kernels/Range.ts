/**
 * Range: ceil((limit − start) / delta) values; 64-bit ints in bigint arithmetic, the count checked
 * before allocating. float16/bfloat16 (opset 27) are computed in `stash_type` (float32 by default,
 * or float64) by repeated addition of delta, as the op's function body defines, then rounded.
 */
import { SwitchyardError, elementCount, type KernelRunContext, type Tensor } from '@switchyard/core';
import { allocOutput } from '../tensor-ops/elements.js';
import { floatData, floatOutput } from '../nn/float-io.js';
import { tensorKernel } from '../tensor-ops/define.js';

const STASH_FLOAT = 1;
const STASH_DOUBLE = 11;

function halfRange(ctx: KernelRunContext, s: Tensor, l: Tensor, d: Tensor, stash: number): Tensor {
  const round = stash === STASH_DOUBLE ? (v: number) => v : Math.fround;
  const [start, limit, delta] = [s, l, d].map((t) => round(floatData(t, 'Range')[0]));
  if (delta === 0 || !Number.isFinite(delta)) throw new SwitchyardError('RUNTIME', `Range: delta must be finite and non-zero, got ${delta}`);
  const raw = Math.ceil(round(round(limit - start) / delta));
  if (Number.isNaN(raw)) throw new SwitchyardError('RUNTIME', 'Range: start and limit must be finite');
  const count = Math.max(raw, 0);
  elementCount([count], 'Range output');
  const out = floatOutput(ctx, 0, s.type, [count]);
  for (let i = 0, v = start; i < count; i++, v = round(v + delta)) out.data[i] = v;
  return out.commit();
}

export const rangeKernel = tensorKernel({
  opType: 'Range',
  sinceVersion: 11,
  typeConstraints: { T: ['float32', 'float64', 'int16', 'int32', 'int64', 'float16', 'bfloat16'] },
  create: ({ attrs }) => {
    const stash = attrs.int('stash_type', STASH_FLOAT);
    if (stash !== STASH_FLOAT && stash !== STASH_DOUBLE) throw new SwitchyardError('INVALID_MODEL', `Range: stash_type must be 1 (float) or 11 (double), got ${stash}`);
    return {
      run(ctx) {
        const [s, l, d] = [ctx.input(0), ctx.input(1), ctx.input(2)];
        const type = s.type;
        if (l.type !== type || d.type !== type) throw new SwitchyardError('RUNTIME', 'Range: start, limit and delta must share one type');
        if (s.size !== 1 || l.size !== 1 || d.size !== 1) throw new SwitchyardError('RUNTIME', 'Range: start, limit and delta must be scalars');
        if (type === 'int64' || type === 'uint64') {
          const [start, limit, delta] = [s.data[0], l.data[0], d.data[0]] as bigint[];
          if (delta === 0n) throw new SwitchyardError('RUNTIME', 'Range: delta must not be 0');
          // ceil division for either sign of delta
          const span = limit - start;
          let n = span / delta;
          if (n * delta !== span && span > 0n === delta > 0n) n += 1n;
          const count = n > 0n ? Number(n) : 0;
          elementCount([count], 'Range output');
          const out = allocOutput(ctx, 0, type, [count]);
          const o = out.data as BigInt64Array;
          for (let i = 0; i < count; i++) o[i] = start + BigInt(i) * delta;
          return [out];
        }
        if (type === 'float16' || type === 'bfloat16') return [halfRange(ctx, s, l, d, stash)];
        if (type === 'string' || type === 'bool') {
          throw new SwitchyardError('UNSUPPORTED', `Range: ${type} is not supported`);
        }
        const [start, limit, delta] = [s.data[0], l.data[0], d.data[0]] as number[];
        if (delta === 0 || !Number.isFinite(delta)) throw new SwitchyardError('RUNTIME', `Range: delta must be finite and non-zero, got ${delta}`);
        const raw = Math.ceil((limit - start) / delta);
        if (Number.isNaN(raw)) throw new SwitchyardError('RUNTIME', 'Range: start and limit must be finite');
        const count = Math.max(raw, 0);
        elementCount([count], 'Range output');
        const out = allocOutput(ctx, 0, type, [count]);
        const o = out.data as Float32Array;
        for (let i = 0; i < count; i++) o[i] = start + i * delta;
        return [out];
      },
    };
  },
});
