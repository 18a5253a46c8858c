/**
 * Which inputs of a GPU partition decide its shapes by their contents: a Reshape/Expand/Slice/…
 * target computed outside the partition (on the CPU, or by a Shape chain inference could not fold
 * across the partition's edge) arrives as a small int64 input. Plans are built per concrete input
 * shape; for these inputs the plan also needs their values, so they become known values of the
 * partition's shape inference and part of the plan's key.
 */
import type { DataType, FusedPartition, Node } from '@switchyard/core';

/** Input slots whose contents are a shape, axes, pads, sizes or counts. */
const SHAPE_SLOTS: Readonly<Record<string, readonly number[]>> = {
  Reshape: [1],
  Expand: [1],
  Tile: [1],
  ConstantOfShape: [0],
  Slice: [1, 2, 3, 4],
  Squeeze: [1],
  Unsqueeze: [1],
  Pad: [1, 3],
  Resize: [1, 2, 3],
  Range: [0, 1, 2],
  TopK: [1],
  Split: [1],
  OneHot: [1],
  ReduceSum: [1],
  ReduceMean: [1],
  ReduceMax: [1],
  ReduceMin: [1],
  ReduceSumSquare: [1],
  ReduceL1: [1],
  ReduceL2: [1],
  ReduceLogSumExp: [1],
  // The condition of an If the plan decides (if-branches.ts).
  If: [0],
};
/** Their outputs depend on the input's shape only, so the walk back stops there. */
const SHAPE_ONLY = new Set(['Shape', 'Size']);
/** The most elements a shape-deciding input may have (a shape or an axes list, not data). */
export const MAX_SHAPE_INPUT_ELEMENTS = 64;
/**
 * Types a shape-deciding input can have: shape arithmetic is int64 (int32 after a Cast), and the
 * conditions that pick between shapes (an exporter's `Where(heads differ, …)`, an If) are bool.
 */
export const SHAPE_INPUT_TYPES: ReadonlySet<DataType> = new Set(['int64', 'int32', 'bool']);

/** Indices into `partition.inputNames` whose values reach a shape slot inside the partition. */
export function shapeDecidingInputs(partition: FusedPartition): number[] {
  const producer = new Map<string, Node>();
  for (const node of partition.nodes) for (const o of node.outputs) if (o) producer.set(o, node);
  const needed = new Set<string>();
  const pending: string[] = [];
  for (const node of partition.nodes) {
    for (const slot of SHAPE_SLOTS[node.opType] ?? []) {
      const name = node.inputs[slot];
      if (name) pending.push(name);
    }
  }
  while (pending.length) {
    const name = pending.pop()!;
    if (needed.has(name)) continue;
    needed.add(name);
    const node = producer.get(name);
    if (!node || SHAPE_ONLY.has(node.opType)) continue;
    for (const input of node.inputs) if (input) pending.push(input);
  }
  return partition.inputNames.flatMap((name, i) => (needed.has(name) ? [i] : []));
}
