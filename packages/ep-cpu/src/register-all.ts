/** Every TypeScript kernel of the CPU EP, one list per op family (each op in its own file under kernels/). */
import type { KernelDef } from '@switchyard/core';
import { mathKernels } from './kernels/math-kernels.js';
import { tensorKernels } from './kernels/tensor-kernels.js';
import { nnKernels } from './kernels/nn-kernels.js';
import { controlFlowKernels } from './kernels/control-flow-kernels.js';
import { fusedKernels } from './kernels/fused-kernels.js';
import { extraKernels } from './kernels/extra-kernels.js';
import { mlKernels } from './kernels/ml-kernels.js';

export const typescriptKernels: readonly KernelDef[] = [...mathKernels, ...tensorKernels, ...nnKernels, ...controlFlowKernels, ...extraKernels, ...mlKernels, ...fusedKernels];
