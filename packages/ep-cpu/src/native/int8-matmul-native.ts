/**
 * MatMulInteger, QLinearMatMul and the fusions' QuantizedMatMul / DynamicQuantizedMatMul on oneDNN's int8
 * matmul (native/src/int8_matmul.h) when B is a constant 2-D initializer (weights: the common case):
 * exact int32 sums, requantized or scaled as the TS kernels do, so the outputs are identical to theirs
 * (int8-matmul-native.test.ts). A may have any rank (batch dims fold into rows; 1-D A is one row).
 * Runtime or batched B, per-row a_scale, and mismatched zero-point types run on the TS kernel.
 */
import type { Graph, Kernel, KernelDef, KernelInit, KernelRunContext, Node, Tensor } from '@switchyard/core';
import type { Int8Array8, Int8MatMulOptions, NativeBinding } from './binding.js';
import { dispatchFor, float32Reason, sameDims } from './native-support.js';
import { buildOrDecline, is8Bit, MultiplierCache, perChannel, runInt8Primitive } from './int8-native-support.js';
import { PrimitiveCache } from './primitive-cache.js';
import { FUSED_DOMAIN } from '../kernels/FusedMatMul.js';
import { matMulIntegerKernel } from '../kernels/MatMulInteger.js';
import { qLinearMatMulKernel } from '../kernels/QLinearMatMul.js';
import { quantizedMatMulKernel } from '../kernels/QuantizedMatMul.js';
import { dynamicQuantizedMatMulKernel } from '../kernels/DynamicQuantizedMatMul.js';

/** Why B (input `b`, zero points `bZero`) cannot be packed, or undefined when it can. */
function constantBReason(node: Node, graph: Graph, b: number, bZero: number): string | undefined {
  const bName = node.inputs[b];
  const t = bName ? graph.initializerOf(bName) : undefined;
  if (!t) return 'B is not a constant initializer; onednn packs int8 weights at session creation';
  if (t.dims.length !== 2) return `B has rank ${t.dims.length}; onednn serves a 2-D constant B (batched B runs in TypeScript)`;
  const zName = node.inputs[bZero];
  if (zName && !graph.initializerOf(zName)) return 'the zero point of B is not a constant initializer';
  return undefined;
}

/**
 * B and its zero points as packed data, the dims of the last A, and a primitive per shape of A (and `variant`).
 * A 1-D A is one row ([1, K]); its output drops that dim, as ONNX MatMul does.
 */
class Int8MatMulNode<P extends { dispose(): void }> {
  readonly #cache = new PrimitiveCache<P>();
  /** Shapes the addon declined (UNSUPPORTED): they run on the TS kernel. */
  readonly #declined = new Set<string>();
  #last: { dims: readonly number[]; variant: string; threads: number; outDims: number[]; primitive: P; inline: boolean } | undefined;

  constructor(
    private readonly binding: NativeBinding,
    private readonly node: Node,
    private readonly b: Tensor,
    private readonly bZero: Tensor | undefined,
    private readonly build: (options: Int8MatMulOptions, variant: string) => P,
  ) {}

  get columns(): number {
    return this.b.dims[1];
  }

  /** Whether A of these dims and B's zero points are ones the addon takes; the TS kernel reports the rest. */
  served(aDims: readonly number[]): boolean {
    const z = this.bZero;
    const zOk = !z || (z.type === this.b.type && (z.size === 1 || z.size === this.columns));
    return is8Bit(this.b) && zOk && aDims.length >= 1 && aDims[aDims.length - 1] === this.b.dims[0] && !aDims.includes(0);
  }

  prepare(dims: readonly number[], variant: string, requestedThreads: number) {
    const last = this.#last;
    if (last && last.variant === variant && last.threads === requestedThreads && sameDims(last.dims, dims)) return last;
    const aDims = dims.length === 1 ? [1, dims[0]] : [...dims];
    const outDims = dims.length === 1 ? [this.columns] : [...dims.slice(0, -1), this.columns];
    const macs = outDims.reduce((a, d) => a * d, 1) * this.b.dims[0];
    const { inline, threads } = dispatchFor(this.binding, requestedThreads, macs);
    const key = `${aDims.join(',')}|${variant}|${threads}`;
    if (this.#declined.has(key)) return undefined;
    const primitive = buildOrDecline(this.node, () =>
      this.#cache.get(key, () =>
        this.build({ aDims, bDims: this.b.dims, threads, weights: this.b.data as Int8Array8, weightZeroPoints: this.bZero?.data as Int8Array8 | undefined }, variant),
      ),
    );
    if (!primitive) {
      this.#declined.add(key);
      return undefined;
    }
    this.#last = { dims: [...dims], variant, threads: requestedThreads, outDims, primitive, inline };
    return this.#last;
  }

