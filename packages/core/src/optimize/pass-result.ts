/** What one run of a pass on one graph did; the driver merges these into `PassReport`s. */
import type { PassReport } from './types.js';

export type PassResult = Pick<PassReport, 'nodes' | 'initializersAdded' | 'initializersRemoved' | 'skipped'>;

export function emptyResult(): PassResult {
  return { nodes: [], initializersAdded: [], initializersRemoved: [], skipped: [] };
}

/** Whether the pass changed the graph (skips alone are not changes). */
export function changedGraph(r: PassResult): boolean {
  return r.nodes.length > 0 || r.initializersAdded.length > 0 || r.initializersRemoved.length > 0;
}
