/**
 * The executor's numbered form of an execution plan, computed once per plan. Every value a step reads
 * or writes gets a slot index: a run keeps its values in one array (a copy of a template holding the
 * constants) instead of a string-keyed map, and each step carries its input, output and free-after
 * slots as index arrays. A 1,000-node chain of tiny ops spends most of its time on this bookkeeping,
 * so none of it may depend on names or allocate per node.
 */
import { subgraphsOf, type Node } from '../ir/graph.js';
import type { Kernel, RuntimeValue } from '../registry/kernel-def.js';
import type { ExecutionPlan, KernelStep, Step } from './execution-plan.js';
import type { OutputLayout } from './run-context.js';
import { ShapeMemo } from './shape-memo.js';

/** What a step does at run time. `Skip`: a copy whose result no live step reads (see `deadCopies`). */
export const StepKind = { Copy: 0, Kernel: 1, Fused: 2, Skip: 3 } as const;
export type StepKind = (typeof StepKind)[keyof typeof StepKind];

/** The name-independent part, shared by every arena layout of one plan (they share `plan.steps`). */
export interface ProgramShape {
  /** Slot → value name. */
  names: string[];
  slotOf: Map<string, number>;
  /** A run's starting values: the plan's constants in their slots, everything else undefined. */
  template: (RuntimeValue | undefined)[];
  /** Per step, dense so the hot loop reads neighbouring memory: its kind, node and kernel (single nodes). */
  kinds: Uint8Array;
  nodes: Array<Node | undefined>;
  kernels: Array<Kernel | undefined>;
  /** A single node's outer names as seen on its device (its subgraphs look them up). */
  renames: Array<ReadonlyMap<string, string> | undefined>;
  /**
   * Step i's slots in `io`: inputs from `bounds[3i]` (a single node's inputs, -1 where omitted; a
   * partition's in `inputNames` order; a copy's source), outputs from `bounds[3i+1]` (-1 where
   * omitted), then the slots no later step reads, cleared after it, from `bounds[3i+2]` to `bounds[3i+3]`.
   */
  bounds: Int32Array;
  io: Int32Array;
  /** Slots of the graph outputs (as named on the host after copies), in order. */
  outputs: Int32Array;
  /** The steps a run executes, in order: every step but skipped copies. */
  live: Int32Array;
  /** 1 where the executor reads the clock after the step, to yield when its time slice is over (see `clockChecks`). */
  clockAfter: Uint8Array;
  /**
   * Shape arithmetic remembered per input shape (shape-memo.ts), shared by every arena layout of the
   * plan (a dynamic-shape model gets a layout per size set); undefined when the plan has none.
   */
  memo: ShapeMemo | undefined;
}

export interface RunProgram extends ProgramShape {
  /** Where this plan's arena puts each node output, by its position in `io`. */
  layout: OutputLayout;
}

const shapes = new WeakMap<readonly Step[], ProgramShape>();
const programs = new WeakMap<ExecutionPlan, RunProgram>();

/** The program of `plan`, built on first use and cached. */
export function programOf(plan: ExecutionPlan): RunProgram {
  let program = programs.get(plan);
  if (!program) {
    let shape = shapes.get(plan.steps);
    if (!shape) shapes.set(plan.steps, (shape = shapeOf(plan)));
    program = { ...shape, layout: layoutOf(plan, shape) };
    programs.set(plan, program);
  }
  return program;
}

/** Names a step reads for liveness: a unit's inputs include what its subgraphs capture. */
function readsOf(step: Step): readonly string[] {
  if (step.kind === 'copy') return [step.source];
  return step.unit.kind === 'fused' ? fusedInputs(step) : step.inputs;
}

/** compile() was promised inputs in `inputNames` order: initializers the partition carries are not among them. */
function fusedInputs(step: KernelStep): readonly string[] {
  const partition = step.partition;
  return partition ? partition.inputNames.map((n) => step.rename.get(n) ?? n) : step.inputs;
}

