/**
 * MatMul on oneDNN (numpy semantics: batch dims broadcast, 1-D operands promoted and their axis
 * dropped from the result). One MatMulPrimitive per node and shape pair; a constant B is packed once.
 * The fusion pass's FusedMatMul (MatMul + Add of a bias on the last dim [+ an activation]) runs here with
 * oneDNN's bias and eltwise post-op.
 */
import {
  SwitchyardError,
  elementCount,
  type Graph,
  type Kernel,
  type KernelDef,
  type KernelInit,
  type KernelResult,
  type KernelRunContext,
  type Node,
} from '@switchyard/core';
import type { MatMulPrimitive, NativeBinding } from './binding.js';
import { fromNativeError, withNativeErrors, withNodeErrors } from './native-errors.js';
import {
  dispatchFor,
  float32Data,
  float32Reason,
  hasZeroDim,
  staticDims,
  staticRank,
  teamFor,
} from './native-support.js';
import { RepackingCache } from './primitive-cache.js';
import { FUSED_DOMAIN } from '../kernels/FusedMatMul.js';
import { fusedActivation, nodeActivation } from '../nn/fused-activation.js';

/** oneDNN's DNNL_MAX_NDIMS. */
const MAX_RANK = 12;

/** The operands as matrices (rank >= 2) and ONNX's output dims. */
interface MatMulShapes {
  a: number[];
  b: number[];
  output: number[];
  /** K, the contracted length. */
  inner: number;
}

function matMulShapes(node: Node, aDims: readonly number[], bDims: readonly number[]): MatMulShapes {
  const fail = (message: string) =>
    new SwitchyardError('INVALID_ARGUMENT', `node '${node.name}' (MatMul): A [${aDims.join(', ')}] × B [${bDims.join(', ')}]: ${message}`);
  if (aDims.length === 0 || bDims.length === 0) throw fail('operands must have rank >= 1');
  const a = aDims.length === 1 ? [1, aDims[0]] : [...aDims];
  const b = bDims.length === 1 ? [bDims[0], 1] : [...bDims];
  const rank = Math.max(a.length, b.length);
  if (rank > MAX_RANK) throw fail(`rank ${rank} exceeds ${MAX_RANK}`);
  const inner = a[a.length - 1];
  if (b[b.length - 2] !== inner) throw fail('inner dimensions differ');
  const pa = [...Array<number>(rank - a.length).fill(1), ...a];
  const pb = [...Array<number>(rank - b.length).fill(1), ...b];
  const output: number[] = [];
  for (let i = 0; i < rank - 2; i++) {
    if (pa[i] !== pb[i] && pa[i] !== 1 && pb[i] !== 1) throw fail(`batch dimension ${i} does not broadcast`);
    output.push(pa[i] === 1 ? pb[i] : pa[i]);
  }
  if (aDims.length > 1) output.push(a[a.length - 2]);
  if (bDims.length > 1) output.push(b[b.length - 1]);
  return { a, b, output, inner };
}

/**
 * The product oneDNN is asked for: when B has no batch of its own (2-D, or batch dims all 1), every
 * batch dim comes from A, and A's rows are one [rows, K] matrix (row-major: the same bytes, and Y's
 * bytes are the same [rows, N] too). oneDNN 2.6 runs a batch of single-row products as that many
 * matrix-vector products: seq-first attention's [197, 1, 768] × [768, 768] took 14-20 ms where
 * [197, 768] × [768, 768] took 1.1 ms (AVX-512, 2 threads, brgemm matmul).
 */
function collapsedProduct(shapes: MatMulShapes): { a: number[]; b: number[] } {
  const { a, b } = shapes;
  if (a.length <= 2 || b.slice(0, -2).some((d) => d !== 1)) return { a, b };
  const rows = a.slice(0, -1).reduce((p, d) => p * d, 1);
  return { a: [rows, a[a.length - 1]], b: b.slice(-2) };
}

