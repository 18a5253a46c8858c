/** The per-run, per-node context a kernel sees: inputs, output allocation, subgraph calls. */
import { SwitchyardError } from '../errors.js';
import { nodeLabel, type Graph, type Node } from '../ir/graph.js';
import type { KernelRunContext, RuntimeValue } from '../registry/kernel-def.js';
import { BYTES_PER_ELEMENT, viewData, type DataType, type NumericDataType } from '../tensor/data-type.js';
import { Tensor, elementCount } from '../tensor/tensor.js';
import type { ArenaSlot } from './execution-plan.js';

export interface NodeContextInit {
  node: Node;
  inputs: readonly (RuntimeValue | undefined)[];
  arena: ArrayBuffer | undefined;
  slots: ReadonlyMap<string, ArenaSlot>;
  threads: number;
  runSubgraph: (graph: Graph, feeds: ReadonlyMap<string, RuntimeValue>) => Promise<RuntimeValue[]>;
}

function describe(v: RuntimeValue | undefined): string {
  if (v === undefined) return 'missing';
  if (v === null) return 'an empty optional';
  if (Array.isArray(v)) return 'a sequence';
  return `a ${v.type} tensor`;
}

export class NodeRunContext implements KernelRunContext {
  readonly node: Node;
  readonly inputs: readonly (RuntimeValue | undefined)[];
  readonly threads: number;
  /** Outputs handed out from the arena, by index, so aliasing can be detected afterwards. */
  readonly arenaOutputs = new Map<number, Tensor>();
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

  output<T extends DataType>(i: number, type: T, dims: readonly number[]): Tensor<T> {
    const size = elementCount(dims, `${this.node.opType} '${nodeLabel(this.node)}' output ${i}`);
    const slot = this.#init.slots.get(this.node.outputs[i]);
    const arena = this.#init.arena;
    if (slot && arena && type !== 'string' && size * BYTES_PER_ELEMENT[type] === slot.bytes) {
      const data = viewData(type as NumericDataType, arena, slot.offset, size);
      // Arena memory is reused between values: kernels expect zeroed outputs like fresh arrays.
      new Uint8Array(arena, slot.offset, slot.bytes).fill(0);
      const t = new Tensor(type, data as never, dims);
      this.arenaOutputs.set(i, t);
      return t as Tensor<T>;
    }
    return Tensor.zeros(type, dims);
  }

  runSubgraph(graph: Graph, feeds: ReadonlyMap<string, RuntimeValue>): Promise<RuntimeValue[]> {
    return this.#init.runSubgraph(graph, feeds);
  }
}
