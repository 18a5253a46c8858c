/**
 * `InferenceSession`: load → infer shapes → optimize → partition → prepare → run.
 * Shaped like onnxruntime-node's so users can switch with little change.
 */
import { availableParallelism } from 'node:os';
import { writeFileSync } from 'node:fs';
import { SwitchyardError } from '../errors.js';
import type { ExecutionProvider } from '../ep/execution-provider.js';
import { resolveExecutionProviders } from '../ep/ep-registry.js';
import { type Graph, type Model, type Node, type ValueInfo } from '../ir/graph.js';
import { loadModel, encodeModel } from '../onnx/index.js';
import { sortGraphTopologically } from '../ir/topological-order.js';
import { buildPlacement, type Placement, type PlacementSource } from '../partition/placement.js';
import { KernelRegistry } from '../registry/kernel-registry.js';
import type { RuntimeValue } from '../registry/kernel-def.js';
import { inferShapes, estimateFlops } from '../shape-inference/index.js';
import type { Tensor } from '../tensor/tensor.js';
import { optimizeModelGraph, type OptimizationSummary } from './optimize-model.js';
import { buildPlan, disposePlan } from './build-plan.js';
import { DynamicArenas } from './dynamic-arena.js';
import type { ExecutionPlan } from './execution-plan.js';
import { executePlan, type RunEnvironment } from './executor.js';
import { hostEvaluator } from './evaluate-node.js';
import { ownedGraphPasses } from './ep-passes.js';
import { Logger } from './logger.js';
import { Profiler } from './profiler.js';
import { programOf } from './run-program.js';
import type { RunOptions, SessionOptions } from './session-options.js';
import { FeedValidator } from './validate-feeds.js';
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
export type FetchesType = readonly string[] | Record<string, unknown>;

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
  /** Where each node runs, why, and coverage per EP. */
  readonly placement: Placement;
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
  readonly #profiler: Profiler | undefined;
  readonly #threads: number;
  readonly #feeds: FeedValidator;
  readonly #arenas: ArrayBuffer[] = [];
  readonly #env: RunEnvironment;
  readonly #log: Logger;
  #released = false;

  private constructor(init: {
    model: Model;
    plan: ExecutionPlan;
    providers: readonly ExecutionProvider[];
    owned: readonly ExecutionProvider[];
    placement: Placement;
    optimization: OptimizationSummary;
    options: SessionOptions;
    log: Logger;
    timings: CreationTimings;
  }) {
    const graph = init.model.graph;
    this.model = init.model;
    // Inputs that also have initializers (IR < 4) are optional: the initializer is the default.
    const userInputs = graph.inputs;
    const optionalInputs = new Set(userInputs.filter((i) => graph.initializers.has(i.name)).map((i) => i.name));
    this.#feeds = new FeedValidator(userInputs, optionalInputs);
    this.inputNames = userInputs.map((i) => i.name);
    this.outputNames = graph.outputs.map((o) => o.name);
    this.inputMetadata = userInputs.map(metadataOf);
    this.outputMetadata = graph.outputs.map(metadataOf);
    this.placement = init.placement;
    this.optimization = init.optimization;
    this.creationTimings = init.timings;
    this.#plan = init.plan;
    this.#dynamicArenas = init.plan.memoryPlan ? DynamicArenas.for(init.plan) : undefined;
    this.#providers = init.providers;
    this.#ownedProviders = init.owned;
    this.#log = init.log;
    this.#profiler = init.options.enableProfiling ? new Profiler(init.options.profileFilePrefix) : undefined;
    this.#threads = resolveThreads(init.options.intraOpNumThreads);
    this.#env = this.#runEnvironment();
    // Number the plan's values now rather than in the first run.
    programOf(init.plan);
  }

  /** Loads a model from a path or bytes and prepares it on the requested execution providers. */
  static async create(model: string | Uint8Array | ArrayBuffer, options: SessionOptions = {}): Promise<InferenceSession> {
    if (typeof model !== 'string' && !(model instanceof Uint8Array) && !(model instanceof ArrayBuffer)) {
      throw new SwitchyardError('INVALID_ARGUMENT', 'InferenceSession.create: pass a file path, a Uint8Array or an ArrayBuffer');
    }
    const bytes = model instanceof ArrayBuffer ? new Uint8Array(model) : model;
    const parseStarted = performance.now();
    const loaded = await loadModel(bytes, { baseDir: options.externalDataFolder });
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
    const log = new Logger(options.logSeverityLevel ?? 2, options.logId ?? 'switchyard');
    const { providers, skipped } = await resolveExecutionProviders(options.executionProviders, {
      disableCpuFallback: options.disableCpuFallback,
    });
    const owned = providers.filter((p) => !(options.executionProviders ?? []).includes(p));
    timings.providersMs = lap();
    for (const s of skipped) log.info(`execution provider '${s.name}' skipped: ${s.reason}`);
    try {
      const registry = new KernelRegistry();
      for (const ep of providers) for (const k of ep.kernels ?? []) registry.register(k.ep === ep.name ? k : { ...k, ep: ep.name });
      const graph = model.graph;
      inferAll(graph);
      const passes = ownedGraphPasses(providers, registry, skipped);
      const optimization = await optimizeModelGraph(graph, options.graphOptimizationLevel ?? 'all', hostEvaluator(providers, registry), passes);
      inferAll(graph);
      timings.optimizeMs = lap();
      if (options.optimizedModelFilePath) writeFileSync(options.optimizedModelFilePath, encodeModel(model));
      lap(); // writing the optimized model is the caller's extra, not a phase
      const keep = keepOnDevice(options.preferredOutputLocation);
      // Profiles report every input's shape, so a profiled session keeps its constants.
      const releaseConstants = options.enableProfiling ? 'keep' : release;
      const plan = await buildPlan(graph, { providers, registry, skipped, memoryPattern: options.enableMemPattern ?? true, keepOnDevice: keep, threads: resolveThreads(options.intraOpNumThreads), releaseConstants, initializerInputsOverride: model.irVersion >= 4 });
      const releasedConstantBytes = plan.releasedConstants ? [...plan.releasedConstants.values()].reduce((a, b) => a + b, 0) : undefined;
      optimization.memory = { arenaBytes: plan.arenaBytes, peakBytes: plan.memoryPlan?.peakBytes, naiveBytes: plan.memoryPlan?.naiveBytes, releasedConstantBytes };
      const placement = buildPlacement(placementSource(plan), estimateFlops, (name) => providers.find((p) => p.name === name)?.describe?.());
      timings.prepareMs = lap();
      log.info(`placed ${placement.totalNodes} nodes: ${placement.providers.map((p) => `${p.name} ${p.nodes}`).join(', ')}`);
      return new InferenceSession({ model, plan, providers, owned, placement, optimization, options, log, timings });
    } catch (err) {
      for (const p of owned) await p.dispose?.();
      throw err;
    }
  }

  /** Runs the model. `fetches` picks outputs by name (default: all). Concurrent calls are safe. */
  async run(feeds: FeedsType, fetches?: FetchesType, runOptions: RunOptions = {}): Promise<ReturnType> {
    this.#checkAlive();
    const wanted = fetches === undefined ? undefined : this.#fetchNames(fetches);
    const values = this.#feeds.validate(feeds as Record<string, unknown>);
    const started = performance.now();
    const plan = this.#dynamicArenas?.planFor(values) ?? this.#plan;
    const outputs = await executePlan(plan, values, this.#env);
    this.#profiler?.mark(`run${runOptions.tag ? ' ' + runOptions.tag : ''}`, started, performance.now());
    const result: ReturnType = {};
    const names = this.outputNames;
    for (let i = 0; i < names.length; i++) if (!wanted || wanted.has(names[i])) result[names[i]] = outputs[i];
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
    const plan = this.#dynamicArenas?.planFor(values) ?? this.#plan;
    const phases = { execMs: 0, copyMs: 0, copies: 0 };
    const outputs = await executePlan(plan, values, { ...this.#env, phases });
    const ended = performance.now();
    this.#profiler?.mark('run', started, ended);
    const result: ReturnType = {};
    this.outputNames.forEach((name, i) => (result[name] = outputs[i]));
    const totalMs = ended - started;
    return { outputs: result, timings: { totalMs, ...phases, otherMs: Math.max(0, totalMs - phases.execMs - phases.copyMs) } };
  }

  /** What every run of this session shares: made once, so a run allocates no closures for it. */
  #runEnvironment(): RunEnvironment {
    const pool = this.#arenas;
    return {
      threads: this.#threads,
      profiler: this.#profiler,
      // Layouts differ in size between bindings of symbolic dims: a pooled arena must be big enough.
      acquireArena: (bytes) => {
        const i = pool.findIndex((b) => b.byteLength >= bytes);
        return i >= 0 ? pool.splice(i, 1)[0] : new ArrayBuffer(bytes);
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
    };
  }

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

  #fetchNames(fetches: FetchesType): Set<string> {
    const names = Array.isArray(fetches) ? (fetches as string[]) : Object.keys(fetches);
    for (const n of names) {
      if (!this.outputNames.includes(n)) {
        throw new SwitchyardError('INVALID_ARGUMENT', `run: unknown output '${n}'; the model's outputs are ${this.outputNames.map((o) => `'${o}'`).join(', ')}`);
      }
    }
    return new Set(names);
  }
}

/** `intraOpNumThreads`: 0 or unset means every core. */
function resolveThreads(value: number | undefined): number {
  const threads = value ?? 0;
  if (!Number.isInteger(threads) || threads < 0) {
    throw new SwitchyardError('INVALID_ARGUMENT', `intraOpNumThreads must be a non-negative integer, got ${threads}`);
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
