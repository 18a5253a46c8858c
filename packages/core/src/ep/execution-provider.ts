/**
 * The execution-provider contract. An EP names itself, says which nodes it can take, and runs them.
 * Only `name` and either `kernels` or `getCapability` are required; everything else has a default.
 */
import type { Graph, Node } from '../ir/graph.js';
import type { Tensor } from '../tensor/tensor.js';
import type { DeclineReason, KernelDef, RuntimeValue } from '../registry/kernel-def.js';
import type { KernelLookup } from '../registry/kernel-registry.js';
import type { GraphPass } from '../optimize/types.js';

/** A unit an EP takes: one node run by a kernel, or several fused and compiled together. */
export interface Capability {
  /** `single`: one node, run by a registered kernel. `fused`: a subgraph handed to `compile()`. */
  kind: 'single' | 'fused';
  nodes: Node[];
  /** Label for the placement (e.g. `migraphx_partition_0`). */
  name?: string;
}

export interface CapabilityResult {
  capabilities: Capability[];
  /** Why nodes were not taken (nodes absent here and from capabilities were declined without a reason). */
  declined: Map<Node, DeclineReason>;
}

/** What `getCapability` gets besides the graph. */
export interface CapabilityContext {
  /** Kernel lookup restricted to this EP's registered kernels. */
  lookup: KernelLookup;
  /** Nodes already assigned to an earlier EP: an EP cannot take these. */
  assigned: ReadonlySet<Node>;
}

/** A fused partition's boundary and nodes, given to `compile()`. */
export interface FusedPartition {
  name: string;
  /** A standalone graph holding just the partition: its inputs, outputs and the initializers it uses. */
  graph: Graph;
  nodes: Node[];
  inputNames: string[];
  outputNames: string[];
}

export interface CompiledPartition {
  /** Runs the partition: inputs in `inputNames` order, outputs in `outputNames` order. */
  run(inputs: RuntimeValue[]): Promise<RuntimeValue[]> | RuntimeValue[];
  dispose?(): void;
}

export interface ExecutionProvider {
  readonly name: string;
  /**
   * Where this EP's tensors live: `cpu` for host memory, else a device name like `rocm:0`.
   * Values crossing between EPs on different devices get copy nodes.
   */
  readonly device?: string;
  /** Kernels this EP registers; the default `getCapability` looks nodes up among them. */
  readonly kernels?: readonly KernelDef[];
  /**
   * Graph rewrites this EP contributes at the `extended`/`all` optimization levels (fusions such as
   * Conv+Relu). They run before partitioning; fused ops they create should have a kernel on this EP.
   */
  readonly graphPasses?: readonly GraphPass[];
  /** Async set-up (open the device, load libraries). Throwing makes the EP skipped, with the message as reason. */
  init?(): Promise<void>;
  /** Nodes this EP takes. Default: each node one of `kernels` serves. */
  getCapability?(graph: Graph, ctx: CapabilityContext): CapabilityResult | Promise<CapabilityResult>;
  /** Compiles a fused capability. Required when `getCapability` returns fused capabilities. */
  compile?(partition: FusedPartition): Promise<CompiledPartition>;
  /** Copies a host tensor to this EP's device. Required when `device` is not `cpu`. */
  copyToDevice?(tensor: Tensor): Promise<Tensor>;
  /** Copies a device tensor of this EP back to the host. */
  copyToHost?(tensor: Tensor): Promise<Tensor>;
  /** Waits for queued device work. */
  sync?(): Promise<void>;
  dispose?(): Promise<void> | void;
  /** A short line for `inspect` about what this EP found (device name, library versions). */
  describe?(): string;
}

/** Options object naming an EP: `{ name: 'rocm', deviceId: 1 }`. */
export interface ExecutionProviderOption {
  name: string;
  [option: string]: unknown;
}

/** What `executionProviders` accepts: names, option objects, or EP instances. */
export type ExecutionProviderConfig = string | ExecutionProviderOption | ExecutionProvider;
