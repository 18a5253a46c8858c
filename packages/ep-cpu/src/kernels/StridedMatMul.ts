/**
 * StridedMatMul (Switchyard's own domain, created by the attention fusion):
 *   Y = Transpose(scale · MatMul(Transpose(A, permA), Transpose(B, permB)) + mask, permY)
 * with numpy broadcasting for the MatMul's batch dims and for the mask, which may not widen the
 * product. Absent perms are the identity (not Transpose's reversal); `scale` defaults to 1; `mask`
 * is an optional third input. `aShape`/`bShape`/`yShape` are Reshapes folded in too (ONNX Reshape
 * semantics, allowzero 0): A and B are reshaped before their transposes, Y after its own; being
 * row-major, a reshape is only a new set of dims over the same buffer. oneDNN serves it reading the transposes as strides
 * (native/strided-matmul-native.ts); this TS form is its fallback and the tests' reference.
 */
import { SwitchyardError, Tensor, defineKernel, type AttributeReader, type Kernel, type KernelInit } from '@switchyard/core';
import { FUSED_DOMAIN } from './FusedMatMul.js';
import { reshapeDims } from './Reshape.js';

export interface StridedMatMulAttrs {
  permA?: number[];
  permB?: number[];
  permY?: number[];
  scale: number;
  aShape?: number[];
  bShape?: number[];
  yShape?: number[];
}

export function readStridedMatMulAttrs(attrs: AttributeReader): StridedMatMulAttrs {
  const perm = (key: string) => (attrs.has(key) ? attrs.ints(key) : undefined);
  return {
    permA: perm('permA'), permB: perm('permB'), permY: perm('permY'), scale: attrs.float('scale', 1),
    aShape: perm('aShape'), bShape: perm('bShape'), yShape: perm('yShape'),
  };
}

/** `dims` through a folded Reshape's `shape` (when there is one). */
export function reshaped(dims: readonly number[], shape: readonly number[] | undefined): readonly number[] {
  return shape ? reshapeDims(dims, shape, false) : dims;
}

/** The shapes of one StridedMatMul: the transposed operands, the product, and Y. */
export interface StridedMatMulShapes {
  aView: number[];
  bView: number[];
  product: number[];
  output: number[];
  permA: number[];
  permB: number[];
  permY: number[];
}

function rowMajorStrides(dims: readonly number[]): number[] {
  const s = new Array<number>(dims.length).fill(1);
  for (let i = dims.length - 2; i >= 0; i--) s[i] = s[i + 1] * dims[i + 1];
  return s;
}

export function stridedMatMulShapes(name: string, aDims: readonly number[], bDims: readonly number[], attrs: StridedMatMulAttrs, maskDims?: readonly number[]): StridedMatMulShapes {
  const fail = (message: string) =>
    new SwitchyardError('INVALID_ARGUMENT', `node '${name}' (StridedMatMul): A [${aDims.join(', ')}] × B [${bDims.join(', ')}]: ${message}`);
  const rank = aDims.length;
  if (rank < 2 || bDims.length !== rank) throw fail('A and B must have the same rank >= 2');
  const identity = Array.from({ length: rank }, (_, i) => i);
  const checked = (perm: number[] | undefined, what: string) => {
    if (!perm) return identity;
    if (perm.length !== rank || new Set(perm).size !== rank || perm.some((p) => !Number.isInteger(p) || p < 0 || p >= rank)) {
      throw fail(`${what} [${perm.join(', ')}] is not a permutation of ${rank} axes`);
    }
    return perm;
  };
  const permA = checked(attrs.permA, 'permA');
  const permB = checked(attrs.permB, 'permB');
  const permY = checked(attrs.permY, 'permY');
  const aView = permA.map((p) => aDims[p]);
  const bView = permB.map((p) => bDims[p]);
  if (aView[rank - 1] !== bView[rank - 2]) throw fail(`inner dimensions of A' [${aView.join(', ')}] and B' [${bView.join(', ')}] differ`);
  const product: number[] = [];
  for (let i = 0; i < rank - 2; i++) {
    if (aView[i] !== bView[i] && aView[i] !== 1 && bView[i] !== 1) throw fail(`batch dimension ${i} does not broadcast`);
    product.push(aView[i] === 1 ? bView[i] : aView[i]);
  }
  product.push(aView[rank - 2], bView[rank - 1]);
  if (maskDims) {
    const offset = rank - maskDims.length;
    if (offset < 0 || maskDims.some((d, i) => d !== 1 && d !== product[offset + i])) {
      throw fail(`mask [${maskDims.join(', ')}] does not broadcast to the product [${product.join(', ')}] without widening it`);
    }
  }
  return { aView, bView, product, output: permY.map((p) => product[p]), permA, permB, permY };
}

