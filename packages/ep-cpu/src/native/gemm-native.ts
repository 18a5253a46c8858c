/**
 * Gemm on oneDNN: Y = alpha · op(A) · op(B) + beta · C, transposes as strided views (no copies).
 * One GemmPrimitive per node and shape; a constant B is packed and a constant C copied once (and B
 * released when packed at creation: see createGemm). Empty operands (which oneDNN rejects) go to the TS
 * kernel, built beside this one for that purpose, while the model's B is still held.
 */
import {
  AttributeReader,
  type Graph,
  type Kernel,
  type KernelDef,
  type KernelInit,
  type KernelRunContext,
  type Node,
  SwitchyardError,
} from '@switchyard/core';
import type { GemmPrimitive, GemmPrimitiveOptions, NativeBinding } from './binding.js';
import { fromNativeError, withNativeErrors, withNodeErrors } from './native-errors.js';
import {
  dispatchFor,
  teamFor,
  float32Data,
  float32Reason,
  hasZeroDim,
  sameDims,
  SMALL_GEMM_MACS,
  smallProblem,
  staticDims,
  staticRank,
} from './native-support.js';
import { RepackingCache } from './primitive-cache.js';
import { gemmKernel } from '../kernels/Gemm.js';

function supportsGemm(node: Node, graph: Graph): true | string {
  const [a, b, c] = node.inputs;
  if (!a || !b) return 'Gemm needs A and B';
  const dtype = float32Reason(graph, a, 'A') ?? float32Reason(graph, b, 'B') ?? (c ? float32Reason(graph, c, 'C') : undefined);
  if (dtype) return dtype;
  if (staticRank(graph, a) !== 2 || staticRank(graph, b) !== 2) return 'A and B must be known 2-D at session creation';
  if (c) {
    const rc = staticRank(graph, c);
    if (rc === undefined || rc > 2) return 'C must have a known rank of at most 2';
  }
  return true;
}

