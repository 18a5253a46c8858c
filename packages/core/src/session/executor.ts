/**
 * Walks an execution plan for one run. Each run has its own value array and arena, so concurrent runs
 * of one session never share mutable state. Long runs yield to the event loop between steps.
 *
 * Values live in slots numbered once per plan (run-program.ts): the hot loop indexes arrays, never
 * looks names up, and allocates per node only what the kernel contract needs (its inputs, its context).
 */
import { AbortError, SwitchyardError } from '../errors.js';
import { nodeLabel, type Graph, type Node } from '../ir/graph.js';
import type { CopyStep } from '../partition/copy-insertion.js';
import type { RuntimeValue } from '../registry/kernel-def.js';
import { Tensor } from '../tensor/tensor.js';
import type { ExecutionPlan, KernelStep } from './execution-plan.js';
import type { Profiler } from './profiler.js';
import type { PhaseClock } from './timings.js';
import { NodeRunContext, type ArenaViews, type OutputLayout, type RunOutputs, type SubgraphRunner } from './run-context.js';
import { PooledBuffers } from './pooled-buffers.js';
import { StepKind, programOf, type RunProgram } from './run-program.js';
import { MemoRole, type MemoRun } from './shape-memo.js';

export interface RunEnvironment {
  threads: number;
  profiler?: Profiler;
  /** Takes an arena buffer of at least `bytes` for a run; `release` gives it back. */
  acquireArena(bytes: number): ArrayBuffer | undefined;
  releaseArena(buffer: ArrayBuffer): void;
  /** Largest time (ms) the executor may hold the event loop before yielding. */
  sliceMs: number;
  /**
   * Checked before the first step and between steps: throws when the run must stop (a released
   * session, or the run's AbortSignal / terminate flag / timeout: see run-cancellation.ts).
   */
  checkAlive(): void;
  /** Largest single output a kernel may allocate through its context (SessionOptions.maxTensorBytes). */
  maxTensorBytes: number;
  /** Recycled host memory for large outputs outside the arena (ExecutionProvider.hostBuffer). */
  hostBuffer?: (bytes: number, zeroed: boolean) => ArrayBuffer | undefined;
  /** Takes a hostBuffer back early (ExecutionProvider.releaseHostBuffer). */
  releaseHostBuffer?: (buffer: ArrayBuffer) => boolean;
  /** Set for a timed run: step times of the main graph are added to it. */
  phases?: PhaseClock;
}

export type Lookup = (name: string) => RuntimeValue | undefined;

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function shapesOf(values: readonly (RuntimeValue | undefined)[]): string[] {
  return values.map((v) => (v instanceof Tensor ? `${v.type}[${v.dims.join(',')}]` : v === null ? 'none' : Array.isArray(v) ? `seq(${v.length})` : ''));
}

function kernelError(step: KernelStep, err: unknown): SwitchyardError {
  // A run stopped inside a control-flow node's subgraph stays an AbortError, whatever node it was in.
  if (err instanceof AbortError) return err;
  const unit = step.unit;
  const where = unit.kind === 'single' ? `node '${nodeLabel(unit.node)}' (${unit.node.opType})` : `partition '${unit.name}'`;
  const msg = err instanceof Error ? err.message : String(err);
  const code = err instanceof SwitchyardError ? err.code : 'RUNTIME';
  return new SwitchyardError(code, `${where} on ${unit.ep.name} failed: ${msg}`, { cause: err });
}

/** Copies an output that aliases arena memory it was not given, so later reuse cannot clobber it. */
function detachFromArena(value: RuntimeValue, arena: ArrayBuffer | undefined, own: Tensor | undefined): RuntimeValue {
  if (!arena || !(value instanceof Tensor) || value === own || value.location !== 'cpu' || value.type === 'string') return value;
  const data = value.data as { buffer?: ArrayBufferLike; slice?: () => unknown };
  if (data.buffer !== arena) return value;
  return new Tensor(value.type, (value.data as Float32Array).slice() as never, value.dims);
}

/** Views over each arena buffer's slots, for the program that last ran on it (see RunOutputs.views). */
const arenaViews = new WeakMap<ArrayBuffer, { program: RunProgram; views: ArenaViews }>();
const noViews = (): ArenaViews => ({ data: [], type: [], size: [] });
/** For runs without an arena: never written (outputs only use views over an arena). */
const NO_VIEWS = noViews();