  /** A's zero points as the addon takes them (1 or M elements of A's type), or undefined when not served. */
  rowZeroPoints(a: Tensor, aZero: Tensor | undefined): { data: Int8Array8 | null; count: number } | undefined {
    if (!aZero) return { data: null, count: 1 };
    const m = a.dims.length >= 2 ? a.dims[a.dims.length - 2] : 1;
    if (aZero.type !== a.type || (aZero.size !== 1 && aZero.size !== m)) return undefined;
    return { data: aZero.data as Int8Array8, count: aZero.size };
  }

  dispose(): void {
    this.#cache.dispose();
  }
}

function createMatMulInteger(binding: NativeBinding, init: KernelInit): Kernel {
  const { node } = init;
  const fallback = matMulIntegerKernel.create(init);
  const mm = new Int8MatMulNode(binding, node, init.constantInputs.get(1)!, init.constantInputs.get(3), (options, variant) => {
    const [inputType, count] = variant.split('/');
    return new binding.MatMulIntegerPrimitive!({ ...options, inputType: inputType as 'uint8' | 'int8', aZeroPointCount: Number(count) });
  });
  return {
    implementation: 'onednn',
    run(ctx: KernelRunContext) {
      const a = ctx.input(0);
      const zeros = is8Bit(a) ? mm.rowZeroPoints(a, ctx.optionalInput(2)) : undefined;
      if (!zeros || !mm.served(a.dims)) return fallback.run(ctx);
      const p = mm.prepare(a.dims, `${a.type}/${zeros.count}`, ctx.threads);
      if (!p) return fallback.run(ctx);
      const y = ctx.output(0, 'int32', p.outDims, { uninitialized: true });
      return runInt8Primitive(node, p.inline, p.primitive, [a.data as Int8Array8, zeros.data, y.data as Int32Array], [y]);
    },
    dispose() {
      mm.dispose();
      fallback.dispose?.();
    },
  };
}

/** QLinearMatMul (bias null, no Relu) and QuantizedMatMul: inputs (a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp[, bias]). */
function createQLinearMatMul(binding: NativeBinding, init: KernelInit, fallbackDef: KernelDef, relu: boolean): Kernel {
  const { node } = init;
  const fallback = fallbackDef.create(init);
  const hasBias = node.opType === 'QuantizedMatMul' && Boolean(node.inputs[8]);
  const mm = new Int8MatMulNode(binding, node, init.constantInputs.get(3)!, init.constantInputs.get(5), (options, variant) => {
    const [inputType, count, outputType] = variant.split('/');
    return new binding.QLinearMatMulPrimitive!({ ...options, inputType: inputType as 'uint8' | 'int8', aZeroPointCount: Number(count), outputType: outputType as 'uint8' | 'int8', relu });
  });
  const multipliers = new MultiplierCache();
  return {
    implementation: 'onednn',
    run(ctx: KernelRunContext) {
      const a = ctx.input(0);
      const [aScale, bScale, yScale, yZero] = [ctx.input(1), ctx.input(4), ctx.input(6), ctx.input(7)];
      const bias = hasBias ? ctx.input(8) : undefined;
      const n = mm.columns;
      const zeros = is8Bit(a) ? mm.rowZeroPoints(a, ctx.optionalInput(2)) : undefined;
      const served =
        zeros !== undefined && mm.served(a.dims) && is8Bit(yZero) && yZero.size === 1 &&
        [aScale, bScale, yScale].every((s) => s.type === 'float32') && aScale.size === 1 && (bScale.size === 1 || bScale.size === n) &&
        (!bias || (bias.type === 'int32' && bias.size === n));
      if (!served) return fallback.run(ctx);
      const p = mm.prepare(a.dims, `${a.type}/${zeros.count}/${yZero.type}`, ctx.threads);
      if (!p) return fallback.run(ctx);
      const y = ctx.output(0, yZero.type, p.outDims, { uninitialized: true });
      const args: [Int8Array8, Int8Array8 | null, Int32Array | null, Float32Array, Int8Array8 | null, Int8Array8] = [
        a.data as Int8Array8,
        zeros.data,
        (bias?.data ?? null) as Int32Array | null,
        multipliers.get(aScale, bScale, yScale, n),
        yZero.data as Int8Array8,
        y.data as Int8Array8,
      ];
      return runInt8Primitive(node, p.inline, p.primitive, args, [y]);
    },
    dispose() {
      mm.dispose();
      fallback.dispose?.();
    },
  };
}

