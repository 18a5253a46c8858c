export { runKernel, toAttribute, type PlainAttribute, type RunKernelOptions } from './kernel-harness.js';
export { compareTensors, compareValues, ONNX_TOLERANCE, type Tolerance } from './compare.js';
export {
  BACKEND_SUITES,
  DEFAULT_BACKEND_TEST_ROOT,
  expectationsFrom,
  listBackendTests,
  readExpectations,
  runBackendSuite,
  runBackendTest,
  type BackendOutcome,
  type BackendRunOptions,
  type BackendSummary,
  type BackendTestResult,
  type Expectations,
} from './backend-tests.js';
export { MockDeviceProvider, type MockDeviceOptions } from './mock-device-ep.js';
export { buildModel, type ModelSpec, type NodeSpec } from './build-model.js';
export { hostTestProvider } from './host-test-ep.js';
export {
  randomModel,
  compareOptimizationLevels,
  compareOutput,
  type RandomModel,
  type RandomModelOptions,
  type DifferentialOptions,
  type DifferentialResult,
} from './random-graph/index.js';
export {
  fuzzCase,
  runFuzzCase,
  runFuzzWorker,
  runFuzz,
  formatFuzzSummary,
  judgeError,
  type FuzzCase,
  type CaseResult,
  type FuzzDriverOptions,
  type FuzzFailure,
  type FuzzSummary,
} from './fuzz/index.js';
