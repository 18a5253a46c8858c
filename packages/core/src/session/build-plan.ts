/**
 * From a graph and ready EPs to an execution plan: partition, insert copies, build each node's kernel
 * once, compile fused partitions, plan subgraphs, and lay out the host arena.
 */
import { SwitchyardError } from '../errors.js';
import type { ExecutionProvider } from '../ep/execution-provider.js';
import { kernelInitFor } from './kernel-init.js';
import { nodeLabel, subgraphsOf, type Graph } from '../ir/graph.js';
import { constantResolver, enclosingGraphs } from '../ir/constants.js';
import { deviceOf, insertCopies, type UnitStep } from '../partition/copy-insertion.js';
import { extractPartition } from '../partition/extract-partition.js';
import { partitionGraph } from '../partition/partition-graph.js';
import { placeByCost } from '../partition/cost-placement.js';
import { estimateFlops } from '../shape-inference/index.js';
import type { KernelRegistry } from '../registry/kernel-registry.js';
import type { Tensor } from '../tensor/tensor.js';
import type { ExecutionPlan, KernelStep, Step } from './execution-plan.js';
import { planHostArena } from './host-arena.js';
import { ConstantReleaser, type ConstantRelease } from './release-constants.js';
import { DEFAULT_MAX_TENSOR_BYTES } from './session-options.js';

export interface PlanOptions {
  providers: readonly ExecutionProvider[];
  registry: KernelRegistry;
  skipped: Array<{ name: string; reason: string }>;
  /** Lay out a reusable host arena for node outputs (onnxruntime's enableMemPattern). */
  memoryPattern: boolean;
  /** Graph outputs to leave on their device (IO binding). */
  keepOnDevice?: (output: string) => boolean;
  /** The session's intra-op thread count. */
  threads: number;
  /**
   * Whether an initializer that is also a graph input is only a default the caller may override
   * (models of IR version 4 and later; the default), so kernels must not take it as a constant.
   */
  initializerInputsOverride?: boolean;
  /**
   * Initializers every reader has copied for itself (`Kernel.releasedConstants`): kept (default), dropped
   * from the graph, or dropped and their buffers freed (only when the session owns the model's data).
   */
  releaseConstants?: ConstantRelease;
  /** `'cost'`: move cheap device islands to the host when their copies cost more than they save (SessionOptions.partitioning). */
  partitioning?: 'first-capable' | 'cost';
  /** Values over this many bytes get no arena slot (SessionOptions.maxTensorBytes; default DEFAULT_MAX_TENSOR_BYTES). */
  maxTensorBytes?: number;
}

type ConstantOf = (name: string) => Tensor | undefined;

/**
 * Inputs that are constants (initializers of this graph or an enclosing one that no graph input
 * overrides), by input index: a kernel may pack these once.
 */
function constantInputsOf(constantOf: ConstantOf, inputs: string[]): Map<number, Tensor> {
  const m = new Map<number, Tensor>();
  inputs.forEach((name, i) => {
    const t = name ? constantOf(name) : undefined;
    if (t) m.set(i, t);
  });
  return m;
}

