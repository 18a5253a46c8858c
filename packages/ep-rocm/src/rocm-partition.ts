/**
 * A compiled GPU partition: one native ExecutionPlan per concrete input shape (built on first use,
 * kept), run in one native call per partition run. Runs of one partition are serialized: a plan
 * owns its arena, so two runs at once would share intermediates.
 *
 * Device memory: each plan's arena is charged to the EP's budget (gpuMemLimit) before it is
 * allocated, and the library workspaces its build took right after; a plan's charges go when it does.
 * A partition whose input shapes are all static reserves its plan's memory when it is compiled, so a
 * session that cannot fit is refused at creation, not at its first run.
 */
import { Graph, SwitchyardError, Tensor, dataTypeFromOnnx, elementCount, inferShapes, type DataType, type KnownValue, type NumericDataType, type CompiledPartition, type FusedPartition, type Node, type RuntimeValue, type ValueInfo } from '@switchyard/core';
import type { DeviceBuffer } from '@switchyard/native-hip';
import type { DeviceCharge } from './device-budget.js';
import { allocateForCopy, type RocmDeviceMemory } from './device-memory.js';
import { runPlan, type NativeExecutionPlan, type PlanBinding } from './plan/native-plan.js';
import { foldKnownValues } from './plan/host-values.js';
import { decidedIfs, inlineDecided } from './plan/if-branches.js';
import { buildPlanDescription, type PlanDescription } from './plan/plan-description.js';
import { NO_LIBRARY_WORKSPACES, planFootprint, type LibraryWorkspaces, type PlanFootprint } from './plan/plan-footprint.js';
import type { WeightSplitter } from './plan/split-tf32.js';
import { MAX_SHAPE_INPUT_ELEMENTS, SHAPE_INPUT_TYPES, shapeDecidingInputs } from './plan/shape-inputs.js';
import type { ResolvedRocmOptions } from './rocm-options.js';

/**
 * How shape inference sees a node. com.microsoft FusedConv (which the CPU EP's fusion pass may
 * leave in a GPU partition) has no rule in core's shape inference; its output is shaped exactly as
 * the Conv it came from, so inference reads it as that Conv (the plan still encodes the real node).
 */
function forInference(node: Node): Node {
  if (node.opType !== 'FusedConv' || node.domain !== 'com.microsoft') return node;
  const attributes = new Map([...node.attributes].filter(([k]) => k !== 'activation' && k !== 'activation_params'));
  return { ...node, opType: 'Conv', domain: '', inputs: node.inputs.slice(0, 3), attributes };
}

/** A partition's graph at concrete input shapes, and the nodes its plan encodes. */
export interface ConcretePartition {
  graph: Graph;
  /** The partition's nodes, with each If whose condition is known replaced by its taken branch. */
  nodes: Node[];
}

/**
 * The partition's graph with concrete input shapes, shapes re-inferred throughout. The shape
 * arithmetic inference computes (plan/host-values.ts) becomes initializers of this graph (its own
 * map: the partition's stays as it was), so the plan emits no step for it. An If whose condition
 * inference computed gives way to the branch it takes (plan/if-branches.ts), inferred again.
 */
export function concretePartition(partition: FusedPartition, inputs: ReadonlyArray<{ readonly type: DataType; readonly dims: readonly number[] }>, knownInputs?: ReadonlyMap<string, Tensor>): ConcretePartition {
  const src = partition.graph;
  const inputInfo: ValueInfo[] = partition.inputNames.map((name, i) => ({ name, type: { kind: 'tensor', elemType: inputs[i].type, shape: [...inputs[i].dims] } }));
  const outputs: ValueInfo[] = src.outputs.map((o) => ({ name: o.name, type: o.type?.kind === 'tensor' ? { kind: 'tensor', elemType: o.type.elemType } : o.type }));
  const infer = (nodes: readonly Node[], extra: ReadonlyMap<string, Tensor>) => {
    const initializers = new Map([...src.initializers, ...extra]);
    const graph = new Graph({ name: src.name, nodes: nodes.map(forInference), inputs: inputInfo, outputs, initializers, opsetImports: src.opsetImports });
    const known = new Map<string, KnownValue & { values: number[] }>();
    inferShapes(graph, { onKnownValue: (name, value) => known.set(name, value), knownInputs });
    return { graph, known, initializers };
  };
  let nodes = partition.nodes;
  let pass = infer(nodes, new Map());
  const decided = decidedIfs(nodes, pass.known);
  if (decided.size > 0) {
    const inlined = inlineDecided(nodes, decided);
    nodes = inlined.nodes;
    pass = infer(nodes, inlined.initializers);
  }
  for (const [name, tensor] of foldKnownValues(pass.graph, nodes, pass.known)) pass.initializers.set(name, tensor);
  return { graph: pass.graph, nodes };
}

