export { RocmExecutionProvider, executionProviderFactory } from './rocm-provider.js';
export {
  resolveRocmOptions,
  ROCM_OPTION_TYPES,
  ROCM_OPTION_DEFAULTS,
  type RocmProviderOptions,
  type ResolvedRocmOptions,
  type ArenaExtendStrategy,
  type ConvAlgoSearch,
} from './rocm-options.js';
export { ROCM_KERNEL_TABLE, type RocmKernelRow } from './kernel-table.js';
export { rocmKernelDefs, rocmCapability, groupRegions } from './capability.js';
export { buildPlanDescription, fp16Eligible, type PlanDescription, type PlanBuffer, type PlanStepDescription, type PlanBuildOptions } from './plan/plan-description.js';
export { encodeStep, type StepSpec } from './plan/step-encoders.js';
export { RocmPartition, concreteGraph, concretePartition, type ConcretePartition } from './rocm-partition.js';
export type { NativeExecutionPlan, PlanBinding } from './plan/native-plan.js';
