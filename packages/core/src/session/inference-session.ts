/**
 * `InferenceSession`: load → infer shapes → optimize → partition → prepare → run.
 * Shaped like onnxruntime-node's so users can switch with little change.
 */
import { availableParallelism } from 'node:os';
import { writeFileSync } from 'node:fs';
import { SwitchyardError } from '../errors.js';
import type { ExecutionProvider } from '../ep/execution-provider.js';
import { providerConfigName, resolveExecutionProviders } from '../ep/ep-registry.js';
import { type Graph, type Model, type Node, type ValueInfo } from '../ir/graph.js';
import { loadModel, encodeModel } from '../onnx/index.js';
import { sortGraphTopologically } from '../ir/topological-order.js';
import { inlineLocalFunctions } from '../onnx/inline-functions.js';
import { buildPlacement, type FlopShapes, type Placement, type PlacementSource } from '../partition/placement.js';
import { KernelRegistry } from '../registry/kernel-registry.js';
import type { RuntimeValue } from '../registry/kernel-def.js';
import { inferShapes, estimateFlopsOrUnknown } from '../shape-inference/index.js';
import type { Tensor } from '../tensor/tensor.js';
import { optimizeModelGraph, type OptimizationSummary } from './optimize-model.js';
import { buildPlan, disposePlan } from './build-plan.js';
import { DynamicArenas } from './dynamic-arena.js';
import { bindInputDims, estimateSessionMemory, type SessionMemoryPlan, type ShapesByInput } from './memory-estimate.js';
import type { ExecutionPlan } from './execution-plan.js';
import { executePlan, type RunEnvironment } from './executor.js';
import { hostEvaluator } from './evaluate-node.js';
import { ownedGraphPasses } from './ep-passes.js';
import { Logger } from './logger.js';
import { Profiler } from './profiler.js';
import { programOf } from './run-program.js';
import { DEFAULT_MAX_TENSOR_BYTES, type RunOptions, type SessionOptions } from './session-options.js';
import { NO_RUN_OPTIONS, stopCheckFor, type StopCheck } from './run-cancellation.js';
import { FeedValidator } from './validate-feeds.js';
import { checkSessionOptions } from './check-options.js';
import { parseCreateArguments } from './create-arguments.js';
import { overrideFreeDimensions } from './free-dimensions.js';
import { parseRunArguments, writeInto } from './run-arguments.js';
import { RealizedFlops, placementForDims, type PlacementBuilder } from './realized-flops.js';
import type { CreationTimings, RunTimings } from './timings.js';

/** Metadata of one model input or output, as onnxruntime-node reports it. */
export interface ValueMetadata {
  name: string;
  isTensor: boolean;
  /** Element type for tensors. */
  type?: string;
  /** Dims: numbers, symbolic names, or -1 where unknown. */
  shape?: Array<number | string>;
}

export type FeedsType = Record<string, Tensor | Tensor[] | null>;
export type ReturnType = Record<string, RuntimeValue>;
/** Output names, or `{ outputName: null | Tensor }` (a Tensor is written into; its dtype and shape must match the output's). */
export type FetchesType = readonly string[] | Readonly<Record<string, Tensor | null>>;

function metadataOf(v: ValueInfo): ValueMetadata {
  const t = v.type;
  if (t?.kind === 'tensor') return { name: v.name, isTensor: true, type: t.elemType, shape: t.shape?.map((d) => d ?? -1) };
  return { name: v.name, isTensor: false };
}

export class InferenceSession {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  readonly inputMetadata: readonly ValueMetadata[];
  readonly outputMetadata: readonly ValueMetadata[];
  readonly #declaredPlacement: Placement;
  readonly #buildPlacement: PlacementBuilder;
  readonly #realizedFlops: RealizedFlops | undefined;
  /** What the optimizer did, and the host memory plan. */
  readonly optimization: OptimizationSummary;
  /** Where creating this session spent its time. */
  readonly creationTimings: CreationTimings;
  readonly model: Model;
  readonly #plan: ExecutionPlan;
  /** Arena layouts per binding of the inputs' symbolic dims (memory patterns on, symbolic inputs only). */
  readonly #dynamicArenas: DynamicArenas | undefined;
  readonly #providers: readonly ExecutionProvider[];
  readonly #ownedProviders: readonly ExecutionProvider[];
  /** The first provider that offers host memory for large outputs (ExecutionProvider.hostBuffer), if any. */
  readonly #hostPool: ExecutionProvider | undefined;
  readonly #profiler: Profiler | undefined;
  readonly #threads: number;
  readonly #feeds: FeedValidator;
  readonly #arenas: ArrayBuffer[] = [];
  readonly #env: RunEnvironment;
  readonly #log: Logger;
  readonly #maxTensorBytes: number;
  readonly #memoryPattern: boolean;
  readonly #fixedDims: Readonly<Record<string, number>> | undefined;
  #memoryPlan: SessionMemoryPlan | undefined;
  #released = false;