/** concretePartition's graph (its nodes are the partition's when no If was decided). */
export function concreteGraph(partition: FusedPartition, inputs: ReadonlyArray<{ readonly type: DataType; readonly dims: readonly number[] }>, knownInputs?: ReadonlyMap<string, Tensor>): Graph {
  return concretePartition(partition, inputs, knownInputs).graph;
}

export interface PartitionStats {
  /** Plans built (one per distinct input shape). */
  plans: number;
  /** Plans freed to stay within maxPlansPerPartition (least recently used first). */
  plansFreed: number;
  runs: number;
  lastDescription?: PlanDescription;
  lastPlan?: NativeExecutionPlan;
  /** Why a float16 plan runs its convolutions NCHW although NHWC was asked for. */
  layoutNote?: string;
  /** The last plan's step notes, by step (NativeExecutionPlan.stepNotes: a Conv's chosen form and timings). */
  lastStepNotes?: string[];
  /** The last plan's device memory: its footprint, with `libraryBytes` as its build measured it where the build can tell. */
  lastFootprint?: PlanFootprint;
}

interface PlanEntry {
  plan: NativeExecutionPlan;
  outputs: Array<{ type: DataType; dims: number[] }>;
  /** Its arena and library workspaces in the EP's budget. */
  charges: DeviceCharge[];
}

interface BuiltPlan {
  plan: NativeExecutionPlan;
  charges: DeviceCharge[];
  /** With `libraryBytes` as the build measured it. */
  footprint: PlanFootprint;
}

type InputShape = { readonly type: DataType; readonly dims: readonly number[] };

/** One plan's key: its input types and shapes, and the values of the inputs that decide shapes. */
function planKey(inputs: readonly InputShape[], knownInputs: ReadonlyMap<string, Tensor>): string {
  const values = [...knownInputs].map(([name, t]) => `${name}=${Array.from(t.data as ArrayLike<number | bigint>).join(',')}`);
  return [...inputs.map((t) => `${t.type}[${t.dims.join(',')}]`), ...values].join(';');
}

/** The partition's input shapes when they are all static in its graph (a symbolic dim leaves them to the run). */
function staticInputShapes(partition: FusedPartition): InputShape[] | undefined {
  const shapes: InputShape[] = [];
  for (const name of partition.inputNames) {
    const t = partition.graph.typeOf(name);
    if (t?.kind !== 'tensor' || !t.shape || !t.shape.every((d): d is number => typeof d === 'number')) return undefined;
    shapes.push({ type: t.elemType, dims: t.shape });
  }
  return shapes;
}

/** Sizes the TF32 split of a weight without computing it (memory estimates need only its length). */
const sizeOnlySplit: WeightSplitter = (w) => new Float32Array(w.length * 3);

/**
 * Output placement: an output the session copies to the host right after the run (a graph output,
 * or a value a CPU node reads) is best written by the plan straight into host memory, inside its one
 * native call -- not into a device buffer that a second, synchronous copy then downloads (for BERT
 * at batch 32 that hop cost ~4 ms of its 12.6 MB output). Beyond the graph outputs the session
 * keeps on the device (`keptOnDevice`, which start there), the partition cannot see where its outputs
 * go, so it learns it per output: host first; a host result that a device consumer uploads again
 * turns that output to the device for later runs, and a device output that gets downloaded turns it
 * back.
 */
type OutputPlacement = 'host' | 'device';

export class RocmPartition implements CompiledPartition {
  readonly stats: PartitionStats = { plans: 0, plansFreed: 0, runs: 0 };
  /** Where each output is written (see `OutputPlacement`). */
  readonly outputPlacement: OutputPlacement[];
  readonly #plans = new Map<string, PlanEntry>();
  #queue: Promise<unknown> = Promise.resolve();
  #disposed = false;

  constructor(
    readonly partition: FusedPartition,
    private readonly binding: PlanBinding,
    private readonly memory: RocmDeviceMemory,
    private readonly options: ResolvedRocmOptions,
    /** The device multiplies TF32 on tensor cores through cuBLAS (NVIDIA sm_80+): 3xTF32 products pay off. */
    private readonly tf32TensorCores = false,
    /** What a plan stream's libraries take from the default arena (plan-footprint.ts), before a build measures it. */
    private readonly libraries: LibraryWorkspaces = NO_LIBRARY_WORKSPACES,
  ) {
    // Outputs the session hands back on the device start there; the rest start on the host.
    this.outputPlacement = partition.outputNames.map((name) => (partition.keptOnDevice?.includes(name) ? 'device' : 'host'));
  }

