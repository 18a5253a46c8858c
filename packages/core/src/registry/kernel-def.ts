/** Kernel definitions: what an EP can run, for which opsets and dtypes, and how to build it. */
import type { DataType } from '../tensor/data-type.js';
import type { Tensor } from '../tensor/tensor.js';
import type { Graph, Node, ValueType } from '../ir/graph.js';
import type { AttributeReader } from '../ir/attributes.js';

/** A value at run time: a tensor, a sequence of tensors, or `null` for an empty optional. */
export type RuntimeValue = Tensor | Tensor[] | null;

/** What a kernel sees when it is built (once per node, at session creation). */
export interface KernelInit<Options = unknown> {
  node: Node;
  graph: Graph;
  /** The opset version in force for the node's domain. */
  opset: number;
  attrs: AttributeReader;
  /** Static types from shape inference; `undefined` where unknown. */
  inputTypes: readonly (ValueType | undefined)[];
  outputTypes: readonly (ValueType | undefined)[];
  /** Constant inputs (initializers) by input index, for kernels that pre-pack weights. */
  constantInputs: ReadonlyMap<number, Tensor>;
  /** The EP's options. */
  options: Options;
  /** Threads a run of this kernel may use (the session's `intraOpNumThreads`), for primitives built here. */
  threads: number;
}

/** How `KernelRunContext.output` may hand out memory. */
export interface OutputOptions {
  /** The kernel overwrites every element, so arena memory need not be zeroed first. */
  uninitialized?: boolean;
}

/** What a kernel sees on each run. Fresh per run, so concurrent runs never share state. */
export interface KernelRunContext {
  readonly node: Node;
  readonly inputs: readonly (RuntimeValue | undefined)[];
  /** Input `i` as a tensor; throws a clear error when it is absent or not a tensor. */
  input(i: number): Tensor;
  /** Input `i` as a tensor, or undefined when omitted or an empty optional. */
  optionalInput(i: number): Tensor | undefined;
  /** Input `i` as a sequence of tensors. */
  sequenceInput(i: number): Tensor[];
  /**
   * Allocates output `i` (from the run's planned arena when the memory plan has a slot for it).
   * Kernels should allocate outputs through this rather than `new Tensor` so buffers are reused.
   * The data is zeroed, as a fresh typed array is, unless `options.uninitialized` says the kernel
   * writes every element itself (native kernels do: zeroing a large activation first costs a full
   * extra pass over its memory).
   */
  output<T extends DataType>(i: number, type: T, dims: readonly number[], options?: OutputOptions): Tensor<T>;
  /** Runs a subgraph (If/Loop/Scan bodies) with `feeds` by input name; outer-scope values resolve. */
  runSubgraph(graph: Graph, feeds: ReadonlyMap<string, RuntimeValue>): Promise<RuntimeValue[]>;
  /** Threads the kernel may use (`intraOpNumThreads`). */
  readonly threads: number;
}

export type KernelResult = RuntimeValue[];

export interface Kernel {
  run(ctx: KernelRunContext): KernelResult | Promise<KernelResult>;
  /** Which implementation serves this node (e.g. `ts`, `onednn`), reported in the placement. */
  readonly implementation?: string;
  /**
   * Constant inputs (by input index) this kernel copied into a form of its own at creation and will
   * never read again: not their data from `KernelInit.constantInputs`, not through `ctx.input`, not to
   * rebuild for another shape. Once every reader of an initializer has released it, the session drops
   * it (and may detach its buffer), so the weights are not held twice.
   */
  readonly releasedConstants?: readonly number[];
  /**
   * Output `output` may be written into input `input`'s memory: the kernel reads each element of that
   * input before writing the same element of the output, and asks for the output `uninitialized`. The
   * memory planner then gives both one arena slot when nothing reads the input afterwards and both have
   * the same byte size (a residual sum fused into a convolution then needs no copy of Z into Y).
   */
  readonly inPlace?: { readonly input: number; readonly output: number };
  dispose?(): void;
}

/** Why a kernel, op or EP cannot take a node — data, so the placement can show it. */
/** `cost`: the EP could run the node, but `partitioning: 'cost'` found the copies it needs cost more than they save. */
export type DeclineKind = 'op' | 'opset' | 'dtype' | 'attribute' | 'shape' | 'ep-unavailable' | 'partition' | 'cost' | 'other';

export interface DeclineReason {
  kind: DeclineKind;
  message: string;
}

export interface KernelDef<Options = unknown> {
  /** The EP this kernel belongs to. */
  ep: string;
  /** '' for the default ONNX domain. */
  domain: string;
  opType: string;
  /** The schema versions served, inclusive (ONNX Runtime's versioned kernels). */
  sinceVersion: number;
  endVersion?: number;
  /** Type-constraint name (from the op schema, e.g. `T`) → dtypes this kernel serves. Omitted names allow all. */
  typeConstraints?: Readonly<Record<string, readonly DataType[]>>;
  /** Finer checks (attributes, ranks): `true`, or the reason this node is not served. */
  supports?(node: Node, graph: Graph): true | string;
  /** Builds the kernel for one node, once, at session creation. */
  create(init: KernelInit<Options>): Kernel;
  /** Default implementation label when `create`'s kernel states none. */
  implementation?: string;
}

/**
 * Typed helper for kernel files: checks the definition's shape at compile time and returns it as is.
 */
export function defineKernel<Options = unknown>(def: KernelDef<Options>): KernelDef<Options> {
  return def;
}

/** Builds a kernel from a plain function; most CPU kernels need no per-node state. */
export function simpleKernel(run: (ctx: KernelRunContext, init: KernelInit) => KernelResult | Promise<KernelResult>) {
  return (init: KernelInit): Kernel => ({ run: (ctx) => run(ctx, init) });
}
