/** The per-run, per-node context a kernel sees: inputs, output allocation, subgraph calls. */
import { SwitchyardError } from '../errors.js';
import { nodeLabel, type Graph, type Node } from '../ir/graph.js';
import type { KernelRunContext, OutputOptions, RuntimeValue } from '../registry/kernel-def.js';
import { BYTES_PER_ELEMENT, allocateData, viewData, type DataType, type DataTypeMap, type NumericDataType } from '../tensor/data-type.js';
import { MAX_TENSOR_ELEMENTS, Tensor, elementCount } from '../tensor/tensor.js';
import { DEFAULT_MAX_TENSOR_BYTES } from './session-options.js';

/** Runs a control-flow node's subgraph; outer-scope names resolve through the node's run, renamed as its step says. */
export interface SubgraphRunner {
  runSubgraph(graph: Graph, feeds: ReadonlyMap<string, RuntimeValue>, node: Node, rename: ReadonlyMap<string, string> | undefined): Promise<RuntimeValue[]>;
}

/**
 * Where outputs go in a run's arena: for output i of a node whose outputs start at `first`, the byte
 * offset `offset[first + i]` (-1: no slot; the output gets fresh memory) and size `bytes[first + i]`.
 */
export interface OutputLayout {
  readonly offset: Float64Array;
  readonly bytes: Float64Array;
  /**
   * The frozen dims last passed for each output. Kernels pass the same frozen array run after run (a
   * cached broadcast plan's, an input's): Object.isFrozen is asked once, not per output per run.
   */
  readonly frozenDims: Array<readonly number[] | undefined>;
  /**
   * Only for a layout that lacks sizes (ExecutionPlan.observeSizes): the bytes of each output last
   * allocated outside the arena, by the same positions (-1: none yet).
   */
  readonly observed?: Float64Array;
}

/**
 * Typed arrays over an arena's slots, kept for later runs on the same arena, by output position: the
 * array, and the element type and count it was made for (dense arrays: no wrapper object per view).
 */
export interface ArenaViews {
  readonly data: Array<DataTypeMap[DataType] | undefined>;
  readonly type: Array<DataType | undefined>;
  readonly size: number[];
}

/** Where the outputs of one run go; shared by every node context of the run. */
export interface RunOutputs {
  readonly layout: OutputLayout;
  /** The run's arena; undefined: every output gets fresh memory. */
  readonly arena: ArrayBuffer | undefined;
  /** Views over `arena` made by earlier runs: reused while type and size match. */
  readonly views: ArenaViews;
  /** Largest output (bytes) a kernel may ask for (SessionOptions.maxTensorBytes). */
  readonly maxTensorBytes: number;
  /** Recycled host memory for large outputs outside the arena (ExecutionProvider.hostBuffer). */
  readonly hostBuffer?: (bytes: number, zeroed: boolean) => ArrayBuffer | undefined;
}

/**
 * Outputs at least this big that miss the arena take an EP's recycled host memory when one offers it.
 * Smaller ones stay ordinary typed arrays: V8 allocates those cheaply, and a finalizer per buffer
 * would cost more than it saves.
 */
export const HOST_BUFFER_MIN_BYTES = 64 * 1024;

function describe(v: RuntimeValue | undefined): string {
  if (v === undefined) return 'missing';
  if (v === null) return 'an empty optional';
  if (Array.isArray(v)) return 'a sequence';
  return `a ${v.type} tensor`;
}

/** The element count of ordinary dims (small non-negative integers), or undefined for elementCount to judge. */
function plainCount(dims: readonly number[]): number | undefined {
  let n = 1;
  for (let i = 0; i < dims.length; i++) {
    const d = dims[i];
    if (!(d >= 0 && d <= 0x7fffffff && (d | 0) === d)) return undefined;
    n *= d;
    if (n > MAX_TENSOR_ELEMENTS) return undefined;
  }
  return n;
}

/**
 * Made for every node of every run: plain positional fields (no init object, no closures) keep it
 * one small allocation.
 */
export class NodeRunContext implements KernelRunContext {
  /** Output 0 (others, rarer, in the array) when handed out from the arena, so aliasing can be detected afterwards. */
  #arenaOutput0: Tensor | undefined = undefined;
  #arenaOutputs: Array<Tensor | undefined> | undefined = undefined;

  /**
   * @param outputs where the run's outputs go, this node's `count` outputs from index `first` (see
   *   OutputLayout); undefined: each output gets fresh memory
   * @param subgraphs runs subgraphs for control-flow nodes (undefined: this context cannot)
   * @param rename outer names as the node's step sees them on its device, for subgraph lookups
   */
  constructor(
    readonly node: Node,
    readonly inputs: readonly (RuntimeValue | undefined)[],
    readonly threads: number,
    private readonly outputs: RunOutputs | undefined,
    private readonly first: number,
    private readonly count: number,
    private readonly subgraphs?: SubgraphRunner,
    private readonly rename?: ReadonlyMap<string, string>,
  ) {}

