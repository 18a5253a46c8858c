export { runKernel, toAttribute, type PlainAttribute, type RunKernelOptions } from './kernel-harness.js';