  private constructor(init: {
    model: Model;
    plan: ExecutionPlan;
    providers: readonly ExecutionProvider[];
    owned: readonly ExecutionProvider[];
    placement: Placement;
    buildPlacement: PlacementBuilder;
    optimization: OptimizationSummary;
    options: SessionOptions;
    log: Logger;
    timings: CreationTimings;
    /** Metadata as the model declares it, when freeDimensionOverrides changed the graph's. */
    declared?: { inputs: ValueMetadata[]; outputs: ValueMetadata[] };
  }) {
    const graph = init.model.graph;
    this.model = init.model;
    // Inputs that also have initializers (IR < 4) are optional: the initializer is the default.
    const userInputs = graph.inputs;
    const optionalInputs = new Set(userInputs.filter((i) => graph.initializers.has(i.name)).map((i) => i.name));
    this.#feeds = new FeedValidator(userInputs, optionalInputs);
    this.inputNames = userInputs.map((i) => i.name);
    this.outputNames = graph.outputs.map((o) => o.name);
    this.inputMetadata = init.declared?.inputs ?? userInputs.map(metadataOf);
    this.outputMetadata = init.declared?.outputs ?? graph.outputs.map(metadataOf);
    this.#declaredPlacement = init.placement;
    this.#buildPlacement = init.buildPlacement;
    this.#realizedFlops = RealizedFlops.for(graph, init.buildPlacement);
    this.optimization = init.optimization;
    this.creationTimings = init.timings;
    this.#plan = init.plan;
    this.#maxTensorBytes = resolveMaxTensorBytes(init.options.maxTensorBytes);
    this.#memoryPattern = init.options.enableMemPattern ?? true;
    this.#fixedDims = init.options.freeDimensionOverrides;
    this.#dynamicArenas = init.plan.memoryPlan ? DynamicArenas.for(init.plan, this.#maxTensorBytes) : undefined;
    this.#providers = init.providers;
    this.#ownedProviders = init.owned;
    this.#hostPool = init.providers.find((p) => typeof p.hostBuffer === 'function');
    this.#log = init.log;
    this.#profiler = init.options.enableProfiling ? new Profiler(init.options.profileFilePrefix) : undefined;
    this.#threads = resolveThreads(init.options.intraOpNumThreads);
    this.#env = this.#runEnvironment();
    // Number the plan's values now rather than in the first run.
    programOf(init.plan);
  }

  /**
   * Where each node runs, why, and coverage per EP. For a model with symbolic input dims the FLOP
   * counts (`totalFlops`, each EP's `flops` and `flopCoverage`) come from the last run's input shapes
   * once a run has happened; `flopShapes` says which shapes were used.
   */
  get placement(): Placement {
    return this.#realizedFlops?.placement(this.#declaredPlacement) ?? this.#declaredPlacement;
  }

