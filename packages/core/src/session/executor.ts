/**
 * Walks an execution plan for one run. Each run has its own value map and arena, so concurrent runs
 * of one session never share mutable state. Long runs yield to the event loop between steps.
 */
import { SwitchyardError } from '../errors.js';
import { nodeLabel, type Graph } from '../ir/graph.js';
import type { CopyStep } from '../partition/copy-insertion.js';
import type { RuntimeValue } from '../registry/kernel-def.js';
import { Tensor } from '../tensor/tensor.js';
import type { ExecutionPlan, KernelStep } from './execution-plan.js';
import type { Profiler } from './profiler.js';
import { NodeRunContext } from './run-context.js';

export interface RunEnvironment {
  threads: number;
  profiler?: Profiler;
  /** Takes an arena buffer of at least `bytes` for a run; `release` gives it back. */
  acquireArena(bytes: number): ArrayBuffer | undefined;
  releaseArena(buffer: ArrayBuffer): void;
  /** Largest time (ms) the executor may hold the event loop before yielding. */
  sliceMs: number;
  /** Checked between steps; a released session stops runs early. */
  checkAlive(): void;
}

export type Lookup = (name: string) => RuntimeValue | undefined;

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function shapesOf(values: readonly (RuntimeValue | undefined)[]): string[] {
  return values.map((v) => (v instanceof Tensor ? `${v.type}[${v.dims.join(',')}]` : v === null ? 'none' : Array.isArray(v) ? `seq(${v.length})` : ''));
}

function kernelError(step: KernelStep, err: unknown): SwitchyardError {
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

async function runCopy(step: CopyStep, lookup: Lookup, values: Map<string, RuntimeValue>): Promise<void> {
  const v = lookup(step.source);
  if (!(v instanceof Tensor)) {
    throw new SwitchyardError('RUNTIME', `cannot copy '${step.source}' from ${step.from} to ${step.to}: only tensors cross devices`);
  }
  const copy = step.to === 'cpu' ? step.ep.copyToHost?.(v) : step.ep.copyToDevice?.(v);
  if (!copy) throw new SwitchyardError('EP_FAILED', `${step.ep.name} cannot copy tensors ${step.to === 'cpu' ? 'to the host' : 'to its device'}`);
  values.set(step.target, await copy);
}

/** Runs `plan` with `feeds` (by graph input name); returns the graph outputs in order. */
export async function executePlan(
  plan: ExecutionPlan,
  feeds: ReadonlyMap<string, RuntimeValue>,
  env: RunEnvironment,
  outer?: Lookup,
): Promise<RuntimeValue[]> {
  const values = new Map<string, RuntimeValue>(feeds);
  const lookup: Lookup = (name) => {
    const v = values.get(name);
    return v !== undefined || values.has(name) ? v : plan.constants.get(name) ?? outer?.(name);
  };
  const arena = plan.arenaBytes > 0 ? env.acquireArena(plan.arenaBytes) : undefined;
  const steps = plan.steps;
  let sliceStart = performance.now();
  try {
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i];
      env.checkAlive();
      const started = env.profiler ? performance.now() : 0;
      if (step.kind === 'copy') {
        await runCopy(step, lookup, values);
        env.profiler?.record({ name: `copy ${step.source}`, op: 'MemcpyTo' + (step.to === 'cpu' ? 'Host' : 'Device'), ep: step.ep.name, start: started, end: performance.now(), inputs: [], outputs: [] });
      } else if (step.unit.kind === 'fused') {
        await runFused(step, lookup, values, env, started);
      } else {
        // Most kernels finish synchronously: awaiting only real promises keeps per-node overhead low.
        const pending = runKernel(step, plan, lookup, values, env, arena, started);
        if (pending) await pending;
      }
      for (const name of plan.freeAfter[i]) {
        const v = values.get(name);
        // Feeds belong to the caller (a bound device tensor stays valid after the run).
        if (v instanceof Tensor && v.location !== 'cpu' && !feeds.has(name)) v.dispose();
        values.delete(name);
      }
      const now = performance.now();
      if (now - sliceStart > env.sliceMs) {
        await yieldToEventLoop();
        sliceStart = performance.now();
      }
    }
    return plan.outputs.map((o) => {
      const v = lookup(o.hostName);
      if (v === undefined) throw new SwitchyardError('RUNTIME', `graph output '${o.name}' was not produced`);
      return v;
    });
  } finally {
    if (arena) env.releaseArena(arena);
  }
}

