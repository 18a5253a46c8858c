/** MatMul with numpy semantics: batched N-D operands broadcast over leading dims; 1-D operands are promoted. */
import { SwitchyardError, defineKernel, simpleKernel } from '@switchyard/core';
import { FLOAT_KERNEL_TYPES, floatData, floatOutput } from '../nn/float-io.js';
import { gemmAccumulate } from '../nn/gemm.js';
import { planMatMul } from '../nn/matmul-plan.js';

export const matMulKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'MatMul',
  sinceVersion: 1,
  // bfloat16 computes in float32 like float16 (floatData / floatOutput widen and narrow it).
  typeConstraints: { T: [...FLOAT_KERNEL_TYPES, 'bfloat16'] },
  create: simpleKernel((ctx) => {
    const A = ctx.input(0);
    const B = ctx.input(1);
    if (A.type !== B.type) throw new SwitchyardError('INVALID_ARGUMENT', `MatMul: A is ${A.type} but B is ${B.type}`);
    const p = planMatMul('MatMul', A.dims, B.dims);
    const y = floatOutput(ctx, 0, A.type, p.outDims);
    const a = floatData(A);
    const b = floatData(B);
    const { M, K, N } = p;
    y.data.fill(0); // arena buffers may hold stale values; the GEMM accumulates
    const count = p.aIndex.length;
    // B shared by every batch entry and A contiguous: fold the batch into M for one large GEMM.
    const bShared = p.bIndex.every((v) => v === 0);
    const aContiguous = p.aIndex.every((v, i) => v === i);
    if (bShared && aContiguous) {
      gemmAccumulate(M * count, N, K, 1, { data: a, offset: 0, ld: K, trans: false }, { data: b, offset: 0, ld: N, trans: false }, y.data, 0, N);
    } else {
      for (let i = 0; i < count; i++) {
        gemmAccumulate(
          M, N, K, 1,
          { data: a, offset: p.aIndex[i] * M * K, ld: K, trans: false },
          { data: b, offset: p.bIndex[i] * K * N, ld: N, trans: false },
          y.data, i * M * N, N,
        );
      }
    }
    return [y.commit()];
  }),
});