function viewsOf(arena: ArrayBuffer | undefined, program: RunProgram): ArenaViews {
  if (!arena) return NO_VIEWS;
  let cached = arenaViews.get(arena);
  if (cached?.program !== program) arenaViews.set(arena, (cached = { program, views: noViews() }));
  return cached.views;
}

/** One run of one plan: its values by slot, and how names outside the plan resolve. */
class PlanRun implements SubgraphRunner, RunOutputs {
  readonly layout: OutputLayout;
  readonly views: ArenaViews;
  readonly maxTensorBytes: number;
  readonly hostBuffer: ((bytes: number, zeroed: boolean) => ArrayBuffer | undefined) | undefined;

  constructor(
    readonly plan: ExecutionPlan,
    readonly program: RunProgram,
    readonly values: (RuntimeValue | undefined)[],
    readonly feeds: ReadonlyMap<string, RuntimeValue>,
    readonly env: RunEnvironment,
    readonly arena: ArrayBuffer | undefined,
    /** Feeds the plan never reads by slot (kept so subgraph lookups by name still see them). */
    readonly extras: Map<string, RuntimeValue> | undefined,
    readonly outer: Lookup | undefined,
  ) {
    this.layout = program.layout;
    this.views = viewsOf(arena, program);
    this.maxTensorBytes = env.maxTensorBytes;
    // With an EP that takes buffers back early, the run tracks which of its values hold them.
    this.hostBuffer = env.hostBuffer && env.releaseHostBuffer ? this.trackedHostBuffer : env.hostBuffer;
  }

  /** The run's buffers from the EP's host pool, made at the first one (see PooledBuffers). */
  pooled: PooledBuffers | undefined = undefined;

  /** hostBuffer for a run whose EP takes buffers back: records each buffer it hands out. */
  trackedHostBuffer(bytes: number, zeroed: boolean): ArrayBuffer | undefined {
    const buffer = this.env.hostBuffer!(bytes, zeroed);
    if (buffer) (this.pooled ??= new PooledBuffers(this.env.releaseHostBuffer!)).handedOut(buffer);
    return buffer;
  }

  read(slot: number): RuntimeValue | undefined {
    const v = this.values[slot];
    return v !== undefined ? v : this.#fallback(this.program.names[slot]);
  }

  /** What a name not set in this run resolves to: a constant, else the enclosing scope's value. */
  #fallback(name: string): RuntimeValue | undefined {
    return this.plan.constants.get(name) ?? this.outer?.(name);
  }

  lookup(name: string): RuntimeValue | undefined {
    const slot = this.program.slotOf.get(name);
    if (slot !== undefined) return this.read(slot);
    if (this.extras?.has(name)) return this.extras.get(name);
    return this.#fallback(name);
  }

  runSubgraph(graph: Graph, feeds: ReadonlyMap<string, RuntimeValue>, node: Node, rename: ReadonlyMap<string, string> | undefined): Promise<RuntimeValue[]> {
    const sub = this.plan.subplans.get(graph);
    if (!sub) return Promise.reject(new SwitchyardError('RUNTIME', `no plan for subgraph '${graph.name}' of '${nodeLabel(node)}'`));
    return executePlan(sub, feeds, this.env, (name) => this.lookup(rename?.get(name) ?? name));
  }

  /** Drops the values no later step reads (`io[from..to)`); device tensors the run made are released now. */
  free(from: number, to: number): void {
    const values = this.values;
    const io = this.program.io;
    for (let k = from; k < to; k++) {
      const s = io[k];
      const v = values[s];
      // Feeds belong to the caller (a bound device tensor stays valid after the run).
      if (v instanceof Tensor && v.location !== 'cpu' && !this.feeds.has(this.program.names[s])) v.dispose();
      else if (this.pooled) this.pooled.freed(v);
      values[s] = undefined;
    }
  }
}

