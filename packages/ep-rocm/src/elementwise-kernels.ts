/**
 * Kernel definitions for the `elementwise` rows of the kernel table, run by native-hip's
 * `elementwise` entry point on the EP's device tensors.
 */
import { defineKernel, type Graph, type KernelDef, type Node } from '@switchyard/core';
import type { ElementwiseOp, NativeHipBinding } from '@switchyard/native-hip';
import type { RocmDeviceMemory } from './device-memory.js';
import type { RocmKernelRow } from './kernel-table.js';

/** Both operands have the same fully static shape: the only case the fast path handles yet. */
function sameStaticShape(node: Node, graph: Graph): true | string {
  const [a, b] = node.inputs.map((name) => graph.typeOf(name));
  const static_ = (t: typeof a) => t?.kind === 'tensor' && t.shape !== undefined && t.shape.every((d) => typeof d === 'number');
  if (!static_(a) || !static_(b)) return 'needs static input shapes (dynamic shapes come with the broadcasting kernels)';
  const sa = a?.kind === 'tensor' ? a.shape : undefined;
  const sb = b?.kind === 'tensor' ? b.shape : undefined;
  if (JSON.stringify(sa) !== JSON.stringify(sb)) return `operands have different shapes (${JSON.stringify(sa)} vs ${JSON.stringify(sb)}); broadcasting is not implemented on rocm yet`;
  return true;
}

export function elementwiseKernel(row: RocmKernelRow, binding: NativeHipBinding, memory: RocmDeviceMemory): KernelDef {
  const op = row.opType as ElementwiseOp;
  return defineKernel({
    ep: 'rocm',
    domain: row.domain,
    opType: row.opType,
    sinceVersion: row.sinceVersion,
    endVersion: row.endVersion,
    typeConstraints: { T: row.dtypes },
    supports: row.constraint === 'same-static-shape' ? sameStaticShape : undefined,
    create: () => ({
      implementation: 'hip',
      run: (ctx) => {
        const a = ctx.input(0);
        const b = row.arity === 2 ? ctx.input(1) : undefined;
        const out = memory.allocate(a.type, a.dims);
        binding.elementwise(op, memory.bufferOf(a, row.opType), b ? memory.bufferOf(b, row.opType) : null, out.buffer, a.size);
        return [out.tensor];
      },
    }),
  });
}