/** DynamicQuantizedMatMul(A float32, B, b_zero_point?, scales, bias?). */
function createDynamicQuantizedMatMul(binding: NativeBinding, init: KernelInit): Kernel {
  const { node } = init;
  const fallback = dynamicQuantizedMatMulKernel.create(init);
  const b = init.constantInputs.get(1)!;
  const hasBias = Boolean(node.inputs[4]);
  const scales = perChannel(init.constantInputs.get(3), b.dims[1]);
  const bias = hasBias ? perChannel(init.constantInputs.get(4), b.dims[1]) : undefined;
  const relu = init.attrs.int('relu', 0) !== 0;
  const mm = new Int8MatMulNode(binding, node, b, init.constantInputs.get(2), (options) => new binding.DynamicQuantizedMatMulPrimitive!({ ...options, hasBias, relu }));
  return {
    implementation: 'onednn',
    run(ctx: KernelRunContext) {
      const a = ctx.input(0);
      if (a.type !== 'float32' || !scales || (hasBias && !bias) || !mm.served(a.dims)) return fallback.run(ctx);
      const p = mm.prepare(a.dims, 'float32', ctx.threads);
      if (!p) return fallback.run(ctx);
      const y = ctx.output(0, 'float32', p.outDims, { uninitialized: true });
      return runInt8Primitive(node, p.inline, p.primitive, [a.data as Float32Array, scales, bias ?? null, y.data as Float32Array], [y]);
    },
    dispose() {
      mm.dispose();
      fallback.dispose?.();
    },
  };
}

function supportsDynamicQuantizedMatMul(node: Node, graph: Graph): true | string {
  const reason = constantBReason(node, graph, 1, 2) ?? (node.inputs[0] ? float32Reason(graph, node.inputs[0], 'A') : 'A is missing');
  if (reason) return reason;
  for (const [i, what] of [[3, 'scales'], [4, 'bias']] as const) {
    const name = node.inputs[i];
    if (name && !graph.initializerOf(name)) return `${what} is not a constant initializer`;
  }
  return true;
}

/** The int8 matmul defs, when the loaded addon has the classes. */
export function nativeInt8MatMulKernels(binding: NativeBinding): KernelDef[] {
  if (!binding.MatMulIntegerPrimitive || !binding.QLinearMatMulPrimitive || !binding.DynamicQuantizedMatMulPrimitive) return [];
  const int8 = ['int8', 'uint8'] as const;
  return [
    {
      ep: 'cpu',
      domain: '',
      opType: 'MatMulInteger',
      sinceVersion: 10,
      typeConstraints: { T1: int8, T2: int8, T3: ['int32'] },
      implementation: 'onednn',
      supports: (node, graph) => constantBReason(node, graph, 1, 3) ?? true,
      create: (init) => createMatMulInteger(binding, init),
    },
    {
      ep: 'cpu',
      domain: '',
      opType: 'QLinearMatMul',
      sinceVersion: 10,
      typeConstraints: { T1: int8, T2: int8, T3: int8 },
      implementation: 'onednn',
      supports: (node, graph) => constantBReason(node, graph, 3, 5) ?? true,
      create: (init) => createQLinearMatMul(binding, init, qLinearMatMulKernel, false),
    },
    {
      ep: 'cpu',
      domain: FUSED_DOMAIN,
      opType: 'QuantizedMatMul',
      sinceVersion: 1,
      implementation: 'onednn',
      supports: (node, graph) => constantBReason(node, graph, 3, 5) ?? true,
      create: (init) => createQLinearMatMul(binding, init, quantizedMatMulKernel, init.attrs.int('relu', 0) !== 0),
    },
    {
      ep: 'cpu',
      domain: FUSED_DOMAIN,
      opType: 'DynamicQuantizedMatMul',
      sinceVersion: 1,
      implementation: 'onednn',
      supports: supportsDynamicQuantizedMatMul,
      create: (init) => createDynamicQuantizedMatMul(binding, init),
    },
  ];
}
