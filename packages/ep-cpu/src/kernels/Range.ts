/** Range: ceil((limit − start) / delta) values; 64-bit ints in bigint arithmetic, the count checked before allocating. */
import { SwitchyardError, elementCount } from '@switchyard/core';
import { toNumbers, writeNumbers } from '../math/numeric.js';
import { allocOutput } from '../tensor-ops/elements.js';
import { tensorKernel } from '../tensor-ops/define.js';

export const rangeKernel = tensorKernel({
  opType: 'Range',
  sinceVersion: 11,
  typeConstraints: { T: ['float32', 'float64', 'float16', 'bfloat16', 'int16', 'int32', 'int64'] },
  create: () => ({
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
      if (type === 'string' || type === 'bool') throw new SwitchyardError('UNSUPPORTED', `Range: ${type} is not supported`);
      // float16/bfloat16 (opset 21 schema): computed in float32 from the widened scalars, then narrowed.
      const half = type === 'float16' || type === 'bfloat16';
      const [start, limit, delta] = half ? [s, l, d].map((t) => toNumbers(t)[0]) : ([s.data[0], l.data[0], d.data[0]] as number[]);
      if (delta === 0 || !Number.isFinite(delta)) throw new SwitchyardError('RUNTIME', `Range: delta must be finite and non-zero, got ${delta}`);
      const raw = Math.ceil((limit - start) / delta);
      if (Number.isNaN(raw)) throw new SwitchyardError('RUNTIME', 'Range: start and limit must be finite');
      const count = Math.max(raw, 0);
      elementCount([count], 'Range output');
      const out = allocOutput(ctx, 0, type, [count]);
      const o = half ? new Float32Array(count) : (out.data as Float32Array);
      for (let i = 0; i < count; i++) o[i] = start + i * delta;
      if (half) writeNumbers(out, o);
      return [out];
    },
  }),
});
