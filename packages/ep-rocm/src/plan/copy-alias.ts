/**
 * Byte copies as aliases. Reshape, Flatten, Squeeze, Unsqueeze, Identity and inference-time Dropout
 * encode as Copy steps; a copy into a temp buffer can instead give that buffer its input's memory under
 * its own dims, and the step goes. BERT-base has 50 of them per run (the Q/K/V head splits and merges),
 * each a kernel launch and a pass over a [128, 768] value.
 *
 * Safe because plan buffers are written once, by the step that makes them: a copy is kept when either
 * side is written by more than one step (an in-place step), and when its output is a graph output
 * (outputs live in their own region, which the caller reads after the run).
 */
import type { PlanBuffer, PlanStepDescription } from './plan-description.js';
import type { BufferRegion } from './nhwc-layout.js';

export interface CopyAliases {
  steps: PlanStepDescription[];
  /** Alias buffer id → the buffer whose memory it shares (never itself an alias). */
  aliasOf: Map<number, number>;
}

export function aliasCopies(steps: readonly PlanStepDescription[], buffers: readonly PlanBuffer[], region: ReadonlyMap<number, BufferRegion>): CopyAliases {
  const writers = new Map<number, number>();
  for (const s of steps) for (const id of s.outputs) writers.set(id, (writers.get(id) ?? 0) + 1);
  const aliasOf = new Map<number, number>();
  const rootOf = (id: number) => aliasOf.get(id) ?? id;
  const kept: PlanStepDescription[] = [];
  for (const s of steps) {
    if (s.op === 'Copy' && s.inputs.length === 1 && s.outputs.length === 1 && s.inputs[0] >= 0) {
      const from = rootOf(s.inputs[0]);
      const to = s.outputs[0];
      const same = buffers[from].bytes === buffers[to].bytes && buffers[from].dtype === buffers[to].dtype;
      if (same && region.get(to) === 'temp' && (writers.get(to) ?? 0) === 1 && (writers.get(from) ?? 0) <= 1) {
        aliasOf.set(to, from);
        continue;
      }
    }
    kept.push(s);
  }
  return { steps: kept, aliasOf };
}
