/** The per-run, per-node context a kernel sees: inputs, output allocation, subgraph calls. */
import { SwitchyardError } from '../errors.js';
import { nodeLabel, type Graph, type Node } from '../ir/graph.js';
import type { KernelRunContext, OutputOptions, RuntimeValue } from '../registry/kernel-def.js';
import { BYTES_PER_ELEMENT, allocateData, viewData, type DataType, type DataTypeMap, type NumericDataType } from '../tensor/data-type.js';
import { MAX_TENSOR_ELEMENTS, Tensor, elementCount } from '../tensor/tensor.js';
import type { ArenaSlot, ExecutionPlan } from './execution-plan.js';
import { runSubgraphOf, type Lookup, type RunEnvironment } from './executor.js';

export interface NodeContextInit {
  node: Node;
  inputs: readonly (RuntimeValue | undefined)[];
  arena: ArrayBuffer | undefined;
  slots: ReadonlyMap<string, ArenaSlot>;
  threads: number;
  /** How subgraphs run: a function, or the plan pieces the executor resolves them with (no closure per node). */
  runSubgraph?: (graph: Graph, feeds: ReadonlyMap<string, RuntimeValue>) => Promise<RuntimeValue[]>;
  plan?: ExecutionPlan;
  env?: RunEnvironment;
  lookup?: Lookup;
  rename?: ReadonlyMap<string, string>;
}

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

export class NodeRunContext implements KernelRunContext {
  readonly node: Node;
  readonly inputs: readonly (RuntimeValue | undefined)[];
  readonly threads: number;
  /** Outputs handed out from the arena, by index, so aliasing can be detected afterwards (made on first use). */
  #arenaOutputs: Array<Tensor | undefined> | undefined;

  arenaOutput(i: number): Tensor | undefined {
    return this.#arenaOutputs?.[i];
  }
  readonly #init: NodeContextInit;

  constructor(init: NodeContextInit) {
    this.#init = init;
    this.node = init.node;
    this.inputs = init.inputs;
    this.threads = init.threads;
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
    const slot = this.#init.slots.get(this.node.outputs[i]);
    const arena = this.#init.arena;
    if (slot && arena && type !== 'string' && size * BYTES_PER_ELEMENT[type] === slot.bytes) {
      const data = viewData(type as NumericDataType, arena, slot.offset, size) as unknown as DataTypeMap[T];
      // Arena memory is reused between values: kernels expect zeroed outputs like fresh arrays.
      if (!options?.uninitialized) new Uint8Array(arena, slot.offset, slot.bytes).fill(0);
      const t = Tensor.trusted(type, data, dims, size);
      (this.#arenaOutputs ??= [])[i] = t;
      return t as Tensor<T>;
    }
    return Tensor.trusted(type, allocateData(type, size), dims, size);
  }

  runSubgraph(graph: Graph, feeds: ReadonlyMap<string, RuntimeValue>): Promise<RuntimeValue[]> {
    const init = this.#init;
    if (init.runSubgraph) return init.runSubgraph(graph, feeds);
    if (!init.plan || !init.env || !init.lookup) {
      return Promise.reject(new SwitchyardError('UNSUPPORTED', `${nodeLabel(this.node)}: subgraphs cannot run here`));
    }
    const { lookup, rename } = init;
    return runSubgraphOf(init.plan, init.env, graph, feeds, (name) => lookup(rename?.get(name) ?? name), nodeLabel(this.node));
  }
}
