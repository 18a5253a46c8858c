/**
 * The execution-provider contract. An EP names itself, says which nodes it can take, and runs them.
 * Only `name` and either `kernels` or `getCapability` are required; everything else has a default.
 */
import type { Graph, Node, ValueType } from '../ir/graph.js';
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
  /**
   * Outputs the session hands back to the caller on the device (graph outputs under
   * `preferredOutputLocation: 'device'`): an EP with a choice of where to write an output should put
   * these in device memory from the first run.
   */
  keptOnDevice?: string[];
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
  /**
   * Host memory for a large run output (a graph output, a value no arena slot holds): an ArrayBuffer
   * of exactly `bytes`, zero-filled when `zeroed`, or undefined to let the session allocate as usual.
   * An EP offers this when it can recycle the memory once the buffer is collected, which spares each
   * run the page faults of fresh memory and the collector the churn. The session asks the first EP in
   * its priority list that has it; only CPU tensors of at least `HOST_BUFFER_MIN_BYTES` use it.
   */
  hostBuffer?(bytes: number, zeroed: boolean): ArrayBuffer | undefined;
  /**
   * Takes back a buffer `hostBuffer` gave, before it is collected: the session calls it for a run's
   * intermediate values once their last reader has run and no other value of the run shares the buffer,
   * so the next output of the same run can reuse the memory (a model with no arena slots for its values,
   * such as one with data-dependent shapes, then peaks at what one run holds live rather than at
   * everything it allocated). The EP detaches the buffer and returns true, or does nothing and returns
   * false. Offered together with `hostBuffer`, by the same EP.
   */
  releaseHostBuffer?(buffer: ArrayBuffer): boolean;
  /**
   * Frees the idle memory `hostBuffer` keeps for reuse. The session calls it when a model whose value
   * sizes only a run could tell gets arena slots for them (after its first run at new input sizes): the
   * blocks that run took one by one would otherwise sit idle beside the new arena.
   */
  trimHostBuffers?(): void;
  /**
   * What this EP's share needs in memory, when its plans know it (session.memoryPlan). Called after
   * partitioning, never during a run; it must be cheap and must not allocate device memory.
   */
  memoryEstimate?(request: MemoryEstimateRequest): MemoryEstimate | undefined;
  /**
   * Host ↔ device copy bandwidth in bytes per second, for `partitioning: 'cost'` (measured or known).
   * Default `DEFAULT_LINK_BANDWIDTH` (partition/cost-model.ts). Unused for host EPs.
   */
  readonly linkBandwidth?: number;
  /**
   * Sustained FLOP/s this EP reaches on typical nodes, for `partitioning: 'cost'`. Default
   * `DEFAULT_DEVICE_FLOPS` for device EPs, `DEFAULT_HOST_FLOPS` for host EPs.
   */
  readonly flopsPerSecond?: number;
}

/** What `memoryEstimate()` is asked about: this EP's share of a session's graph, for given input shapes. */
export interface MemoryEstimateRequest {
  /** The session's (optimized) top-level graph. */
  graph: Graph;
  /** The nodes this EP runs, in execution order (fused partitions' nodes included). */
  nodes: readonly Node[];
  /** A value's type with the symbolic dims of this estimate bound (dims left unbound stay strings). */
  typeOf(name: string): ValueType | undefined;
}

/** An EP's own figures for `session.memoryPlan`; each is optional, and a figure left out is estimated by core. */
export interface MemoryEstimate {
  /** Peak bytes of the intermediate values its plans or compiled programs hold at once on its device. */
  activationBytes?: number;
  /** Scratch memory besides values and weights (convolution workspaces, BLAS handles' buffers, …). */
  workspaceBytes?: number;
  /**
   * Weights as the EP holds them on its device (converted to another precision, split, copied per
   * plan), when that differs from the initializers' size; core counts the initializers otherwise.
   */
  weightsBytes?: number;
}

/** Options object naming an EP: `{ name: 'rocm', deviceId: 1 }`. */
export interface ExecutionProviderOption {
  name: string;
  [option: string]: unknown;
}

/** What `executionProviders` accepts: names, option objects, or EP instances. */
export type ExecutionProviderConfig = string | ExecutionProviderOption | ExecutionProvider;