  /**
   * The placement with FLOPs counted for the given sizes of the model's symbolic dims (symbol → size,
   * e.g. `{ batch: 8 }`), without running; `flopShapes.source` is `given`.
   */
  placementFor(dims: Readonly<Record<string, number>>): Placement {
    this.#checkAlive();
    return placementForDims(this.#buildPlacement, dims);
  }

  /**
   * Loads a model from a path or bytes and prepares it on the requested execution providers. The forms
   * are onnxruntime-node's: a path, a Uint8Array, an ArrayBuffer (or SharedArrayBuffer), or a segment of
   * one given by byteOffset and byteLength (default: to the end).
   */
  static create(path: string, options?: SessionOptions): Promise<InferenceSession>;
  static create(buffer: Uint8Array, options?: SessionOptions): Promise<InferenceSession>;
  static create(pathOrBuffer: string | Uint8Array, options?: SessionOptions): Promise<InferenceSession>;
  static create(buffer: ArrayBufferLike, options?: SessionOptions): Promise<InferenceSession>;
  static create(buffer: ArrayBufferLike, byteOffset: number, byteLength?: number, options?: SessionOptions): Promise<InferenceSession>;
  static async create(...args: unknown[]): Promise<InferenceSession> {
    const parseStarted = performance.now();
    const { model, options = {} } = parseCreateArguments(args);
    // Before reading what may be a large file: a mistyped option fails at once.
    checkSessionOptions(options);
    const loaded = await loadModel(model, { baseDir: options.externalDataFolder });
    // The decoded tensors are ours alone: buffers of constants that kernels packed can be freed outright.
    return InferenceSession.#prepare(loaded, options, 'free', performance.now() - parseStarted);
  }

  /** Prepares an already-loaded (or hand-built) model. The session takes ownership of it. */
  static async fromModel(model: Model, options: SessionOptions = {}): Promise<InferenceSession> {
    if (!Array.isArray(model?.graph?.nodes)) throw new SwitchyardError('INVALID_ARGUMENT', 'InferenceSession.fromModel: pass a Model (from loadModel or built in code)');
    // loadModel sorts what it decodes; a model built in code may list its nodes in any order too.
    sortGraphTopologically(model.graph);
    // The caller may still hold the model's tensors: constants are dropped from the graph, never detached.
    return InferenceSession.#prepare(model, options, 'drop');
  }

  static async #prepare(model: Model, options: SessionOptions, release: 'drop' | 'free', parseMs = 0): Promise<InferenceSession> {
    const timings: CreationTimings = { parseMs, providersMs: 0, optimizeMs: 0, prepareMs: 0 };
    let phaseStarted = performance.now();
    const lap = (): number => {
      const now = performance.now();
      const ms = now - phaseStarted;
      phaseStarted = now;
      return ms;
    };
    const notes = checkSessionOptions(options);
    const log = new Logger(options.logSeverityLevel, options.logId ?? 'switchyard');
    for (const n of notes) log.verbose(n);
    // Calls of model-local functions become their bodies' ops before anything looks at the graph.
    const inlinedCalls = inlineLocalFunctions(model);
    if (inlinedCalls) {
      sortGraphTopologically(model.graph);
      log.verbose(`expanded ${inlinedCalls} call(s) of model-local functions`);
    }
    const { providers, skipped } = await resolveExecutionProviders(options.executionProviders, {
      disableCpuFallback: options.disableCpuFallback,
      note: (msg) => log.verbose(msg),
    });
    const owned = providers.filter((p) => !(options.executionProviders ?? []).includes(p));
    timings.providersMs = lap();
    try {
      reportSkipped(skipped, options, log);
      const registry = new KernelRegistry();
      for (const ep of providers) for (const k of ep.kernels ?? []) registry.register(k.ep === ep.name ? k : { ...k, ep: ep.name });
      const graph = model.graph;
      // onnxruntime reports the model's declared inputs and outputs, dimension names included.
      const declared = options.freeDimensionOverrides ? { inputs: graph.inputs.map(metadataOf), outputs: graph.outputs.map(metadataOf) } : undefined;
      let flopShapes: Omit<FlopShapes, 'unknownNodes'> = { source: 'declared', dims: {} };
      if (options.freeDimensionOverrides) {
        const unmatched = overrideFreeDimensions(graph, options.freeDimensionOverrides);
        if (unmatched.length) log.warn(`freeDimensionOverrides: the model has no dimension named ${unmatched.map((d) => `'${d}'`).join(', ')}`);
        const applied = Object.entries(options.freeDimensionOverrides).filter(([name]) => !unmatched.includes(name));
        if (applied.length) flopShapes = { source: 'freeDimensionOverrides', dims: Object.fromEntries(applied) };
      }
      inferAll(graph);
      const passes = ownedGraphPasses(providers, registry, skipped);
      const level = options.graphOptimizationLevel === 'layout' ? 'all' : (options.graphOptimizationLevel ?? 'all');
      const optimization = await optimizeModelGraph(graph, level, hostEvaluator(providers, registry), passes);
      inferAll(graph);
      timings.optimizeMs = lap();
      if (options.optimizedModelFilePath) writeFileSync(options.optimizedModelFilePath, encodeModel(model));
      lap(); // writing the optimized model is the caller's extra, not a phase
      const keep = keepOnDevice(options.preferredOutputLocation);
      // Profiles report every input's shape, so a profiled session keeps its constants.
      const releaseConstants = options.enableProfiling ? 'keep' : release;
      const plan = await buildPlan(graph, { providers, registry, skipped, memoryPattern: options.enableMemPattern ?? true, keepOnDevice: keep, threads: resolveThreads(options.intraOpNumThreads), releaseConstants, partitioning: options.partitioning, initializerInputsOverride: model.irVersion >= 4, maxTensorBytes: resolveMaxTensorBytes(options.maxTensorBytes) });
      const releasedConstantBytes = plan.releasedConstants ? [...plan.releasedConstants.values()].reduce((a, b) => a + b, 0) : undefined;
      optimization.memory = { arenaBytes: plan.arenaBytes, peakBytes: plan.memoryPlan?.peakBytes, naiveBytes: plan.memoryPlan?.naiveBytes, releasedConstantBytes };
      const source = placementSource(plan);
      const describe = (name: string) => providers.find((p) => p.name === name)?.describe?.();
      const rebuildPlacement: PlacementBuilder = (flopsOf, shapes) => buildPlacement(source, flopsOf, describe, shapes);
      const placement = rebuildPlacement(estimateFlopsOrUnknown, flopShapes);
      timings.prepareMs = lap();
      log.info(`placed ${placement.totalNodes} nodes: ${placement.providers.map((p) => `${p.name} ${p.nodes}`).join(', ')}`);
      return new InferenceSession({ model, plan, providers, owned, placement, buildPlacement: rebuildPlacement, optimization, options, log, timings, declared });
    } catch (err) {
      for (const p of owned) await p.dispose?.();
      throw err;
    }
  }

