export { SwitchyardError, AbortError, fromNativeError, isErrorCode, type ErrorCode } from './errors.js';
export { env, LOG_LEVELS, type Env, type LogLevel } from './env.js';
export * from './tensor/data-type.js';
export { Tensor, elementCount, MAX_TENSOR_ELEMENTS, type TensorLocation, type DeviceData } from './tensor/tensor.js';
export * from './tensor/float16.js';
export * from './tensor/small-floats.js';
export * from './tensor/sub-byte.js';
export * from './ir/graph.js';
export { AttributeReader } from './ir/attributes.js';
export { sortGraphTopologically, type OuterNames } from './ir/topological-order.js';
export { findMalformation, namesDefinedBy } from './ir/well-formed.js';
export * from './ops/schemas.js';
export * from './registry/kernel-def.js';
export { KernelRegistry, type KernelLookup, type LookupResult } from './registry/kernel-registry.js';
export * from './ep/execution-provider.js';
export {
  registerExecutionProvider,
  registeredExecutionProviders,
  resolveExecutionProviders,
  packageForProvider,
  providerConfigName,
  installedProviderNames,
  ortFlag,
  ortInteger,
  type ExecutionProviderFactory,
  type ExecutionProviderOptionType,
  type OptionAlias,
  type ResolvedProviders,
} from './ep/ep-registry.js';
export { partitionGraph, defaultCapability, type PartitionPlan, type PartitionUnit, type DeclineRecord } from './partition/partition-graph.js';
export type { Placement, NodePlacement, ProviderSummary, CopyPlacement, FlopShapes } from './partition/placement.js';
export { DEFAULT_LINK_BANDWIDTH, DEFAULT_COPY_LATENCY_S, DEFAULT_DEVICE_FLOPS, DEFAULT_HOST_FLOPS } from './partition/cost-model.js';
export * from './onnx/index.js';
export * from './shape-inference/index.js';
export * from './optimize/index.js';
export * from './memory/index.js';
export {
  InferenceSession,
  type ValueMetadata,
  type FeedsType,
  type FetchesType,
  type ReturnType as InferenceSessionReturnType,
} from './session/inference-session.js';
export { DEFAULT_MAX_TENSOR_BYTES, type SessionOptions, type RunOptions } from './session/session-options.js';
export { HOST_BUFFER_MIN_BYTES } from './session/run-context.js';
export type { OptimizationSummary } from './session/optimize-model.js';
export type { SessionMemoryPlan, DeviceMemory, ShapesByInput } from './session/memory-estimate.js';
export type { ProfileEvent } from './session/profiler.js';
export type { CreationTimings, RunTimings } from './session/timings.js';
export * from './validate/index.js';
