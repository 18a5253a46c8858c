/** The prepared form of a graph: steps with their kernels or compiled partitions, ready to run. */
import type { CompiledPartition, FusedPartition } from '../ep/execution-provider.js';
import type { Graph } from '../ir/graph.js';
import type { CopyStep, UnitStep } from '../partition/copy-insertion.js';
import type { PartitionPlan } from '../partition/partition-graph.js';
import type { Kernel } from '../registry/kernel-def.js';
import type { Tensor } from '../tensor/tensor.js';
import type { MemoryPlan } from '../memory/index.js';

export interface KernelStep extends UnitStep {
  /** For single nodes: each node input as named on this unit's device ('' where omitted), resolved once. */
  inputRefs: string[];
  kernel?: Kernel;
  compiled?: CompiledPartition;
  partition?: FusedPartition;
  /** Which implementation runs it (`ts`, `onednn`, `compiled`…), for the placement. */
  implementation: string;
}

export type Step = KernelStep | CopyStep;

/** Where a value lives in the host arena of a run. */
export interface ArenaSlot {
  offset: number;
  bytes: number;
}

export interface ExecutionPlan {
  graph: Graph;
  partition: PartitionPlan;
  steps: Step[];
  /** Initializers, shared read-only by every run. */
  constants: Map<string, Tensor>;
  /** Graph outputs in order, with the name each has on the host after copies. */
  outputs: Array<{ name: string; hostName: string }>;
  /** Plans of subgraphs held by control-flow nodes. */
  subplans: Map<Graph, ExecutionPlan>;
  /** Host arena layout for node outputs of known size (empty when memory patterns are off). */
  arenaSlots: Map<string, ArenaSlot>;
  arenaBytes: number;
  /** Initializers dropped after every reader packed its own copy, with their bytes. */
  releasedConstants?: Map<string, number>;
  /** The memory planner's full report (peak vs naive), when memory patterns are on. */
  memoryPlan?: MemoryPlan;
  /**
   * Set on an arena layout that lacks sizes for some host outputs (shapes no inference could state):
   * its runs record the bytes of each output they allocate outside the arena (OutputLayout.observed),
   * from which the next layout for the same sizes is planned (dynamic-arena.ts).
   */
  observeSizes?: boolean;
}
