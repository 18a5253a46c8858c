/**
 * What the ROCm EP's HIP kernels cover, as data: op, opset range, dtypes and the constraint the
 * kernel imposes. The EP turns these rows into kernel definitions only when a device is usable, and
 * a row is listed only when a kernel in `@switchyard/native-hip` runs it (first cut: the
 * broadcasting-free elementwise fast path; broadcasting, more ops and dtypes come with later kernels).
 */
import type { DataType } from '@switchyard/core';

export type RocmKernelName = 'elementwise';

export interface RocmKernelRow {
  opType: string;
  /** '' for the default ONNX domain. */
  domain: string;
  /** First opset this row serves; earlier versions had different semantics (legacy broadcast attributes). */
  sinceVersion: number;
  /** Last opset served; open when the op has not changed since. */
  endVersion?: number;
  /** Element types of every input and output (the ops here are homogeneous). */
  dtypes: readonly DataType[];
  /** The native entry point that runs it. */
  kernel: RocmKernelName;
  /** Inputs the kernel reads (1 for unary ops). */
  arity: 1 | 2;
  /** What the kernel requires beyond op/opset/dtype, said as the decline reason when unmet. */
  constraint?: 'same-static-shape';
}

export const ROCM_KERNEL_TABLE: readonly RocmKernelRow[] = [
  { opType: 'Add', domain: '', sinceVersion: 7, dtypes: ['float32'], kernel: 'elementwise', arity: 2, constraint: 'same-static-shape' },
  { opType: 'Mul', domain: '', sinceVersion: 7, dtypes: ['float32'], kernel: 'elementwise', arity: 2, constraint: 'same-static-shape' },
  { opType: 'Relu', domain: '', sinceVersion: 6, dtypes: ['float32'], kernel: 'elementwise', arity: 1 },
];
