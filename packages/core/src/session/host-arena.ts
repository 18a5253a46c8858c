/**
 * Lays out the host arena of a plan with the memory planner: node outputs of known static size made
 * by host kernels share one buffer per run wherever their lifetimes do not overlap.
 */
import { Graph, type ValueType } from '../ir/graph.js';
import { planMemory, type MemoryPlan } from '../memory/index.js';
import { deviceOf } from '../partition/copy-insertion.js';
import { BYTES_PER_ELEMENT } from '../tensor/data-type.js';
import type { ArenaSlot, ExecutionPlan } from './execution-plan.js';

export interface HostArena {
  arenaSlots: Map<string, ArenaSlot>;
  arenaBytes: number;
  memoryPlan: MemoryPlan;
  /** Host outputs that got no slot for want of a size (neither `typeOf` nor `observedBytes` gave one). */
  unsized: number;
}

/**
 * `typeOf` may state more than the graph does (symbolic dims bound to a run's sizes: see dynamic-arena.ts).
 * Values over `maxValueBytes` get no slot: the kernel's own allocation refuses them with a clear error
 * (SessionOptions.maxTensorBytes) instead of the arena reserving them.
 */
export function planHostArena(
  plan: ExecutionPlan,
  maxValueBytes: number,
  typeOf: (name: string) => ValueType | undefined = (name) => plan.graph.typeOf(name),
  observedBytes: (name: string) => number | undefined = () => undefined,
): HostArena {
  const graph = plan.graph;
  const hostProduced = new Set<string>();
  const inPlace: Array<{ input: string; output: string }> = [];
  const order = [];
  for (const step of plan.steps) {
    if (step.kind === 'copy') continue;
    const unit = step.unit;
    const nodes = unit.kind === 'single' ? [unit.node] : unit.nodes;
    order.push(...nodes);
    // Only single host kernels allocate through ctx.output; compiled and device units bring their own memory.
    if (unit.kind === 'single' && deviceOf(unit.ep) === 'cpu') {
      for (const o of unit.node.outputs) if (o) hostProduced.add(o);
      const shared = step.kernel?.inPlace;
      // A renamed input is a copy made for this step, not the value the graph names.
      const input = shared ? unit.node.inputs[shared.input] : undefined;
      const output = shared ? unit.node.outputs[shared.output] : undefined;
      if (input && output && step.inputRefs?.[shared!.input] === input) inPlace.push({ input, output });
    }
  }
  const inExecutionOrder = new Graph({
    name: graph.name,
    nodes: order,
    inputs: graph.inputs,
    outputs: graph.outputs,
    initializers: graph.initializers,
    valueInfo: graph.valueInfo,
    opsetImports: graph.opsetImports,
    parent: graph.parent,
  });
  const unsized = new Set<string>();
  const memoryPlan = planMemory(inExecutionOrder, {
    sizeOf: (name) => {
      if (!hostProduced.has(name)) return undefined;
      const t = typeOf(name);
      if (t?.kind === 'tensor' && t.elemType === 'string') return undefined;
      let bytes: number | undefined;
      if (t?.kind === 'tensor' && t.shape && t.shape.every((d) => typeof d === 'number')) {
        bytes = (t.shape as number[]).reduce((a, b) => a * b, 1) * BYTES_PER_ELEMENT[t.elemType];
      } else {
        bytes = observedBytes(name);
        if (bytes === undefined) unsized.add(name);
      }
      return bytes !== undefined && Number.isSafeInteger(bytes) && bytes >= 0 && bytes <= maxValueBytes ? bytes : undefined;
    },
    deviceOf: (name) => (hostProduced.has(name) ? 'cpu' : 'other'),
    inPlace,
  });
  const host = memoryPlan.devices.get('cpu');
  return { arenaSlots: host?.slots ?? new Map(), arenaBytes: host?.arenaBytes ?? 0, memoryPlan, unsized: unsized.size };
}
