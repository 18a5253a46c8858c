export { CpuExecutionProvider, executionProviderFactory, type CpuProviderOptions } from './cpu-provider.js';
export { typescriptKernels } from './register-all.js';