  arenaOutput(i: number): Tensor | undefined {
    return i === 0 ? this.#arenaOutput0 : this.#arenaOutputs?.[i];
  }

  input(i: number): Tensor {
    const v = this.inputs[i];
    if (v instanceof Tensor) return v;
    throw new SwitchyardError('RUNTIME', `${this.node.opType} '${nodeLabel(this.node)}': input ${i} is ${describe(v)}, expected a tensor`);
  }

  optionalInput(i: number): Tensor | undefined {
    const v = this.inputs[i];
    if (v === undefined || v === null) return undefined;
    if (v instanceof Tensor) return v;
    throw new SwitchyardError('RUNTIME', `${this.node.opType} '${nodeLabel(this.node)}': input ${i} is ${describe(v)}, expected a tensor`);
  }

  sequenceInput(i: number): Tensor[] {
    const v = this.inputs[i];
    if (Array.isArray(v)) return v;
    throw new SwitchyardError('RUNTIME', `${this.node.opType} '${nodeLabel(this.node)}': input ${i} is ${describe(v)}, expected a sequence`);
  }

  output<T extends DataType>(i: number, type: T, dims: readonly number[], options?: OutputOptions): Tensor<T> {
    // The label is only built when the dims are bad: this runs for every output of every node.
    const size = plainCount(dims) ?? elementCount(dims, `${this.node.opType} '${nodeLabel(this.node)}' output ${i}`);
    const out = this.outputs;
    const limit = out === undefined ? DEFAULT_MAX_TENSOR_BYTES : out.maxTensorBytes;
    if (size * (BYTES_PER_ELEMENT[type] || 8) > limit) this.#refuseSize(i, type, dims, limit);
    if (out === undefined || i >= this.count) return Tensor.trusted(type, allocateData(type, size), dims, size);
    const at = this.first + i;
    const layout = out.layout;
    let frozen = layout.frozenDims[at] === dims;
    if (!frozen && Object.isFrozen(dims)) {
      layout.frozenDims[at] = dims;
      frozen = true;
    }
    const arena = out.arena;
    const offset = layout.offset[at];
    const bytes = layout.bytes[at];
    if (arena && offset >= 0 && type !== 'string' && size * BYTES_PER_ELEMENT[type] === bytes) {
      const views = out.views;
      let data = views.data[at];
      if (data === undefined || views.type[at] !== type || views.size[at] !== size) {
        data = viewData(type as NumericDataType, arena, offset, size);
        views.data[at] = data;
        views.type[at] = type;
        views.size[at] = size;
      }
      // Arena memory is reused between values: kernels expect zeroed outputs like fresh arrays.
      if (!options?.uninitialized) new Uint8Array(arena, offset, bytes).fill(0);
      const t = Tensor.trusted(type, data as DataTypeMap[T], dims, size, frozen);
      if (i === 0) this.#arenaOutput0 = t;
      else (this.#arenaOutputs ??= [])[i] = t;
      return t;
    }
    if (layout.observed !== undefined && type !== 'string') layout.observed[at] = size * BYTES_PER_ELEMENT[type];
    const outBytes = type === 'string' ? 0 : size * BYTES_PER_ELEMENT[type];
    if (outBytes >= HOST_BUFFER_MIN_BYTES && out.hostBuffer) {
      const buffer = out.hostBuffer(outBytes, !options?.uninitialized);
      if (buffer) return Tensor.trusted(type, viewData(type as NumericDataType, buffer, 0, size) as DataTypeMap[T], dims, size, frozen);
    }
    return Tensor.trusted(type, allocateData(type, size), dims, size, frozen);
  }

  #refuseSize(i: number, type: DataType, dims: readonly number[], limit: number): never {
    const bytes = elementCount(dims) * (BYTES_PER_ELEMENT[type] || 8);
    throw new SwitchyardError(
      'OUT_OF_MEMORY',
      `${this.node.opType} '${nodeLabel(this.node)}': output ${i} (${type}[${dims.join(', ')}]) would take ${bytes} bytes, over maxTensorBytes (${limit})`,
    );
  }

  runSubgraph(graph: Graph, feeds: ReadonlyMap<string, RuntimeValue>): Promise<RuntimeValue[]> {
    if (!this.subgraphs) return Promise.reject(new SwitchyardError('UNSUPPORTED', `${nodeLabel(this.node)}: subgraphs cannot run here`));
    return this.subgraphs.runSubgraph(graph, feeds, this.node, this.rename);
  }
}
