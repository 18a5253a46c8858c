/** Renders a session's placement: EPs and their state, per-node placement with reasons, coverage. */
import type { InferenceSession, Placement } from '@switchyard/core';
import { percent, table } from './table.js';

function shortReason(kind: string, message: string): string {
  return kind === 'ep-unavailable' ? 'unavailable' : `${kind}: ${message}`;
}

export function formatProviders(placement: Placement, requested: readonly string[]): string {
  const lines: string[] = ['Execution providers (priority order)'];
  const rows: string[][] = [];
  requested.forEach((name, i) => {
    const skipped = placement.skipped.find((s) => s.name === name);
    const p = placement.providers.find((x) => x.name === name);
    if (skipped) rows.push([`${i + 1}.`, name, 'unavailable', skipped.reason]);
    else if (p) {
      const flops = placement.totalFlops ? `${percent(p.flopCoverage)} of FLOPs` : 'FLOPs unknown (dynamic shapes)';
      rows.push([`${i + 1}.`, name, `${p.nodes} nodes`, `${percent(p.nodeCoverage)} of nodes, ${flops}${p.description ? ` — ${p.description}` : ''}`]);
    }
    else rows.push([`${i + 1}.`, name, 'ready', 'took no nodes']);
  });
  lines.push(table(['', 'EP', 'state', 'detail'], rows).replace(/^/gm, '  '));
  return lines.join('\n');
}

export function formatPlacement(placement: Placement, opts: { maxNodes?: number } = {}): string {
  const max = opts.maxNodes ?? Infinity;
  const rows = placement.nodes.slice(0, max).map((n, i) => {
    const declined = n.declined
      .filter((d) => d.reason.kind !== 'ep-unavailable')
      .map((d) => `${d.ep}: ${shortReason(d.reason.kind, d.reason.message)}`)
      .join('; ');
    const unavailable = n.declined.filter((d) => d.reason.kind === 'ep-unavailable').map((d) => d.ep);
    // partitioning 'cost': a node it kept says so here (one it moved already has a 'cost' decline).
    const kept = n.reason && !n.declined.some((d) => d.reason.kind === 'cost') ? n.reason : '';
    const why = [unavailable.length ? `${unavailable.join(', ')} unavailable` : '', declined, kept].filter(Boolean).join('; ');
    return [String(i), (n.graph ? n.graph + '/' : '') + n.name, n.opType, n.ep, n.implementation + (n.partition ? ` (${n.partition})` : ''), why || '—'];
  });
  const lines = ['Placement', table(['#', 'node', 'op', 'EP', 'impl', 'why not an earlier EP'], rows, [0, 40, 0, 0, 0, 110]).replace(/^/gm, '  ')];
  if (placement.nodes.length > max) lines.push(`  … ${placement.nodes.length - max} more nodes (use \`switchyard inspect\` for all)`);
  return lines.join('\n');
}

export function formatCoverage(placement: Placement): string {
  const parts = placement.providers.map(
    (p) => `${p.name} ${p.nodes}/${placement.totalNodes} nodes (${percent(p.nodeCoverage)}), ${placement.totalFlops ? percent(p.flopCoverage) : 'n/a'} of FLOPs`,
  );
  const lines = [`Coverage: ${parts.join('; ')}`];
  const shapes = flopShapesLine(placement);
  if (shapes) lines.push(shapes);
  if (placement.copies.length) {
    lines.push(`Copies between devices: ${placement.copies.map((c) => `${c.value} ${c.from}→${c.to}`).join(', ')}`);
  } else lines.push('Copies between devices: none');
  return lines.join('\n');
}

/** JSON-friendly placement (DeclineReason objects kept as is). */
export function placementJson(session: InferenceSession, requested: readonly string[]) {
  return {
    requested,
    inputs: session.inputMetadata,
    outputs: session.outputMetadata,
    placement: session.placement,
    optimization: { passes: session.optimization.report.passes.map((p) => ({ name: p.name, count: p.count })), memory: session.optimization.memory },
  };
}

const FLOP_SOURCES = { declared: 'the declared shapes', freeDimensionOverrides: 'freeDimensionOverrides', lastRun: "the last run's input shapes", given: 'the given dims' } as const;

/** Which shapes the FLOPs were counted from, when symbols were bound or some nodes stay uncounted. */
function flopShapesLine(placement: Placement): string | undefined {
  const { source, dims, unknownNodes } = placement.flopShapes;
  if (source === 'declared' && unknownNodes === 0) return undefined;
  const bound = Object.entries(dims).map(([k, v]) => `${k}=${v}`).join(', ');
  const unknown = unknownNodes ? `; ${unknownNodes} compute node${unknownNodes === 1 ? '' : 's'} with symbolic shapes uncounted` : '';
  return `FLOPs counted from ${FLOP_SOURCES[source]}${bound ? ` (${bound})` : ''}${unknown}`;
}
