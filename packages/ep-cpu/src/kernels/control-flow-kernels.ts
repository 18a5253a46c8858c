/** Control-flow kernels: they run subgraphs through the session (each subgraph has its own plan). */
import type { KernelDef } from '@switchyard/core';
import { ifKernel } from './If.js';
import { loopKernel } from './Loop.js';
import { scanKernel, scan8Kernel } from './Scan.js';
import { sequenceMapKernel } from './SequenceMap.js';

export const controlFlowKernels: KernelDef[] = [ifKernel, loopKernel, scan8Kernel, scanKernel, sequenceMapKernel];