  /**
   * Runs the model. `fetches` picks outputs by name (default: all) and may give tensors to write
   * outputs into; `run(feeds, options)` and `run(feeds, fetches, options)` are told apart as
   * onnxruntime-node tells them apart. Concurrent calls are safe.
   */
  run(feeds: FeedsType, options?: RunOptions): Promise<ReturnType>;
  run(feeds: FeedsType, fetches: FetchesType | undefined, options?: RunOptions): Promise<ReturnType>;
  async run(feeds: FeedsType, second?: FetchesType | RunOptions, third?: RunOptions): Promise<ReturnType> {
    this.#checkAlive();
    const { wanted, preallocated, options, notes } = parseRunArguments(this.outputMetadata, second, third);
    // Read on the caller's own options object (terminate may be set mid-run); an already-fired signal
    // (or a set terminate flag) rejects before any work.
    const stop = stopCheckFor(options);
    stop?.();
    const severity = options.logSeverityLevel;
    for (const n of notes) this.#log.log(0, n, severity, options.tag);
    const values = this.#feeds.validate(feeds as Record<string, unknown>);
    this.#realizedFlops?.note(values);
    const started = performance.now();
    const plan = this.#dynamicArenas?.planFor(values) ?? this.#plan;
    const outputs = await executePlan(plan, values, stop ? this.#stoppableEnvironment(stop) : this.#env);
    if (plan.observeSizes && this.#dynamicArenas?.observed(plan)) this.#trimHostBuffers();
    const ended = performance.now();
    this.#profiler?.mark(`run${options.tag ? ' ' + options.tag : ''}`, started, ended);
    this.#log.log(0, `run took ${(ended - started).toFixed(3)} ms`, severity, options.tag);
    const result: ReturnType = {};
    const names = this.outputNames;
    for (let i = 0; i < names.length; i++) {
      if (wanted && !wanted.has(names[i])) continue;
      const into = preallocated?.get(names[i]);
      result[names[i]] = into ? await writeInto(names[i], into, outputs[i]) : outputs[i];
    }
    return result;
  }

  /**
   * Runs the model once (all outputs) and says where the time went: kernels, copies between devices,
   * and the rest. Costs two clock reads per step more than `run`.
   */
  async runWithTimings(feeds: FeedsType): Promise<{ outputs: ReturnType; timings: RunTimings }> {
    this.#checkAlive();
    const started = performance.now();
    const values = this.#feeds.validate(feeds as Record<string, unknown>);
    this.#realizedFlops?.note(values);
    const plan = this.#dynamicArenas?.planFor(values) ?? this.#plan;
    const phases = { execMs: 0, copyMs: 0, copies: 0 };
    const outputs = await executePlan(plan, values, { ...this.#env, phases });
    if (plan.observeSizes && this.#dynamicArenas?.observed(plan)) this.#trimHostBuffers();
    const ended = performance.now();
    this.#profiler?.mark('run', started, ended);
    const result: ReturnType = {};
    this.outputNames.forEach((name, i) => (result[name] = outputs[i]));
    const totalMs = ended - started;
    return { outputs: result, timings: { totalMs, ...phases, otherMs: Math.max(0, totalMs - phases.execMs - phases.copyMs) } };
  }

  /** The host pool's idle blocks go (ExecutionProvider.trimHostBuffers): the values that took them have arena slots now. */
  #trimHostBuffers(): void {
    this.#hostPool?.trimHostBuffers?.();
  }

  /** What every run of this session shares: made once, so a run allocates no closures for it. */
  #runEnvironment(): RunEnvironment {
    const pool = this.#arenas;
    const host = this.#hostPool;
    return {
      hostBuffer: host ? (bytes, zeroed) => host.hostBuffer!(bytes, zeroed) : undefined,
      releaseHostBuffer: host?.releaseHostBuffer ? (buffer) => host.releaseHostBuffer!(buffer) : undefined,
      threads: this.#threads,
      profiler: this.#profiler,
      // Layouts differ in size between bindings of symbolic dims: a pooled arena must be big enough.
      acquireArena: (bytes) => {
        const i = pool.findIndex((b) => b.byteLength >= bytes);
        if (i >= 0) return pool.splice(i, 1)[0];
        try {
          return new ArrayBuffer(bytes);
        } catch {
          // Too big to reserve at once (many large values): the run allocates each output as it goes.
          return undefined;
        }
      },
      releaseArena: (buf) => {
        if (pool.length < 4) pool.push(buf);
        else {
          // Full: keep the bigger buffers, which serve every layout up to their size.
          const smallest = pool.reduce((k, b, i) => (b.byteLength < pool[k].byteLength ? i : k), 0);
          if (pool[smallest].byteLength < buf.byteLength) pool[smallest] = buf;
        }
      },
      sliceMs: 4,
      checkAlive: () => this.#checkAlive(),
      maxTensorBytes: this.#maxTensorBytes,
    };
  }

  /** The shared environment, for a run that its options may stop early (made only for such runs). */
  #stoppableEnvironment(stop: StopCheck): RunEnvironment {
    return {
      ...this.#env,
      checkAlive: () => {
        this.#checkAlive();
        stop();
      },
    };
  }

  /**
   * Memory this session needs per device before it runs: weights, peak activations, per-run
   * allocations and EP-reported workspace, for the shapes fixed at creation (freeDimensionOverrides).
   * Symbolic dims left free are listed in `unresolvedDims`, and the values they size in `unsized`:
   * `memoryPlanFor(shapes)` binds them.
   */
  get memoryPlan(): SessionMemoryPlan {
    this.#checkAlive();
    return (this.#memoryPlan ??= this.#estimateMemory(new Map()));
  }

  /**
   * `memoryPlan` for given input shapes: `{ input: [1, 3, 224, 224] }` or feeds (their tensors' dims),
   * binding the inputs' symbolic dims. Inputs left out leave their dims unbound.
   */
  memoryPlanFor(shapes: ShapesByInput | FeedsType): SessionMemoryPlan {
    this.#checkAlive();
    if (typeof shapes !== 'object' || shapes === null) throw new SwitchyardError('INVALID_ARGUMENT', 'memoryPlanFor: pass input shapes by name, or feeds');
    const given: Record<string, readonly number[] | { dims: readonly number[] }> = {};
    for (const [name, v] of Object.entries(shapes)) {
      // Optional inputs fed null and sequence feeds bind no tensor dims.
      if (v === null || (Array.isArray(v) && v.length > 0 && typeof v[0] === 'object')) continue;
      given[name] = v as readonly number[] | { dims: readonly number[] };
    }
    return this.#estimateMemory(bindInputDims(this.#plan.graph, given));
  }

  #estimateMemory(bindings: ReadonlyMap<string, number>): SessionMemoryPlan {
    return estimateSessionMemory(this.#plan, { bindings, fixed: this.#fixedDims, maxTensorBytes: this.#maxTensorBytes, memoryPattern: this.#memoryPattern });
  }

  /** Does nothing, as in onnxruntime-node: profiling is on from creation when `enableProfiling` is set. */
  startProfiling(): void {}

  /**
   * Writes the Chrome trace of the runs so far and returns its path: `filePath` when given, else
   * `<profileFilePrefix>_<timestamp>.json` in the working folder.
   */
  endProfiling(filePath?: string): string {
    if (!this.#profiler) throw new SwitchyardError('INVALID_ARGUMENT', 'profiling is off; create the session with enableProfiling: true');
    return this.#profiler.write(filePath);
  }

  /** The recorded profile events (when profiling is on). */
  get profileEvents() {
    return this.#profiler?.events ?? [];
  }

  /** The EPs serving this session, in priority order. */
  get providers(): readonly ExecutionProvider[] {
    return this.#providers;
  }

  /** Releases kernels, compiled partitions and EPs this session created. Later calls fail. */
  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    disposePlan(this.#plan);
    this.#arenas.length = 0;
    for (const p of this.#ownedProviders) await p.dispose?.();
  }

  #checkAlive(): void {
    if (this.#released) throw new SwitchyardError('RELEASED', 'this InferenceSession was released');
  }
}

/**
 * EPs that could not start: a warning for those the caller listed (an error when CPU fallback is off,
 * since the nodes would otherwise land elsewhere unasked), info for those tried by default.
 */
function reportSkipped(skipped: ReadonlyArray<{ name: string; reason: string }>, options: SessionOptions, log: Logger): void {
  const listed = new Set((options.executionProviders ?? []).map(providerConfigName));
  const failed = skipped.filter((s) => listed.has(s.name));
  if (failed.length && options.disableCpuFallback) {
    const reasons = failed.map((s) => `  - ${s.name}: ${s.reason}`).join('\n');
    throw new SwitchyardError('EP_FAILED', `execution provider${failed.length > 1 ? 's' : ''} listed with disableCpuFallback could not start:\n${reasons}`);
  }
  for (const s of skipped) {
    const line = `execution provider '${s.name}' skipped: ${s.reason}`;
    if (listed.has(s.name)) log.warn(line);
    else log.info(line);
  }
}

function resolveMaxTensorBytes(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_TENSOR_BYTES;
  if (typeof value !== 'number' || Number.isNaN(value) || value <= 0) {
    throw new SwitchyardError('INVALID_ARGUMENT', `maxTensorBytes must be a positive number of bytes, got ${String(value)}`);
  }
  return value;
}

/** The most threads a session may ask for (the CPU EP's addon refuses larger OpenMP teams). */
const MAX_THREADS = 1024;

/** `intraOpNumThreads`: 0 or unset means every core. */
function resolveThreads(value: number | undefined): number {
  const threads = value ?? 0;
  if (!Number.isInteger(threads) || threads < 0 || threads > MAX_THREADS) {
    throw new SwitchyardError('INVALID_ARGUMENT', `intraOpNumThreads must be an integer in [0, ${MAX_THREADS}], got ${threads}`);
  }
  return threads === 0 ? availableParallelism() : threads;
}

function inferAll(graph: Graph): void {
  inferShapes(graph);
}

function keepOnDevice(pref: SessionOptions['preferredOutputLocation']): ((name: string) => boolean) | undefined {
  if (pref === undefined || pref === 'cpu') return undefined;
  if (pref === 'device') return () => true;
  return (name) => pref[name] === 'device';
}

function placementSource(plan: ExecutionPlan): PlacementSource {
  const impl = new Map<Node, string>();
  for (const s of plan.steps) {
    if (s.kind === 'copy') continue;
    const nodes = s.unit.kind === 'single' ? [s.unit.node] : s.unit.nodes;
    for (const n of nodes) impl.set(n, s.implementation);
  }
  const subplans: Array<{ owner: Node; attribute: string; source: PlacementSource }> = [];
  for (const node of plan.graph.nodes) {
    for (const [attrName, a] of node.attributes) {
      const graphs = a.type === 'graph' ? [a.value] : a.type === 'graphs' ? a.value : [];
      for (const g of graphs) {
        const sub = plan.subplans.get(g);
        if (sub) subplans.push({ owner: node, attribute: attrName, source: placementSource(sub) });
      }
    }
  }
  return {
    partition: plan.partition,
    implementationOf: (n) => impl.get(n) ?? '',
    copies: plan.steps.filter((s) => s.kind === 'copy'),
    subplans,
  };
}