/** Runs the op in plain loops (float32): strides stand in for every transpose and broadcast. */
export function stridedMatMulReference(name: string, a0: Tensor, b0: Tensor, mask: Tensor | undefined, attrs: StridedMatMulAttrs): Tensor<'float32'> {
  for (const [t, what] of [[a0, 'A'], [b0, 'B'], [mask, 'mask']] as const) {
    if (t && t.type !== 'float32') throw new SwitchyardError('INVALID_ARGUMENT', `node '${name}' (StridedMatMul): ${what} is ${t.type}, only float32 is served`);
  }
  const a = new Tensor('float32', a0.data as Float32Array, [...reshaped(a0.dims, attrs.aShape)]);
  const b = new Tensor('float32', b0.data as Float32Array, [...reshaped(b0.dims, attrs.bShape)]);
  const s = stridedMatMulShapes(name, a.dims, b.dims, attrs, mask?.dims);
  const rank = s.product.length;
  const aStr = rowMajorStrides(a.dims);
  const bStr = rowMajorStrides(b.dims);
  const yStr = rowMajorStrides(s.output);
  // Strides in the product's coordinates; a broadcast batch dim gets stride 0.
  const av = s.permA.map((p, i) => (s.aView[i] === 1 && i < rank - 2 ? 0 : aStr[p]));
  const bv = s.permB.map((p, i) => (s.bView[i] === 1 && i < rank - 2 ? 0 : bStr[p]));
  const yv = new Array<number>(rank);
  s.permY.forEach((p, i) => (yv[p] = yStr[i]));
  const mv = new Array<number>(rank).fill(0);
  if (mask) {
    const mStr = rowMajorStrides(mask.dims);
    const off = rank - mask.dims.length;
    mask.dims.forEach((d, i) => (mv[off + i] = d === 1 ? 0 : mStr[i]));
  }
  const y = new Tensor('float32', new Float32Array(s.output.reduce((p, q) => p * q, 1)), s.output);
  const A = a.data as Float32Array;
  const B = b.data as Float32Array;
  const M = mask?.data as Float32Array | undefined;
  const Y = y.data;
  const [m, n, k] = [s.product[rank - 2], s.product[rank - 1], s.aView[rank - 1]];
  const batch = s.product.slice(0, rank - 2);
  const batches = batch.reduce((p, q) => p * q, 1);
  const idx = new Array<number>(batch.length).fill(0);
  for (let bi = 0; bi < batches; bi++) {
    let ao = 0, bo = 0, yo = 0, mo = 0;
    idx.forEach((v, i) => ((ao += v * av[i]), (bo += v * bv[i]), (yo += v * yv[i]), (mo += v * mv[i])));
    for (let i = 0; i < m; i++) {
      for (let j = 0; j < n; j++) {
        let acc = 0;
        for (let t = 0; t < k; t++) acc += A[ao + i * av[rank - 2] + t * av[rank - 1]] * B[bo + t * bv[rank - 2] + j * bv[rank - 1]];
        let v = acc * attrs.scale;
        if (M) v += M[mo + i * mv[rank - 2] + j * mv[rank - 1]];
        Y[yo + i * yv[rank - 2] + j * yv[rank - 1]] = v;
      }
    }
    for (let i = batch.length - 1; i >= 0 && ++idx[i] === batch[i]; i--) idx[i] = 0;
  }
  return attrs.yShape ? new Tensor('float32', y.data, [...reshaped(y.dims, attrs.yShape)]) : y;
}

function createStridedMatMul(init: KernelInit): Kernel {
  const attrs = readStridedMatMulAttrs(init.attrs);
  const name = init.node.name;
  return {
    run(ctx) {
      return [stridedMatMulReference(name, ctx.input(0), ctx.input(1), ctx.optionalInput(2) ?? undefined, attrs)];
    },
  };
}

export const stridedMatMulKernel = defineKernel({
  ep: 'cpu',
  domain: FUSED_DOMAIN,
  opType: 'StridedMatMul',
  sinceVersion: 1,
  typeConstraints: { T: ['float32'] },
  create: createStridedMatMul,
});
