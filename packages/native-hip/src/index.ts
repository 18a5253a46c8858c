export type {
  DeviceBuffer,
  DeviceBufferConstructor,
  DeviceCountResult,
  DeviceProperties,
  ElementwiseOp,
  NativeHipBinding,
  RuntimeInfo,
} from './binding.js';
export { isNativeHipBinding } from './binding.js';
export { BINARY_OPS, UNARY_OPS } from './native-enums.generated.js';
export { BUILD_COMMAND, defaultAddonPath, loadNativeHip, nativeHipBinding, type LoadNativeHipOptions, type NativeHipLoadResult } from './load-native.js';
export { explainNoDevice, gatherGpuFacts, type GpuSystemFacts } from './gpu-diagnosis.js';
export { probeDevices, type GpuProbe, type ProbeOptions, type UsableDevice } from './devices.js';
export type {
  AlgoCacheKind,
  AlgoCacheStats,
  ArenaExtendStrategy,
  BlasGemmOptions,
  BlasPreparedGemmOptions,
  BlasPreparedGemmResult,
  ConvAlgoSearch,
  DeviceArena,
  DeviceArenaConstructor,
  DeviceArenaOptions,
  DeviceArenaStats,
  DnnBatchNormOptions,
  DnnConvOptions,
  DnnPoolOptions,
  Event,
  EventConstructor,
  FakeArena,
  GemmDataType,
  NativeHipRuntimeBinding,
  SeamInfo,
  Stream,
} from './binding-runtime.js';
