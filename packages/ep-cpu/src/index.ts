export { CpuExecutionProvider, executionProviderFactory, type CpuProviderOptions, type NativeRuntime } from './cpu-provider.js';
export { typescriptKernels } from './register-all.js';