/** Runs `plan` with `feeds` (by graph input name); returns the graph outputs in order. */
export async function executePlan(
  plan: ExecutionPlan,
  feeds: ReadonlyMap<string, RuntimeValue>,
  env: RunEnvironment,
  outer?: Lookup,
): Promise<RuntimeValue[]> {
  // Also before any step: a subgraph with no nodes (a Loop body that only passes values on) is still a stop point.
  env.checkAlive();
  const program = programOf(plan);
  const values = program.template.slice();
  let extras: Map<string, RuntimeValue> | undefined;
  for (const [name, v] of feeds) {
    const slot = program.slotOf.get(name);
    if (slot !== undefined) values[slot] = v;
    else (extras ??= new Map()).set(name, v);
  }
  const arena = plan.arenaBytes > 0 ? env.acquireArena(plan.arenaBytes) : undefined;
  const run = new PlanRun(plan, program, values, feeds, env, arena, extras, outer);
  const { kinds, bounds, live, clockAfter } = program;
  // Profiles list every node, so profiled runs compute their shape arithmetic too.
  const memo = program.memo && !env.profiler ? program.memo.begin() : undefined;
  let sliceStart = performance.now();
  let yielded = false;
  // Subgraph runs belong to their control-flow node's step, which the outer plan times.
  const clock = outer === undefined ? env.phases : undefined;
  try {
    for (let j = 0; j < live.length; j++) {
      const i = live[j];
      const kind = kinds[i];
      env.checkAlive();
      const started = env.profiler || clock ? performance.now() : 0;
      if (kind === StepKind.Kernel) {
        const role = memo ? memo.memo.roles[i] : MemoRole.None;
        if (role !== MemoRole.Memoized || !takeFromMemo(i, run, memo!)) {
          // Most kernels finish synchronously: awaiting only real promises keeps per-node overhead low.
          const pending = runKernel(i, run, started);
          if (pending) await pending;
          if (role !== MemoRole.None) {
            const outs = outputsOf(i, run);
            if (run.pooled) for (const v of outs) run.pooled.escaped(v); // kept by the memo for later runs
            memo!.ran(i, outs, arena);
          }
        }
      } else if (kind === StepKind.Copy) {
        const step = plan.steps[i] as CopyStep;
        await runCopy(step, i, run);
        env.profiler?.record({ name: `copy ${step.source}`, op: 'MemcpyTo' + (step.to === 'cpu' ? 'Host' : 'Device'), ep: step.ep.name, start: started, end: performance.now(), inputs: [], outputs: [] });
      } else {
        await runFused(plan.steps[i] as KernelStep, i, run, started);
      }
      if (clock) {
        const elapsed = performance.now() - started;
        if (kind === StepKind.Copy) {
          clock.copyMs += elapsed;
          clock.copies++;
        } else clock.execMs += elapsed;
      }
      const freeFrom = bounds[3 * i + 2];
      const freeTo = bounds[3 * i + 3];
      if (freeFrom < freeTo) run.free(freeFrom, freeTo);
      if (clockAfter[i] && performance.now() - sliceStart > env.sliceMs) {
        await yieldToEventLoop();
        sliceStart = performance.now();
        yielded = true;
      }
    }
    const outputs = new Array<RuntimeValue>(program.outputs.length);
    for (let k = 0; k < outputs.length; k++) {
      const v = run.read(program.outputs[k]);
      if (v === undefined) throw new SwitchyardError('RUNTIME', `graph output '${plan.outputs[k].name}' was not produced`);
      outputs[k] = v;
    }
    // A long run (one that had to yield) also yields as it ends: otherwise a caller running back to
    // back would join this run's last slice and the next run's first into one stretch of up to twice
    // sliceMs. Short runs never pay for it.
    if (yielded) await yieldToEventLoop();
    memo?.finish();
    return outputs;
  } finally {
    if (arena) env.releaseArena(arena);
  }
}

/** Sets step `index`'s outputs from the memo; false when the memo has none for this run. */
function takeFromMemo(index: number, run: PlanRun, memo: MemoRun): boolean {
  const outs = memo.take(index);
  if (!outs) return false;
  const { io, bounds } = run.program;
  const first = bounds[3 * index + 1];
  for (let k = 0; k < outs.length; k++) {
    const s = io[first + k];
    if (s >= 0) run.values[s] = outs[k];
  }
  return true;
}

/** Step `index`'s outputs as this run holds them. */
function outputsOf(index: number, run: PlanRun): (RuntimeValue | undefined)[] {
  const { io, bounds } = run.program;
  const first = bounds[3 * index + 1];
  const outs = new Array<RuntimeValue | undefined>(bounds[3 * index + 2] - first);
  for (let k = 0; k < outs.length; k++) outs[k] = io[first + k] >= 0 ? run.values[io[first + k]] : undefined;
  return outs;
}

async function runCopy(step: CopyStep, index: number, run: PlanRun): Promise<void> {
  const { io, bounds } = run.program;
  const v = run.read(io[bounds[3 * index]]);
  if (!(v instanceof Tensor)) {
    throw new SwitchyardError('RUNTIME', `cannot copy '${step.source}' from ${step.from} to ${step.to}: only tensors cross devices`);
  }
  run.pooled?.escaped(v); // a device copy may still read it after the promise settles
  const copy = step.to === 'cpu' ? step.ep.copyToHost?.(v) : step.ep.copyToDevice?.(v);
  if (!copy) throw new SwitchyardError('EP_FAILED', `${step.ep.name} cannot copy tensors ${step.to === 'cpu' ? 'to the host' : 'to its device'}`);
  run.values[io[bounds[3 * index + 1]]] = await copy;
}

