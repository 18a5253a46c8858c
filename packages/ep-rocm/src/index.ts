export { RocmExecutionProvider, executionProviderFactory } from './rocm-provider.js';
export {
  resolveRocmOptions,
  ROCM_OPTION_DEFAULTS,
  type RocmProviderOptions,
  type ResolvedRocmOptions,
  type ArenaExtendStrategy,
  type ConvAlgoSearch,
} from './rocm-options.js';
export { ROCM_KERNEL_TABLE, type RocmKernelRow, type RocmKernelName } from './kernel-table.js';
