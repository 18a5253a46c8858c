/**
 * Offset assignment for one arena: greedy by size, best fit. Values are placed largest first (ties:
 * earlier start, then name, so plans are deterministic); each goes into the smallest gap, among the
 * address ranges of already-placed values whose lifetimes overlap its own, that holds it, or above
 * them all when no gap does. Largest-first keeps big buffers at low offsets where later small values
 * fill the holes between them, which packs better than time order on typical networks (the approach
 * of TFLite's "greedy by size" planner). Placed values are indexed by the steps they cover, so finding
 * the values that conflict with a new one costs the live values over its lifetime, not all values.
 *
 * Two values conflict when their inclusive step ranges intersect: a node's inputs and outputs are
 * live at the same step, so an output never aliases an input of its own node.
 */
export interface OffsetRequest {
  name: string;
  /** Bytes reserved, already rounded up to the alignment. */
  bytes: number;
  start: number;
  end: number;
}

export interface OffsetAssignment {
  offsets: Map<string, number>;
  arenaBytes: number;
}

interface Placed {
  offset: number;
  bytes: number;
  /** The request that last collected this value as a conflict (to list each conflict once). */
  seenBy: number;
}

export function assignOffsets(requests: readonly OffsetRequest[]): OffsetAssignment {
  const order = [...requests].sort((a, b) => b.bytes - a.bytes || a.start - b.start || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const lastStep = requests.reduce((m, r) => Math.max(m, r.end), -1);
  const liveAt: Placed[][] = Array.from({ length: lastStep + 1 }, () => []);
  const offsets = new Map<string, number>();
  let arenaBytes = 0;

  order.forEach((r, k) => {
    const conflicts: Placed[] = [];
    for (let step = r.start; step <= r.end; step++) {
      for (const p of liveAt[step]) {
        if (p.seenBy === k) continue;
        p.seenBy = k;
        conflicts.push(p);
      }
    }
    conflicts.sort((a, b) => a.offset - b.offset);
    let best: number | undefined;
    let bestGap = Infinity;
    let cursor = 0;
    for (const c of conflicts) {
      const gap = c.offset - cursor;
      if (gap >= r.bytes && gap < bestGap) {
        best = cursor;
        bestGap = gap;
      }
      cursor = Math.max(cursor, c.offset + c.bytes);
    }
    const offset = best ?? cursor;
    offsets.set(r.name, offset);
    arenaBytes = Math.max(arenaBytes, offset + r.bytes);
    // Zero-byte values occupy no address range, so they never conflict.
    if (r.bytes > 0) {
      const placed: Placed = { offset, bytes: r.bytes, seenBy: k };
      for (let step = r.start; step <= r.end; step++) liveAt[step].push(placed);
    }
  });
  return { offsets, arenaBytes };
}