async function prepareStep(graph: Graph, step: UnitStep, threads: number, constantOf: ConstantOf, keepOnDevice?: (output: string) => boolean): Promise<KernelStep> {
  const unit = step.unit;
  if (unit.kind === 'fused') {
    const partition = extractPartition(graph, unit, step.outputs, constantOf);
    const kept = keepOnDevice ? step.outputs.filter((o) => graph.outputs.some((g) => g.name === o) && keepOnDevice(o)) : [];
    if (kept.length > 0) partition.keptOnDevice = kept;
    try {
      const compiled = await unit.ep.compile!(partition);
      return { ...step, compiled, partition, implementation: 'compiled', inputRefs: [] };
    } catch (err) {
      // Out of device memory (an EP's memory limit) keeps its code: the user's answer is a larger limit, not another EP.
      const code = err instanceof SwitchyardError && err.code === 'OUT_OF_MEMORY' ? 'OUT_OF_MEMORY' : 'EP_FAILED';
      throw new SwitchyardError(code, `${unit.ep.name} could not compile partition '${unit.name}': ${(err as Error).message}`, { cause: err });
    }
  }
  const node = unit.node;
  try {
    const kernel = unit.def.create(kernelInitFor(node, graph, unit.ep, constantInputsOf(constantOf, node.inputs), threads));
    const implementation = kernel.implementation ?? unit.def.implementation ?? (deviceOf(unit.ep) === 'cpu' && unit.ep.name === 'cpu' ? 'ts' : unit.ep.name);
    const inputRefs = node.inputs.map((n) => (n ? step.rename.get(n) ?? n : ''));
    return { ...step, kernel, implementation, inputRefs };
  } catch (err) {
    throw new SwitchyardError(
      err instanceof SwitchyardError ? err.code : 'EP_FAILED',
      `${unit.ep.name} could not prepare node '${nodeLabel(node)}' (${node.opType}): ${(err as Error).message}`,
      { cause: err },
    );
  }
}

export async function buildPlan(graph: Graph, options: PlanOptions, isTopLevel = true): Promise<ExecutionPlan> {
  const firstCapable = await partitionGraph(graph, options.providers, options.registry, options.skipped);
  const partition = options.partitioning === 'cost' ? placeByCost(firstCapable, { providers: options.providers, registry: options.registry, flopsOf: estimateFlops }) : firstCapable;
  const { steps: laidOut, hostNameOf } = insertCopies(graph, partition.units, { keepOnDevice: isTopLevel ? options.keepOnDevice : undefined });
  const steps: Step[] = [];
  // Subgraph plans are built after this loop and may read outer constants: the releaser pins those.
  const releaser = new ConstantReleaser(graph, laidOut, isTopLevel ? options.releaseConstants ?? 'keep' : 'keep');
  const constantOf = constantResolver(enclosingGraphs(graph), options.initializerInputsOverride ?? true);
  for (const s of laidOut) {
    if (s.kind === 'copy') {
      steps.push(s);
      continue;
    }
    const step = await prepareStep(graph, s, options.threads, constantOf, isTopLevel ? options.keepOnDevice : undefined);
    steps.push(step);
    if (step.kernel && step.unit.kind === 'single') {
      releaser.kernelBuilt(step.unit.node.inputs, step.kernel);
      await releaser.flush();
    }
  }
  await releaser.flush(true);

  const outputs = graph.outputs.map((o) => ({ name: o.name, hostName: hostNameOf(o.name) }));

  // Subgraphs of nodes a kernel runs (CPU If/Loop/Scan) get plans of their own; a control-flow node
  // inside a compiled partition is its EP's to run (rocm inlines an If's taken branch), so none there.
  const subplans = new Map<Graph, ExecutionPlan>();
  for (const node of graph.nodes) {
    if (partition.unitOf.get(node)?.kind === 'fused') continue;
    for (const sub of subgraphsOf(node)) subplans.set(sub, await buildPlan(sub, options, false));
  }

  const plan: ExecutionPlan = { graph, partition, steps, constants: graph.initializers, outputs, subplans, arenaSlots: new Map(), arenaBytes: 0 };
  if (releaser.released.size) plan.releasedConstants = releaser.released;
  if (options.memoryPattern && isTopLevel) {
    const arena = planHostArena(plan, options.maxTensorBytes ?? DEFAULT_MAX_TENSOR_BYTES);
    plan.arenaSlots = arena.arenaSlots;
    plan.arenaBytes = arena.arenaBytes;
    plan.memoryPlan = arena.memoryPlan;
  }
  return plan;
}

/** Disposes every kernel and compiled partition of a plan and its subplans. */
export function disposePlan(plan: ExecutionPlan): void {
  for (const s of plan.steps) {
    if (s.kind === 'copy') continue;
    s.kernel?.dispose?.();
    s.compiled?.dispose?.();
  }
  for (const sub of plan.subplans.values()) disposePlan(sub);
}