  run(values: RuntimeValue[]): Promise<RuntimeValue[]> {
    const next = this.#queue.then(() => this.#run(values));
    this.#queue = next.catch(() => undefined);
    return next;
  }

  #shapeInputs?: number[];
  #shapeInputIndexes(): number[] {
    this.#shapeInputs ??= shapeDecidingInputs(this.partition);
    return this.#shapeInputs;
  }

  /**
   * The contents of the small integer inputs that decide shapes inside the partition (see
   * shape-inputs.ts), read back from the device when another partition computed them: they join the
   * plan's key, so one plan serves one set of them.
   */
  async #knownShapeInputs(inputs: readonly Tensor[]): Promise<Map<string, Tensor>> {
    const known = new Map<string, Tensor>();
    for (const i of this.#shapeInputIndexes()) {
      const t = inputs[i];
      if (!SHAPE_INPUT_TYPES.has(t.type) || t.size > MAX_SHAPE_INPUT_ELEMENTS) continue;
      const host = t.location === 'cpu' ? t : new Tensor(t.type, (await t.getData()) as BigInt64Array | Int32Array | Uint8Array, t.dims);
      known.set(this.partition.inputNames[i], host);
    }
    return known;
  }

  /** The first plan's description and memory, reserved at compile time (`admit`) until that plan is built. */
  #admitted?: { key: string; description: PlanDescription; charges: DeviceCharge[] };

  /**
   * Reserves the device memory of the plan a partition with static input shapes will build on its
   * first run, so a session that does not fit in gpuMemLimit is refused when it is created. Throws the
   * budget's OUT_OF_MEMORY error; a partition whose plan cannot be described yet (a symbolic dim,
   * shape inputs computed elsewhere) is left to its first run.
   */
  admit(): void {
    const shapes = staticInputShapes(this.partition);
    if (!shapes || this.#shapeInputIndexes().length > 0) return;
    let description: PlanDescription;
    try {
      description = this.#describe(concretePartition(this.partition, shapes), this.#nhwcConv());
    } catch {
      return; // the first run builds it and reports why it cannot
    }
    const footprint = planFootprint(description, this.libraries);
    const what = `the plan of '${this.partition.name}' (${shapes.map((t) => `${t.type}[${t.dims.join(', ')}]`).join(', ')})`;
    const arena = this.memory.budget.charge('plans', footprint.arenaBytes, what);
    try {
      const library = this.memory.budget.charge('libraries', footprint.libraryBytes, `the library workspaces of ${what}`);
      this.#admitted = { key: planKey(shapes, new Map()), description, charges: [arena, library] };
    } catch (error) {
      arena.release();
      throw error;
    }
  }

  /**
   * This partition's device memory for the given input shapes (memory estimates: describes the plan
   * and allocates nothing), or undefined when the plan cannot be described from shapes alone.
   */
  estimate(shapes: readonly InputShape[]): PlanFootprint | undefined {
    if (this.#shapeInputIndexes().length > 0) return undefined;
    try {
      return planFootprint(this.#describe(concretePartition(this.partition, shapes), this.#nhwcConv(), sizeOnlySplit), this.libraries);
    } catch {
      return undefined;
    }
  }

  #describe({ graph, nodes }: ConcretePartition, nhwcConv: 'always' | 'auto' | false, splitWeights?: WeightSplitter): PlanDescription {
    return buildPlanDescription(graph, nodes, this.partition.inputNames, this.partition.outputNames, {
      deviceId: this.options.deviceId,
      captureGraph: this.options.enableHipGraph,
      tuning: !this.options.tunableOpEnable ? 0 : this.options.tunableOpTuningEnable ? 2 : 1,
      fp16: this.options.fp16,
      convAlgoSearch: this.options.convAlgoSearch,
      nhwcConv,
      geluFold: this.#stepOps().has('BiasActivation'),
      residualNormFold: this.#stepOps().has('LayerNormalizationResidual'),
      matmulBiasFold: this.#stepOps().has('MatMulBias'),
      attentionFold: this.#stepOps().has('MatMulStrided') && this.#stepOps().has('MatMulBias'),
      // float32 only: in float16 plans the head products' tensor-core GEMMs beat the fused kernel
      // (H200, BERT-base s128, one run: float16 0.564 ms of GPU time unfused vs 0.617 fused;
      // float32 1.342 unfused vs 1.229 fused). SWITCHYARD_ATTENTION_FUSE=0 turns it off (A/B runs).
      attentionFuse: this.#stepOps().has('Attention') && !this.options.fp16 && process.env.SWITCHYARD_ATTENTION_FUSE !== '0',
      splitTf32: this.options.fp32MatmulPrecision === 'high' && this.tf32TensorCores && this.#stepOps().has('MatMulSplitTf32'),
      splitWeights: splitWeights ?? this.binding.planSplitTf32?.bind(this.binding),
    });
  }

  /** The device's free memory as the driver reports it, where this build can ask. */
  #deviceFree(): number | undefined {
    return this.binding.planDeviceMemory?.(this.options.deviceId).free;
  }

  /** The default arena's figures (library workspaces), where this build reports them. */
  #libraryArena(): { inUse: number; reserved: number } | undefined {
    return this.binding.defaultArenaStats?.(this.options.deviceId);
  }

  /**
   * Builds a plan from `description` with its arena charged first; then charges what the build took
   * for the libraries' workspaces (measured on the default arena, else the footprint's expected figure),
   * disposing the plan when that passes the limit.
   */
  #build(description: PlanDescription, what: string): BuiltPlan {
    const freeBefore = this.#deviceFree();
    const before = this.#libraryArena();
    // The libraries' expected figure only serves where the build cannot be measured.
    const footprint = planFootprint(description, before ? undefined : this.libraries);
    const arena = this.memory.budget.charge('plans', footprint.arenaBytes, what);
    let plan: NativeExecutionPlan;
    try {
      plan = new this.binding.ExecutionPlan(description);
    } catch (error) {
      arena.release();
      throw error;
    }
    const after = this.#libraryArena();
    const freeAfter = this.#deviceFree();
    // What the build took from the default arena's cache or from the device, whichever is more; and
    // at least what the driver saw go besides the plan's arena: a new plan stream's cuDNN/cuBLAS
    // handles keep device state of their own outside any arena (72-99 MiB a stream on the H200), and a
    // first build loads the libraries' kernels. Other threads allocating at the same moment can only
    // make this count more, never less.
    const arenaTook = before && after ? Math.max(0, after.inUse - before.inUse, after.reserved - before.reserved) : footprint.libraryBytes;
    const driverTook = freeBefore !== undefined && freeAfter !== undefined ? Math.max(0, freeBefore - freeAfter - roundToDriverPage(footprint.arenaBytes)) : 0;
    const took = Math.max(arenaTook, driverTook);
    try {
      const library = this.memory.budget.charge('libraries', took, `the library workspace taken for ${what}`);
      return { plan, charges: [arena, library], footprint: { ...footprint, libraryBytes: took } };
    } catch (error) {
      plan.dispose();
      arena.release();
      throw error;
    }
  }

  #planFor(inputs: readonly Tensor[], knownInputs: ReadonlyMap<string, Tensor>): PlanEntry {
    const key = planKey(inputs, knownInputs);
    const known = this.#plans.get(key);
    if (known) {
      // Most recently used last: the map's first entry is the one to free when the cache is full.
      this.#plans.delete(key);
      this.#plans.set(key, known);
      return known;
    }
    const admitted = this.#admitted?.key === key ? this.#admitted : undefined;
    const graph = admitted ? undefined : concretePartition(this.partition, inputs, knownInputs);
    let description = admitted?.description ?? this.#describe(graph!, this.#nhwcConv());
    // The compile-time reservation becomes this plan's charges (the plan is what it reserved for).
    this.#releaseAdmitted();
    const what = `the plan of '${this.partition.name}' (${inputs.map((t) => `${t.type}[${t.dims.join(', ')}]`).join(', ')})`;
    let built: BuiltPlan;
    try {
      try {
        built = this.#build(description, what);
      } catch (error) {
        // A channels-last convolution the library declines: the same plan in NCHW, with the reason kept.
        if (!description.steps.some((st) => st.op === 'ConvNHWC') || (error as { code?: string }).code === 'OUT_OF_MEMORY') throw error;
        this.stats.layoutNote = `NHWC plan failed, running NCHW: ${(error as Error).message}`;
        description = this.#describe(graph ?? concretePartition(this.partition, inputs, knownInputs), false);
        built = this.#build(description, what);
      }
    } catch (error) {
      if (error instanceof SwitchyardError && error.code === 'OUT_OF_MEMORY') throw error;
      const code = (error as { code?: string }).code ?? '';
      throw new SwitchyardError(/OutOfMemory|MemoryAllocation/.test(code) ? 'OUT_OF_MEMORY' : 'EP_FAILED', `rocm: building the plan of '${this.partition.name}' failed: ${(error as Error).message}`, { cause: error });
    }
    const { plan, charges, footprint } = built;
    const outputs = description.outputs.map((id) => {
      const b = description.buffers[id];
      return { type: dataTypeFromOnnx(b.dtype)!, dims: b.dims };
    });
    if (this.#plans.size >= this.options.maxPlansPerPartition) {
      const [stalestKey, stalest] = this.#plans.entries().next().value as [string, PlanEntry];
      disposeEntry(stalest);
      this.#plans.delete(stalestKey);
      this.stats.plansFreed++;
    }
    const entry = { plan, outputs, charges };
    this.#plans.set(key, entry);
    this.stats.plans++;
    this.stats.lastDescription = description;
    this.stats.lastStepNotes = plan.stepNotes;
    this.stats.lastFootprint = footprint;
    return entry;
  }

  #releaseAdmitted(): void {
    for (const c of this.#admitted?.charges ?? []) c.release();
    this.#admitted = undefined;
  }

  #stepOpSet?: Set<string>;
  #stepOps(): Set<string> {
    this.#stepOpSet ??= new Set(this.binding.planStepOps());
    return this.#stepOpSet;
  }

  /** Channels-last convolutions for float16 plans, when asked for and this build has the step ops. */
  #nhwcConv(): 'always' | 'auto' | false {
    if (!this.options.fp16 || this.options.fp16ConvLayout === 'NCHW') return false;
    const ops = this.#stepOps();
    if (!ops.has('ConvNHWC') || !ops.has('PoolNHWC') || !ops.has('Transpose')) return false;
    return this.options.fp16ConvLayout === 'NHWC' ? 'always' : 'auto';
  }

  async #run(values: RuntimeValue[]): Promise<RuntimeValue[]> {
    if (this.#disposed) throw new SwitchyardError('RELEASED', `rocm partition '${this.partition.name}' was disposed`);
    const inputs = values.map((v, i) => {
      if (!(v instanceof Tensor)) throw new SwitchyardError('RUNTIME', `rocm partition '${this.partition.name}': input '${this.partition.inputNames[i]}' is not a tensor`);
      return v;
    });
    const { plan, outputs } = this.#planFor(inputs, await this.#knownShapeInputs(inputs));
    // Host data (staged by copyToDevice) is copied in by the plan itself, inside its one call.
    const sources = inputs.map((t) => {
      const staged = this.memory.stagedSource(t, true);
      if (staged) return staged.data as ArrayBufferView;
      if (t.location === 'cpu') return t.data as ArrayBufferView;
      return this.memory.bufferOf(t, `partition '${this.partition.name}'`);
    });
    const targets = outputs.map(({ type, dims }, i) => this.#outputTarget(type, dims, i));
    try {
      await runPlan(plan, sources, targets.map((t) => t.target));
    } catch (error) {
      for (const t of targets) t.tensor.dispose();
      throw new SwitchyardError('RUNTIME', `rocm partition '${this.partition.name}': ${(error as Error).message}`, { cause: error });
    }
    this.stats.runs++;
    this.stats.lastPlan = plan;
    return targets.map((t) => t.tensor);
  }

  #outputTarget(type: DataType, dims: number[], i: number): { tensor: Tensor; target: ArrayBufferView | DeviceBuffer } {
    const placement = this.outputPlacement;
    if (placement[i] === 'host' && type !== 'string') {
      const host = new Tensor(type, allocateForCopy(type as NumericDataType, elementCount(dims)), dims);
      const tensor = this.memory.hostResult(host, () => void (placement[i] = 'device'));
      return { tensor, target: host.data as ArrayBufferView };
    }
    const { tensor, buffer } = this.memory.allocate(type, dims, () => void (placement[i] = 'host'));
    return { tensor, target: buffer };
  }

  dispose(): void {
    this.#disposed = true;
    for (const entry of this.#plans.values()) disposeEntry(entry);
    this.#plans.clear();
    this.#releaseAdmitted();
  }
}

function disposeEntry(entry: PlanEntry): void {
  entry.plan.dispose();
  for (const c of entry.charges) c.release();
}

/** The driver hands out device memory in 2 MiB pages: an arena of n bytes takes this much. */
function roundToDriverPage(bytes: number): number {
  const page = 2 * 1024 * 1024;
  return Math.ceil(bytes / page) * page;
}
