/**
 * What one compiled program of a partition will hold on the device, estimated before it is compiled.
 * MIGraphX's C API has no memory query (as of 2.16) and, with offload_copy, allocates by itself: each
 * program keeps its own copy of the weights (literals), device buffers for its parameters and results,
 * and a scratch area its memory coloring lays out. So the figure is the partition's initializers, its
 * inputs and outputs at the concrete shapes, and the core's lifetime planner over the values inside
 * (shapes inferred from those inputs), all at the precision the quantization gives float32 values.
 * MIGraphX's own coloring and fusions may do better or worse; the estimate is what can be known.
 */
import { BYTES_PER_ELEMENT, Graph, inferShapes, planMemory, type DataType, type Tensor, type ValueType } from '@switchyard/core';
import type { Quantization } from '../program/program-compiler.js';

export interface ProgramMemory {
  weightsBytes: number;
  /** Parameters and results: device copies offload_copy makes of every input and output. */
  ioBytes: number;
  /** Peak of the values inside the program live at once (lifetime planner). */
  activationBytes: number;
  totalBytes: number;
  /** Values whose size inference could not fix, left out of the figure. */
  unsized: string[];
}

/** Bytes per element on the device: float32 becomes 2 bytes under fp16/bf16 quantization. */
function elementBytes(type: DataType, quantization: Quantization): number {
  if (type === 'float32' && (quantization === 'fp16' || quantization === 'bf16')) return 2;
  return type === 'string' ? 8 : BYTES_PER_ELEMENT[type];
}

/** Initializer bytes on the device (int8 quantization is counted at the stored size: an upper bound). */
export function weightBytes(weights: Iterable<Tensor>, quantization: Quantization): number {
  let bytes = 0;
  for (const t of weights) bytes += t.size * elementBytes(t.type, quantization);
  return bytes;
}

function sizeOfType(type: ValueType | undefined, quantization: Quantization): number | undefined {
  if (type?.kind !== 'tensor' || !type.shape) return undefined;
  let n = 1;
  for (const d of type.shape) {
    if (typeof d !== 'number') return undefined;
    n *= d;
  }
  return n * elementBytes(type.elemType, quantization);
}

/** The estimate for `graph` (a fused partition) compiled for input `shapes`. */
export function programMemory(graph: Graph, shapes: ReadonlyMap<string, readonly number[]>, quantization: Quantization): ProgramMemory {
  const inputs = graph.inputs.map((i) => {
    const dims = shapes.get(i.name);
    return dims && i.type?.kind === 'tensor' ? { ...i, type: { kind: 'tensor' as const, elemType: i.type.elemType, shape: [...dims] } } : i;
  });
  // A copy whose inputs have these shapes; inference fills its own valueInfo (declared types are kept where more specific).
  const sized = new Graph({ name: graph.name, nodes: graph.nodes, inputs, outputs: graph.outputs, initializers: graph.initializers, valueInfo: new Map(graph.valueInfo), opsetImports: graph.opsetImports });
  inferShapes(sized);
  const unsized: string[] = [];
  const sizeOf = (name: string): number | undefined => {
    const bytes = sizeOfType(sized.typeOf(name), quantization);
    if (bytes === undefined) unsized.push(name);
    return bytes;
  };
  // Inputs and outputs cross the boundary in their own types (MIGraphX converts at the edges).
  let ioBytes = 0;
  for (const v of [...inputs, ...graph.outputs]) {
    const bytes = sizeOfType(sized.typeOf(v.name), 'none');
    if (bytes === undefined) unsized.push(v.name);
    else ioBytes += bytes;
  }
  const activationBytes = planMemory(sized, { sizeOf }).devices.get('cpu')?.arenaBytes ?? 0;
  const weightsBytes = weightBytes(graph.initializers.values(), quantization);
  return { weightsBytes, ioBytes, activationBytes, totalBytes: weightsBytes + ioBytes + activationBytes, unsized };
}