function shapeOf(plan: ExecutionPlan): ProgramShape {
  const names: string[] = [];
  const slotOf = new Map<string, number>();
  const slot = (name: string): number => {
    if (!name) return -1;
    let s = slotOf.get(name);
    if (s === undefined) {
      s = names.push(name) - 1;
      slotOf.set(name, s);
    }
    return s;
  };
  const dead = deadCopies(plan);
  const n = plan.steps.length;
  const kinds = new Uint8Array(n);
  const nodes: Array<Node | undefined> = [];
  const kernels: Array<Kernel | undefined> = [];
  const renames: Array<ReadonlyMap<string, string> | undefined> = [];
  const ins: number[][] = [];
  const outs: number[][] = [];
  plan.steps.forEach((step, i) => {
    let node: Node | undefined;
    if (step.kind === 'copy') {
      kinds[i] = dead.has(i) ? StepKind.Skip : StepKind.Copy;
      ins.push([slot(step.source)]);
      outs.push([slot(step.target)]);
    } else if (step.unit.kind === 'fused') {
      kinds[i] = StepKind.Fused;
      ins.push(fusedInputs(step).map(slot));
      outs.push(step.outputs.map(slot));
    } else {
      kinds[i] = StepKind.Kernel;
      node = step.unit.node;
      for (const name of step.inputs) slot(name);
      ins.push(step.inputRefs.map(slot));
      outs.push(node.outputs.map(slot));
    }
    nodes.push(node);
    kernels.push(step.kind === 'unit' ? step.kernel : undefined);
    renames.push(step.kind === 'unit' ? step.rename : undefined);
  });
  const outputs = Int32Array.from(plan.outputs, (o) => slot(o.hostName));
  for (const input of plan.graph.inputs) slot(input.name);

  // Liveness: a value goes after the last live step that reads it; graph outputs stay to the end.
  const lastRead = new Int32Array(names.length).fill(-1);
  plan.steps.forEach((step, i) => {
    if (kinds[i] !== StepKind.Skip) for (const name of readsOf(step)) lastRead[slotOf.get(name)!] = i;
  });
  for (const s of outputs) lastRead[s] = -1;
  const frees: number[][] = plan.steps.map(() => []);
  lastRead.forEach((i, s) => i >= 0 && frees[i].push(s));

  const bounds = new Int32Array(3 * n + 1);
  const io: number[] = [];
  for (let i = 0; i < n; i++) {
    bounds[3 * i] = io.length;
    io.push(...ins[i]);
    bounds[3 * i + 1] = io.length;
    io.push(...outs[i]);
    bounds[3 * i + 2] = io.length;
    io.push(...frees[i]);
  }
  bounds[3 * n] = io.length;
  const template = names.map((name) => plan.constants.get(name));
  const live = Int32Array.from(kinds.keys()).filter((i) => kinds[i] !== StepKind.Skip);
  const ioSlots = Int32Array.from(io);
  const memo = ShapeMemo.of(plan, { bounds, io: ioSlots, names });
  return { names, slotOf, template, kinds, nodes, kernels, renames, bounds, io: ioSlots, outputs, live, clockAfter: clockChecks(plan, kinds), memo };
}

/** Elements a step may touch (every input and output statically known) for it to count as small. */
const SMALL_STEP_ELEMENTS = 4096;
/** Small steps run between two clock reads at most. */
const SMALL_STEPS_PER_CHECK = 16;

/**
 * Where the executor reads the clock. Reading it costs about as much as running a tiny kernel (tens
 * of ns on a VM), so after a short run of small steps (single host kernels on a few thousand known
 * elements, no subgraphs) it reads once for all of them; after any other step (a copy, a partition,
 * a big or unknown-size node) it reads every time, so a long step is still followed by a yield.
 */
function clockChecks(plan: ExecutionPlan, kinds: Uint8Array): Uint8Array {
  const graph = plan.graph;
  const small = (name: string): boolean => {
    if (!name) return true;
    const t = graph.typeOf(name);
    if (t?.kind !== 'tensor' || !t.shape) return false;
    let n = 1;
    for (const d of t.shape) n *= typeof d === 'number' ? d : Infinity;
    return n <= SMALL_STEP_ELEMENTS;
  };
  const checks = new Uint8Array(kinds.length);
  let run = 0;
  plan.steps.forEach((step, i) => {
    if (kinds[i] === StepKind.Skip) return;
    const node = step.kind === 'unit' && step.unit.kind === 'single' ? step.unit.node : undefined;
    const isSmall = node !== undefined && subgraphsOf(node).length === 0 && node.inputs.every(small) && node.outputs.every(small);
    run = isSmall ? run + 1 : SMALL_STEPS_PER_CHECK;
    if (run >= SMALL_STEPS_PER_CHECK) {
      checks[i] = 1;
      run = 0;
    }
  });
  return checks;
}

/**
 * Copies that feed nothing: a fused partition carries the initializers it uses, so the copies of
 * them that copy insertion lays out before it are never read. Running them would cost a device
 * allocation (or a staged tensor) and an await per initializer per run.
 */
function deadCopies(plan: ExecutionPlan): Set<number> {
  const needed = new Set(plan.outputs.map((o) => o.hostName));
  const dead = new Set<number>();
  for (let i = plan.steps.length - 1; i >= 0; i--) {
    const step = plan.steps[i];
    if (step.kind === 'copy' && !needed.has(step.target)) {
      dead.add(i);
      continue;
    }
    for (const n of readsOf(step)) needed.add(n);
  }
  return dead;
}

function layoutOf(plan: ExecutionPlan, shape: ProgramShape): OutputLayout {
  const offset = new Float64Array(shape.io.length).fill(-1);
  const bytes = new Float64Array(shape.io.length);
  const observed = plan.observeSizes ? new Float64Array(shape.io.length).fill(-1) : undefined;
  const layout = { offset, bytes, frozenDims: [], observed };
  if (plan.arenaSlots.size === 0) return layout;
  plan.steps.forEach((step, i) => {
    if (step.kind === 'copy' || step.unit.kind !== 'single') return;
    step.unit.node.outputs.forEach((name, k) => {
      const slot = name ? plan.arenaSlots.get(name) : undefined;
      if (!slot) return;
      offset[shape.bounds[3 * i + 1] + k] = slot.offset;
      bytes[shape.bounds[3 * i + 1] + k] = slot.bytes;
    });
  });
  return layout;
}
