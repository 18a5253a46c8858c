/** Shorthand for the tensor family's kernel definitions: CPU EP, default ONNX domain, TypeScript implementation. */
import { defineKernel, type KernelDef } from '@switchyard/core';

export function tensorKernel(def: Omit<KernelDef, 'ep' | 'domain'>): KernelDef {
  return defineKernel({ ep: 'cpu', domain: '', implementation: 'ts', ...def });
}