async function runFused(step: KernelStep, lookup: Lookup, values: Map<string, RuntimeValue>, env: RunEnvironment, started: number): Promise<void> {
  const unit = step.unit as Extract<KernelStep['unit'], { kind: 'fused' }>;
  // compile() was promised inputs in `inputNames` order, which leaves out the initializers the
  // partition carries itself (step.inputs lists every value the unit reads).
  const names = step.partition ? step.partition.inputNames.map((n) => step.rename.get(n) ?? n) : step.inputs;
  const inputs = names.map((n) => {
    const v = lookup(n);
    if (v === undefined) throw new SwitchyardError('RUNTIME', `partition '${unit.name}': input '${n}' is not available`);
    return v;
  });
  let outs: RuntimeValue[];
  try {
    outs = await step.compiled!.run(inputs);
  } catch (err) {
    throw kernelError(step, err);
  }
  if (outs.length !== step.outputs.length) throw kernelError(step, new Error(`returned ${outs.length} outputs, expected ${step.outputs.length}`));
  step.outputs.forEach((name, i) => values.set(name, outs[i]));
  env.profiler?.record({ name: unit.name, op: 'FusedPartition', ep: unit.ep.name, start: started, end: performance.now(), inputs: shapesOf(inputs), outputs: shapesOf(outs) });
}

/** Runs one kernel; returns a promise only when the kernel is asynchronous. */
function runKernel(
  step: KernelStep,
  plan: ExecutionPlan,
  lookup: Lookup,
  values: Map<string, RuntimeValue>,
  env: RunEnvironment,
  arena: ArrayBuffer | undefined,
  started: number,
): Promise<void> | undefined {
  const unit = step.unit as Extract<KernelStep['unit'], { kind: 'single' }>;
  const node = unit.node;
  const refs = step.inputRefs;
  const inputs = new Array<RuntimeValue | undefined>(refs.length);
  for (let i = 0; i < refs.length; i++) inputs[i] = refs[i] ? lookup(refs[i]) : undefined;
  const ctx = new NodeRunContext({ node, inputs, arena, slots: plan.arenaSlots, threads: env.threads, plan, env, lookup, rename: step.rename });
  let result: RuntimeValue[] | Promise<RuntimeValue[]>;
  try {
    result = step.kernel!.run(ctx);
  } catch (err) {
    throw kernelError(step, err);
  }
  if (result instanceof Promise) {
    return result.then(
      (outs) => finishKernel(step, ctx, outs, values, env, arena, started),
      (err: unknown) => {
        throw kernelError(step, err);
      },
    );
  }
  finishKernel(step, ctx, result, values, env, arena, started);
  return undefined;
}

/** Stores a kernel's outputs (detached from arena memory they alias) and records the profile event. */
function finishKernel(
  step: KernelStep,
  ctx: NodeRunContext,
  outs: RuntimeValue[],
  values: Map<string, RuntimeValue>,
  env: RunEnvironment,
  arena: ArrayBuffer | undefined,
  started: number,
): void {
  const node = ctx.node;
  const declared = node.outputs.length;
  if (outs.length < declared && node.outputs.slice(outs.length).some((o) => o !== '')) {
    throw kernelError(step, new Error(`returned ${outs.length} outputs, the node declares ${declared}`));
  }
  for (let i = 0; i < declared; i++) {
    const name = node.outputs[i];
    if (name) values.set(name, detachFromArena(outs[i], arena, ctx.arenaOutput(i)));
  }
  if (env.profiler) {
    env.profiler.record({
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

/** Runs a subgraph of `plan` for a control-flow node; outer-scope names resolve through `lookup`. */
export function runSubgraphOf(
  plan: ExecutionPlan,
  env: RunEnvironment,
  graph: Graph,
  feeds: ReadonlyMap<string, RuntimeValue>,
  lookup: Lookup,
  owner: string,
): Promise<RuntimeValue[]> {
  const sub = plan.subplans.get(graph);
  if (!sub) return Promise.reject(new SwitchyardError('RUNTIME', `no plan for subgraph '${graph.name}' of '${owner}'`));
  return executePlan(sub, feeds, env, lookup);
}
