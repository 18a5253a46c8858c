/**
 * StridedMatMul (the attention fusion's op) on oneDNN: the transposes are memory strides, the scale
 * an output scale and the mask a binary-add post-op, so Q·Kᵀ/√d + mask and P·V each run as one
 * gemm with no copies. One primitive per node and shape set. What oneDNN cannot take (ranks differ,
 * a mask together with a permuted Y) runs in the TS form (kernels/StridedMatMul.ts).
 */
import { elementCount, type Graph, type Kernel, type KernelDef, type KernelInit, type KernelRunContext, type Node } from '@switchyard/core';
import type { NativeBinding, StridedMatMulPrimitive } from './binding.js';
import { fromNativeError, withNativeErrors } from './native-errors.js';
import { dispatchFor, float32Data, float32Reason, hasZeroDim, staticDims, staticRank, teamFor } from './native-support.js';
import { PrimitiveCache } from './primitive-cache.js';
import { FUSED_DOMAIN } from '../kernels/FusedMatMul.js';
import { readStridedMatMulAttrs, stridedMatMulKernel, reshaped, stridedMatMulReference, stridedMatMulShapes, type StridedMatMulAttrs } from '../kernels/StridedMatMul.js';

/** oneDNN's DNNL_MAX_NDIMS. */
const MAX_RANK = 12;


function supportsStridedMatMul(node: Node, graph: Graph): true | string {
  const [a, b, mask] = node.inputs;
  if (!a || !b) return 'StridedMatMul needs A and B';
  const dtype = float32Reason(graph, a, 'A') ?? float32Reason(graph, b, 'B') ?? (mask ? float32Reason(graph, mask, 'mask') : undefined);
  if (dtype) return dtype;
  // With a folded Reshape, the operand's rank is its `aShape`/`bShape` length.
  const shapeLength = (key: string) => {
    const attr = node.attributes.get(key);
    return attr?.type === 'ints' ? attr.value.length : undefined;
  };
  const rank = shapeLength('aShape') ?? staticRank(graph, a);
  if (rank === undefined || rank !== (shapeLength('bShape') ?? staticRank(graph, b))) return 'A and B need the same rank, known at session creation';
  if (rank < 2 || rank > MAX_RANK) return `rank ${rank} is outside oneDNN's 2..${MAX_RANK}`;
  return true;
}

function createStridedMatMul(binding: NativeBinding, Primitive: NonNullable<NativeBinding['StridedMatMulPrimitive']>, init: KernelInit): Kernel {
  const { node } = init;
  const attrs: StridedMatMulAttrs = readStridedMatMulAttrs(init.attrs);
  const hasMask = Boolean(node.inputs[2]);
  // The addon refuses a mask together with a permuted Y (oneDNN 2.6 mis-addresses the post-op then).
  const permutesY = attrs.permY?.some((p, i) => p !== i) ?? false;
  const cache = new PrimitiveCache<StridedMatMulPrimitive>();
  const primitiveFor = (a: readonly number[], b: readonly number[], mask: readonly number[] | undefined, threads: number) =>
    cache.get(`${a.join(',')}|${b.join(',')}|${mask?.join(',') ?? '-'}|${threads}`, () =>
      new Primitive({ aDims: a, bDims: b, permA: attrs.permA, permB: attrs.permB, permY: attrs.permY, scale: attrs.scale, maskDims: mask, threads }),
    );

  // Session creation: build now when every shape is static, so the first run does not pay for it.
  const [aIn, bIn] = [staticDims(init.inputTypes[0]), staticDims(init.inputTypes[1])];
  const [aStatic, bStatic] = [aIn && [...reshaped(aIn, attrs.aShape)], bIn && [...reshaped(bIn, attrs.bShape)]];
  const maskStatic = hasMask ? staticDims(init.inputTypes[2]) : undefined;
  if (aStatic && bStatic && (!hasMask || (maskStatic && !permutesY)) && ![aStatic, bStatic, maskStatic ?? []].some(hasZeroDim)) {
    try {
      const shapes = stridedMatMulShapes(node.name, aStatic, bStatic, attrs, maskStatic);
      const macs = elementCount(shapes.output) * shapes.aView[aStatic.length - 1];
      primitiveFor(aStatic, bStatic, maskStatic, teamFor(binding, init.threads, macs));
    } catch (error) {
      throw fromNativeError(node, error);
    }
  }

  return {
    implementation: 'onednn',
    async run(ctx: KernelRunContext) {
      const a = ctx.input(0);
      const b = ctx.input(1);
      const mask = hasMask ? ctx.input(2) : undefined;
      // Folded Reshapes only rename the dims of the same row-major buffers.
      const aDims = reshaped(a.dims, attrs.aShape);
      const bDims = reshaped(b.dims, attrs.bShape);
      const rank = aDims.length;
      const native = rank >= 2 && rank <= MAX_RANK && bDims.length === rank && a.type === 'float32' && b.type === 'float32' && (!mask || mask.type === 'float32');
      if (!native || (mask && permutesY) || [aDims, bDims, mask?.dims ?? []].some(hasZeroDim)) return [stridedMatMulReference(node.name, a, b, mask, attrs)];
      const shapes = stridedMatMulShapes(node.name, aDims, bDims, attrs, mask?.dims);
      const y = ctx.output(0, 'float32', reshaped(shapes.output, attrs.yShape), { uninitialized: true });
      const args = [float32Data(node, a, 'A'), float32Data(node, b, 'B'), mask ? float32Data(node, mask, 'mask') : null, float32Data(node, y, 'Y')] as const;
      const macs = y.size * shapes.aView[rank - 1];
      const { inline, threads } = dispatchFor(binding, ctx.threads, macs);
      await withNativeErrors(node, () => {
        const primitive = primitiveFor(aDims, bDims, mask?.dims, threads);
        return inline ? primitive.runSync(...args) : primitive.run(...args);
      });
      return [y];
    },
    dispose() {
      cache.dispose();
    },
  };
}

/** The StridedMatMul def, when the loaded addon has the primitive. */
export function nativeStridedMatMulKernels(binding: NativeBinding): KernelDef[] {
  const Primitive = binding.StridedMatMulPrimitive;
  if (!Primitive) return [];
  return [
    {
      ep: 'cpu',
      domain: FUSED_DOMAIN,
      opType: 'StridedMatMul',
      sinceVersion: 1,
      typeConstraints: { T: ['float32'] },
      implementation: 'onednn',
      supports: supportsStridedMatMul,
      create: (init) => createStridedMatMul(binding, Primitive, init),
    },
    // What the oneDNN def declines (ranks unknown at session creation) runs in plain TS.
    stridedMatMulKernel,
  ];
}

/** Whether the addon can run the attention fusion's op (the pass is left out otherwise). */
export function supportsStridedMatMulOp(binding: NativeBinding): boolean {
  return typeof binding.StridedMatMulPrimitive === 'function';
}
