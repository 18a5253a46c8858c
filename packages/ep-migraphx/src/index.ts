export { MigraphxExecutionProvider, executionProviderFactory, type MigraphxInitOptions } from './migraphx-provider.js';
export {
  resolveMigraphxOptions,
  MIGRAPHX_OPTION_TYPES,
  migraphxOptionDefaults,
  defaultBuckets,
  type MigraphxProviderOptions,
  type ResolvedMigraphxOptions,
  type MigraphxTarget,
  type DynamicBatchOptions,
  type ResolvedDynamicBatch,
  TARGET_ENV,
} from './migraphx-options.js';
export { probeMigraphx, libraryCandidates, LIBRARY_ENV, type MigraphxProbe } from './migraphx-library.js';
export { STATIC_MIGRAPHX_ONNX_OPERATORS, migraphxOperators } from './static-op-table.js';
export { migraphxCapability, nodeDeclineReason, MIGRAPHX_TENSOR_TYPES, type CapabilityPolicy } from './capability/migraphx-capability.js';
export { groupPartitions } from './capability/group-partitions.js';
export { serializePartition, partitionModel, irVersionForOpset } from './serialize/partition-model.js';
export { MigraphxPartition, type PartitionRuntime } from './migraphx-partition.js';
export type {
  ProgramCompiler,
  ProgramSerializer,
  CompiledProgram,
  CompileRequest,
  CompilerIdentity,
  CalibrationSet,
  Quantization,
} from './program/program-compiler.js';
export { NativeProgramCompiler, NativeProgramSerializer, NativeCompiledProgram } from './program/native-compiler.js';
export { checkLibraryVersion, SUPPORTED_ROCM, SUPPORTED_SONAME_MAJOR } from './program/library-version.js';
export { deviceArchitecture, gfxName } from './program/device-arch.js';
export { ProgramCache, type CacheEvent } from './cache/program-cache.js';
export { cacheKey, cacheKeyParts, CACHE_FORMAT_VERSION, type CacheKeyParts } from './cache/cache-key.js';
export type {
  MigraphxLibraryReport,
  LibraryAttempt,
  MigraphxNativeBinding,
  NativeProgram,
  NativeTensor,
  NativeCompileOptions,
} from './native/binding.js';
export { loadMigraphxAddon, migraphxAddon, BUILD_COMMAND, type LoadMigraphxAddonOptions } from './native/load-native.js';
