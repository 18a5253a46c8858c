/** Gemm: Y = alpha · op(A) · op(B) + beta · C, with C unidirectionally broadcast to [M, N]. */
import { SwitchyardError, defineKernel, simpleKernel } from '@switchyard/core';
import { FLOAT_KERNEL_TYPES, floatData, floatOutput } from '../nn/float-io.js';
import { gemmAccumulate } from '../nn/gemm.js';

export const gemmKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Gemm',
  sinceVersion: 1,
  typeConstraints: { T: FLOAT_KERNEL_TYPES },
  create: simpleKernel((ctx, init) => {
    const transA = init.attrs.int('transA', 0) !== 0;
    const transB = init.attrs.int('transB', 0) !== 0;
    const alpha = init.attrs.float('alpha', 1);
    const beta = init.attrs.float('beta', 1);
    const A = ctx.input(0);
    const B = ctx.input(1);
    const C = ctx.optionalInput(2);
    if (A.dims.length !== 2 || B.dims.length !== 2) {
      throw new SwitchyardError('INVALID_SHAPE', `Gemm: A and B must be 2-D, got [${A.dims.join(', ')}] and [${B.dims.join(', ')}]`);
    }
    if (B.type !== A.type || (C && C.type !== A.type)) throw new SwitchyardError('INVALID_ARGUMENT', 'Gemm: A, B and C must share one type');
    const [M, K] = transA ? [A.dims[1], A.dims[0]] : [A.dims[0], A.dims[1]];
    const [Kb, N] = transB ? [B.dims[1], B.dims[0]] : [B.dims[0], B.dims[1]];
    if (K !== Kb) throw new SwitchyardError('INVALID_SHAPE', `Gemm: inner dimensions differ (op(A) is ${M}×${K}, op(B) is ${Kb}×${N})`);
    const y = floatOutput(ctx, 0, A.type, [M, N]);
    const out = y.data;
    // Outputs may come from a reused arena buffer, so always initialize before accumulating.
    if (C && beta !== 0) fillBroadcastC(C.dims, floatData(C), beta, M, N, out);
    else out.fill(0);
    const a = floatData(A);
    const b = floatData(B);
    gemmAccumulate(M, N, K, alpha, { data: a, offset: 0, ld: A.dims[1], trans: transA }, { data: b, offset: 0, ld: B.dims[1], trans: transB }, out, 0, N);
    return [y.commit()];
  }),
});

/** out[M×N] ← beta · C broadcast from a shape that right-aligns with [M, N]. */
function fillBroadcastC(dims: readonly number[], c: ArrayLike<number>, beta: number, M: number, N: number, out: Float32Array | Float64Array): void {
  if (dims.length > 2) throw new SwitchyardError('INVALID_SHAPE', `Gemm: C has rank ${dims.length}; at most 2 is allowed`);
  const cm = dims.length === 2 ? dims[0] : 1;
  const cn = dims.length >= 1 ? dims[dims.length - 1] : 1;
  if ((cm !== 1 && cm !== M) || (cn !== 1 && cn !== N)) {
    throw new SwitchyardError('INVALID_SHAPE', `Gemm: C [${dims.join(', ')}] does not broadcast to [${M}, ${N}]`);
  }
  const rs = cm === 1 ? 0 : cn;
  const cs = cn === 1 ? 0 : 1;
  for (let i = 0; i < M; i++) {
    const o = i * N;
    for (let j = 0; j < N; j++) out[o + j] = beta * c[i * rs + j * cs];
  }
}