function createGemm(binding: NativeBinding, Primitive: NonNullable<NativeBinding['GemmPrimitive']>, init: KernelInit, smallOpsInTs: boolean): Kernel {
  const { node, attrs } = init;
  const transA = attrs.int('transA', 0) !== 0;
  const transB = attrs.int('transB', 0) !== 0;
  const alpha = attrs.float('alpha', 1);
  const beta = attrs.float('beta', 1);
  const constB = init.constantInputs.get(1);
  const constC = init.constantInputs.get(2);
  const hasC = Boolean(node.inputs[2]);
  const fallback = gemmKernel.create(init);
  const cache = new RepackingCache<GemmPrimitive>((p) => p.weightsPacked);

  /**
   * B is packed at session creation when A's shape is known but for its rows (a symbolic batch: 1 is
   * assumed), and the model's copy of B is then released (not held twice: GPT-2's 48 Linear layers are
   * 340 MB). A primitive for a shape seen later packs from the last one built (`packedFrom`); the one
   * built at creation for a row count no run has used is dropped once a run builds its own.
   */
  let packedAtCreate = false;
  const keyOf = (aDims: readonly number[], bDims: readonly number[], cDims: readonly number[] | undefined, threads: number) =>
    `${aDims.join(',')}|${bDims.join(',')}|${cDims?.join(',') ?? '-'}|${threads}`;
  const primitiveFor = (aDims: readonly number[], bDims: readonly number[], cDims: readonly number[] | undefined, threads: number) =>
    cache.get(keyOf(aDims, bDims, cDims, threads), () => {
      const options: GemmPrimitiveOptions = {
        aDims, bDims, transA, transB, alpha, beta, cDims, threads,
        b: constB && !packedAtCreate ? float32Data(node, constB, 'B') : undefined,
        packedFrom: constB && packedAtCreate ? cache.donor : undefined,
        c: constC ? float32Data(node, constC, 'C') : undefined,
      };
      return new Primitive(options);
    });

  const aStatic = staticDims(init.inputTypes[0]);
  const aShape = init.inputTypes[0]?.kind === 'tensor' ? init.inputTypes[0].shape : undefined;
  const rowsAxis = transA ? 1 : 0;
  // Only A's rows symbolic (K known): packed for one row, the shape a symbolic batch is served at most.
  const aDeclared = aStatic ?? (aShape?.length === 2 && typeof aShape[1 - rowsAxis] === 'number' ? aShape.map((d, i) => (i === rowsAxis ? 1 : (d as number))) : undefined);
  // Worth packing: at least one row's product is over the size the TS kernel keeps (so no run falls back to it).
  const bigEnough = constB !== undefined && (!smallOpsInTs || constB.size >= SMALL_GEMM_MACS);
  // What the placement names: the addon's skinny kernel when the one shape runs will see (A static) takes
  // it; oneDNN otherwise (a symbolic batch may bring more rows than the skinny kernel serves).
  let implementation = 'onednn';
  if (aDeclared && constB && bigEnough && (!hasC || constC) && !hasZeroDim(aDeclared) && !hasZeroDim(constB.dims) && !(constC && hasZeroDim(constC.dims))) {
    const [m, k] = transA ? [aDeclared[1], aDeclared[0]] : aDeclared;
    const [kb, n] = transB ? [constB.dims[1], constB.dims[0]] : constB.dims;
    if (aStatic || k === kb) {
      try {
        const threads = teamFor(binding, init.threads, m * n * k);
        const primitive = primitiveFor(aDeclared, constB.dims, constC?.dims, threads);
        packedAtCreate = primitive.weightsPacked;
        if (aStatic && primitive.implementation.includes('skinny_gemm')) implementation = 'skinny';
        if (!aStatic) cache.markProbe(keyOf(aDeclared, constB.dims, constC?.dims, threads));
      } catch (error) {
        // One row cannot contradict B; a static shape that does is the model's error.
        if (aStatic) throw fromNativeError(node, error);
      }
    }
  }

  /** The last shapes' primitive and dispatch: a static model's runs skip the cache key. */
  let last: { aDims: readonly number[]; bDims: readonly number[]; cDims: readonly number[] | undefined; requestedThreads: number; primitive: GemmPrimitive; inline: boolean } | undefined;
  const prepare = (aDims: readonly number[], bDims: readonly number[], cDims: readonly number[] | undefined, macs: number, requestedThreads: number) => {
    if (last && last.requestedThreads === requestedThreads && sameDims(last.aDims, aDims) && sameDims(last.bDims, bDims) &&
      (last.cDims === undefined ? cDims === undefined : cDims !== undefined && sameDims(last.cDims, cDims))) {
      return last;
    }
    const { inline, threads } = dispatchFor(binding, requestedThreads, macs);
    const primitive = withNodeErrors(node, () => primitiveFor(aDims, bDims, cDims, threads));
    last = { aDims: [...aDims], bDims: [...bDims], cDims: cDims && [...cDims], requestedThreads, primitive, inline };
    return last;
  };

  return {
    implementation,
    releasedConstants: packedAtCreate ? [1] : undefined,
    // Synchronous when the call runs inline: no promise or microtask per node.
    run(ctx: KernelRunContext) {
      const a = ctx.input(0);
      const b = constB ?? ctx.input(1);
      const c = hasC ? constC ?? ctx.input(2) : undefined;
      if (a.dims.length !== 2 || b.dims.length !== 2 || (c && c.dims.length > 2) || hasZeroDim(a.dims) || hasZeroDim(b.dims) || (c && hasZeroDim(c.dims))) {
        // Odd or empty shapes: the TS kernel says what is wrong or handles them, unless B was released.
        if (!packedAtCreate) return fallback.run(ctx);
        if (a.dims.length !== 2) throw new SwitchyardError('INVALID_ARGUMENT', `node '${node.name}' (Gemm): A must be 2-D, got [${a.dims.join(', ')}]`);
        const [m, k] = transA ? [a.dims[1], a.dims[0]] : a.dims;
        const [kb, n] = transB ? [b.dims[1], b.dims[0]] : b.dims;
        if (k !== kb) throw new SwitchyardError('INVALID_ARGUMENT', `node '${node.name}' (Gemm): op(A) is ${m}×${k} but op(B) is ${kb}×${n}`);
        return [ctx.output(0, 'float32', [m, n])]; // m = 0 (k = 0 cannot be: B is not empty): nothing to compute
      }
      const aData = float32Data(node, a, 'A');
      // A released B (packed at creation) has no data left: primitives pack from one another.
      const bData = constB && packedAtCreate ? undefined : float32Data(node, b, 'B');
      const cData = c ? float32Data(node, c, 'C') : null;
      const [m, k] = transA ? [a.dims[1], a.dims[0]] : a.dims;
      const n = transB ? b.dims[0] : b.dims[1];
      // A shape only the run states (a symbolic batch) that turns out tiny: the TS kernel, as session creation would have chosen.
      if (smallOpsInTs && !packedAtCreate && m * n * k < SMALL_GEMM_MACS) return fallback.run(ctx);
      const y = ctx.output(0, 'float32', [m, n], { uninitialized: true });
      const prepared = prepare(a.dims, b.dims, c?.dims, m * n * k, ctx.threads);
      const { primitive } = prepared;
      const bArg = primitive.weightsPacked ? null : bData!;
      const cArg = constC || primitive.cMode === 'none' ? null : cData;
      const yData = y.data as Float32Array;
      if (prepared.inline) {
        withNodeErrors(node, () => primitive.runSync(aData, bArg, cArg, yData));
        return [y];
      }
      return withNativeErrors(node, () => primitive.run(aData, bArg, cArg, yData)).then(() => [y]);
    },
    dispose() {
      last = undefined;
      cache.dispose();
      fallback.dispose?.();
    },
  };
}

/** m·k·n of a Gemm whose A and B shapes are static, else undefined. */
function gemmMacs(node: Node, graph: Graph): number | undefined {
  const a = staticDims(graph.typeOf(node.inputs[0]));
  const b = staticDims(graph.typeOf(node.inputs[1]));
  if (a?.length !== 2 || b?.length !== 2) return undefined;
  const attrs = new AttributeReader(node);
  const [m, k] = attrs.int('transA', 0) ? [a[1], a[0]] : a;
  const n = attrs.int('transB', 0) ? b[0] : b[1];
  return m * k * n;
}

/** The Gemm kernel def on oneDNN, when the loaded addon has GemmPrimitive; `smallOpsInTs` leaves tiny ones to TS. */
export function nativeGemmKernels(binding: NativeBinding, smallOpsInTs = true): KernelDef[] {
  const Primitive = binding.GemmPrimitive;
  if (!Primitive) return [];
  return [
    {
      ep: 'cpu',
      domain: '',
      opType: 'Gemm',
      // Before opset 7, C only broadcast with `broadcast = 1`; the TS kernel serves those old models.
      sinceVersion: 7,
      typeConstraints: { T: ['float32'] },
      implementation: 'onednn',
      supports: (node, graph) => {
        const ok = supportsGemm(node, graph);
        return ok !== true || !smallOpsInTs ? ok : smallProblem(gemmMacs(node, graph), SMALL_GEMM_MACS, 'multiply-adds');
      },
      create: (init) => createGemm(binding, Primitive, init, smallOpsInTs),
    },
  ];
}
