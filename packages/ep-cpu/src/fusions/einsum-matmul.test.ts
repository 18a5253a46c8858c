// Two-operand Einsums that are one batched product run as StridedMatMul (einsum-matmul.ts): the same results as
// the Einsum kernel at 'disabled', for the forms exporters write; the others keep the Einsum.
import { describe, expect, it } from 'vitest';
import { buildModel } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { einsumAsMatMul } from './einsum-matmul.js';
import { compareLevels, tensor } from './test-models.test-util.js';

const hasAddon = new CpuExecutionProvider().nativeUnavailable === undefined;
const STRIDED = 'com.switchyard::StridedMatMul';

/** Equation, A dims, B dims, output dims (compareLevels checks them against the Einsum kernel's). */
const LOWERED: Array<[string, number[], number[], number[]]> = [
  ['bqhd,bkhd->bhqk', [2, 5, 3, 4], [2, 6, 3, 4], [2, 3, 5, 6]],
  ['bhqk,bkhd->bqhd', [2, 3, 5, 6], [2, 6, 3, 4], [2, 5, 3, 4]],
  ['bij,bjk->bik', [3, 4, 5], [3, 5, 2], [3, 4, 2]],
  ['ij,jk->ki', [4, 5], [5, 3], [3, 4]],
  ['bid,bjd->bij', [2, 4, 8], [2, 6, 8], [2, 4, 6]],
  ['bi,bj->bij', [3, 4], [3, 5], [3, 4, 5]],
  ['bij,bj->bi', [3, 4, 5], [3, 5], [3, 4]],
  ['i,i->', [7], [7], []],
];

describe('einsumAsMatMul', () => {
  it('keeps the Einsums that are not one batched product', () => {
    for (const eq of ['bij,bjk', '...ij,...jk->...ik', 'ii,ij->ij', 'ij,jk->k', 'abcd,cdef->abef', 'abc,ad->abcd', 'ij->ji', 'ij,jk,kl->il', 'nchw,kc->nkhw']) {
      expect(typeof einsumAsMatMul(eq), eq).toBe('string');
    }
  });
});

describe.runIf(hasAddon)('Einsum as StridedMatMul (oneDNN addon)', () => {
  for (const [equation, aDims, bDims] of LOWERED) {
    it(`'${equation}' equals the Einsum kernel`, async () => {
      const build = () =>
        buildModel({
          inputs: [['a', 'float32', aDims], ['b', 'float32', bDims]],
          outputs: [['y', 'float32']],
          nodes: [{ op: 'Einsum', inputs: ['a', 'b'], outputs: ['y'], attributes: { equation } }],
        });
      const r = await compareLevels(build, { a: tensor(aDims, 1), b: tensor(bDims, 2) }, { tol: 1e-5 });
      expect(r.ops).toEqual([STRIDED]);
    });
  }
});