function supportsMatMul(node: Node, graph: Graph): true | string {
  const [a, b] = node.inputs;
  if (!a || !b) return 'MatMul needs A and B';
  const dtype = float32Reason(graph, a, 'A') ?? float32Reason(graph, b, 'B');
  if (dtype) return dtype;
  const ra = staticRank(graph, a);
  const rb = staticRank(graph, b);
  if (ra === undefined || rb === undefined) return 'operand ranks are unknown at session creation';
  if (ra < 1 || rb < 1) return 'MatMul of a scalar is not served by onednn';
  if (Math.max(ra, rb) > MAX_RANK) return `rank ${Math.max(ra, rb)} exceeds oneDNN's ${MAX_RANK}`;
  const activation = node.opType === 'FusedMatMul' ? nodeActivation(node) : undefined;
  if (typeof activation === 'string') return `FusedMatMul: ${activation}`;
  const bias = node.opType === 'FusedMatMul' ? node.inputs[2] : undefined;
  if (bias) {
    const biasType = float32Reason(graph, bias, 'bias');
    if (biasType) return biasType;
    if (staticRank(graph, bias) !== 1) return 'FusedMatMul: onednn takes a 1-D bias only';
  }
  return true;
}

function createMatMul(binding: NativeBinding, init: KernelInit): Kernel {
  const { node } = init;
  const constB = init.constantInputs.get(1);
  const hasBias = node.opType === 'FusedMatMul' && Boolean(node.inputs[2]);
  const constBias = hasBias ? init.constantInputs.get(2) : undefined;
  const activation = node.opType === 'FusedMatMul' ? nodeActivation(node) : fusedActivation('');
  if (typeof activation === 'string') throw new SwitchyardError('INVALID_MODEL', `node '${node.name}' (FusedMatMul): ${activation}`);
  const cache = new RepackingCache<MatMulPrimitive>((p) => p.weightsPacked);

  /**
   * B is packed at session creation when A's shape is known but for the batch: for A's declared shape,
   * batch 1 when it is symbolic, and the model's copy of B is then released (not held twice). A
   * primitive for a shape seen later packs from the last one built (`packedFrom`); one built at creation
   * for a shape no run has used is dropped once a run builds its own.
   */
  let packedAtCreate = false;
  const keyOf = (product: { a: number[]; b: number[] }, threads: number): string => `${product.a.join(',')}|${product.b.join(',')}|${threads}`;
  const primitiveFor = (shapes: MatMulShapes, threads: number): MatMulPrimitive => {
    const product = collapsedProduct(shapes);
    return cache.get(keyOf(product, threads), () =>
      new binding.MatMulPrimitive({
        aDims: product.a,
        bDims: product.b,
        threads,
        b: constB && !packedAtCreate ? float32Data(node, constB, 'B') : undefined,
        packedFrom: constB && packedAtCreate ? cache.donor : undefined,
        hasBias,
        bias: constBias ? float32Data(node, constBias, 'bias') : undefined,
        activation: activation.native,
        activationAlpha: activation.alpha,
        activationBeta: activation.beta,
      }),
    );
  };

  // Session creation: pack B now when it is a constant worth packing and A's rank is known.
  const aStatic = staticDims(init.inputTypes[0]);
  const aShape = init.inputTypes[0]?.kind === 'tensor' ? init.inputTypes[0].shape : undefined;
  // Symbolic dims of A but its last (K) are taken as 1: B is packed for a batch of 1 (and one token). A run
  // at another shape packs again from that primitive, and the probe is dropped as soon as it has: one
  // node at a time holds a second packed copy, at its first run only, where keeping the model's copy of
  // every B would hold it for the session's life (GPT-2's LM head alone is 154 MB).
  const kKnown = aShape !== undefined && aShape.length >= 2 && typeof aShape[aShape.length - 1] === 'number';
  const aDeclared = aStatic ?? (kKnown ? aShape.map((d) => (typeof d === 'number' ? d : 1)) : undefined);
  if (aDeclared && constB && !hasZeroDim(aDeclared) && !hasZeroDim(constB.dims)) {
    let shapes: MatMulShapes | undefined;
    try {
      shapes = matMulShapes(node, aDeclared, constB.dims);
    } catch (error) {
      // A batch of 1 cannot contradict B; a static shape that does is the model's error.
      if (aStatic) throw error;
    }
    if (shapes) {
      try {
        const threads = teamFor(binding, init.threads, elementCount(shapes.output) * shapes.inner);
        packedAtCreate = primitiveFor(shapes, threads).weightsPacked;
        if (!aStatic) cache.markProbe(keyOf(collapsedProduct(shapes), threads));
      } catch (error) {
        throw fromNativeError(node, error);
      }
    }
  }

  return {
    implementation: 'onednn',
    releasedConstants: packedAtCreate ? [1] : undefined,
    // Synchronous when the call runs inline: no promise or microtask per node.
    run(ctx: KernelRunContext): KernelResult | Promise<KernelResult> {
      const a = ctx.input(0);
      const b = constB ?? ctx.input(1);
      const aData = float32Data(node, a, 'A');
      // A released B (packed at creation) has no data left: primitives pack from one another.
      const bData = constB && packedAtCreate ? undefined : float32Data(node, b, 'B');
      const shapes = matMulShapes(node, a.dims, b.dims);
      const bias = hasBias ? constBias ?? ctx.input(2) : undefined;
      const n = shapes.b[shapes.b.length - 1];
      if (bias && (bias.dims.length !== 1 || bias.dims[0] !== n)) {
        throw new SwitchyardError('INVALID_ARGUMENT', `node '${node.name}' (${node.opType}): bias [${bias.dims.join(', ')}] must be [${n}]`);
      }
      const biasData = bias ? float32Data(node, bias, 'bias') : undefined;
      const y = ctx.output(0, 'float32', shapes.output, { uninitialized: true });
      const yData = float32Data(node, y, 'Y');
      if (y.size === 0) return [y];
      if (shapes.inner === 0 || hasZeroDim(shapes.a) || hasZeroDim(shapes.b)) {
        // An empty sum (K = 0) is all zeros, plus the bias, activated; oneDNN rejects empty operands.
        for (let i = 0; i < yData.length; i++) yData[i] = activation.apply(biasData ? biasData[i % n] : 0);
        return [y];
      }
      const macs = y.size * shapes.inner;
      const { inline, threads } = dispatchFor(binding, ctx.threads, macs);
      const primitive = withNodeErrors(node, () => primitiveFor(shapes, threads));
      const bArg = primitive.weightsPacked ? null : bData!;
      const biasArg = constBias ? undefined : biasData;
      if (inline) {
        withNodeErrors(node, () => primitive.runSync(aData, bArg, yData, biasArg));
        return [y];
      }
      return withNativeErrors(node, () => primitive.run(aData, bArg, yData, biasArg)).then(() => [y]);
    },
    dispose() {
      cache.dispose();
    },
  };
}

/** The kernel defs for ai.onnx MatMul and the fusion pass's FusedMatMul (float32) on oneDNN. */
export function nativeMatMulKernels(binding: NativeBinding): KernelDef[] {
  const common = {
    ep: 'cpu',
    sinceVersion: 1,
    typeConstraints: { T: ['float32'] },
    implementation: 'onednn',
    supports: supportsMatMul,
    create: (init: KernelInit) => createMatMul(binding, init),
  } satisfies Partial<KernelDef>;
  return [
    { ...common, domain: '', opType: 'MatMul' },
    { ...common, domain: FUSED_DOMAIN, opType: 'FusedMatMul' },
  ];
}

/** The kernel def for ai.onnx MatMul alone (kept for callers that register it by itself). */
export function nativeMatMulKernel(binding: NativeBinding): KernelDef {
  return nativeMatMulKernels(binding)[0];
}