async function runFused(step: KernelStep, index: number, run: PlanRun, started: number): Promise<void> {
  const unit = step.unit as Extract<KernelStep['unit'], { kind: 'fused' }>;
  const { io, bounds, names } = run.program;
  const first = bounds[3 * index];
  const inputs = new Array<RuntimeValue>(bounds[3 * index + 1] - first);
  for (let k = 0; k < inputs.length; k++) {
    const v = run.read(io[first + k]);
    if (v === undefined) throw new SwitchyardError('RUNTIME', `partition '${unit.name}': input '${names[io[first + k]]}' is not available`);
    run.pooled?.escaped(v); // a compiled partition may hold its inputs
    inputs[k] = v;
  }
  let outs: RuntimeValue[];
  try {
    outs = await step.compiled!.run(inputs);
  } catch (err) {
    throw kernelError(step, err);
  }
  const outFirst = bounds[3 * index + 1];
  const expected = bounds[3 * index + 2] - outFirst;
  if (outs.length !== expected) throw kernelError(step, new Error(`returned ${outs.length} outputs, expected ${expected}`));
  for (let k = 0; k < outs.length; k++) run.values[io[outFirst + k]] = outs[k];
  run.env.profiler?.record({ name: unit.name, op: 'FusedPartition', ep: unit.ep.name, start: started, end: performance.now(), inputs: shapesOf(inputs), outputs: shapesOf(outs) });
}

/** Runs one kernel; returns a promise only when the kernel is asynchronous. */
function runKernel(index: number, run: PlanRun, started: number): Promise<void> | undefined {
  const program = run.program;
  const { io, bounds } = program;
  const first = bounds[3 * index];
  const inputs = new Array<RuntimeValue | undefined>(bounds[3 * index + 1] - first);
  for (let k = 0; k < inputs.length; k++) {
    const s = io[first + k];
    inputs[k] = s < 0 ? undefined : run.read(s);
  }
  const node = program.nodes[index]!;
  const outFirst = bounds[3 * index + 1];
  const ctx = new NodeRunContext(node, inputs, run.env.threads, run, outFirst, bounds[3 * index + 2] - outFirst, run, program.renames[index]);
  let result: RuntimeValue[] | Promise<RuntimeValue[]>;
  try {
    result = program.kernels[index]!.run(ctx);
  } catch (err) {
    throw kernelError(run.plan.steps[index] as KernelStep, err);
  }
  // Kernels return arrays, or promises of them: the array test is the cheaper one.
  if (!Array.isArray(result) && result instanceof Promise) {
    return result.then(
      (outs) => finishKernel(index, ctx, outs, run, started),
      (err: unknown) => {
        throw kernelError(run.plan.steps[index] as KernelStep, err);
      },
    );
  }
  finishKernel(index, ctx, result, run, started);
  return undefined;
}

/** Stores a kernel's outputs (detached from arena memory they alias) and records the profile event. */
function finishKernel(index: number, ctx: NodeRunContext, outs: RuntimeValue[], run: PlanRun, started: number): void {
  const { io, bounds } = run.program;
  const first = bounds[3 * index + 1];
  const declared = bounds[3 * index + 2] - first;
  if (outs.length < declared) {
    for (let k = outs.length; k < declared; k++) {
      if (io[first + k] >= 0) throw kernelError(run.plan.steps[index] as KernelStep, new Error(`returned ${outs.length} outputs, the node declares ${declared}`));
    }
  }
  const arena = run.arena;
  const values = run.values;
  const pooled = run.pooled;
  for (let k = 0; k < declared; k++) {
    const s = io[first + k];
    if (s < 0) continue;
    const v = arena ? detachFromArena(outs[k], arena, ctx.arenaOutput(k)) : outs[k];
    values[s] = v;
    pooled?.stored(v);
  }
  const profiler = run.env.profiler;
  if (profiler) {
    const step = run.plan.steps[index] as KernelStep;
    const node = ctx.node;
    profiler.record({
      name: nodeLabel(node),
      op: node.opType,
      ep: step.unit.ep.name,
      implementation: step.implementation,
      start: started,
      end: performance.now(),
      inputs: shapesOf(ctx.inputs),
      outputs: shapesOf(outs),
    });
  }
}
