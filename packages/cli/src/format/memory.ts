/** Renders `session.memoryPlan`: per device, weights, peak activations, per-run allocations and workspace. */
import type { SessionMemoryPlan } from '@switchyard/core';
import { table } from './table.js';

export function formatBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return i ? `${n.toFixed(1)} ${units[i]}` : `${n} ${units[0]}`;
}

const SOURCE: Record<string, string> = { arena: 'arena', planned: 'planned, arena off', provider: 'EP report', estimate: 'estimate' };

export function formatMemoryPlan(plan: SessionMemoryPlan): string {
  const dims = Object.entries(plan.dims).map(([k, v]) => `${k}=${v}`);
  const head = `Memory plan before running${dims.length ? ` (${dims.join(', ')})` : ''}: ${formatBytes(plan.totalBytes)} in all`;
  const rows = plan.devices.map((d) => [
    d.device,
    formatBytes(d.weightsBytes),
    `${formatBytes(d.activationBytes)} (${SOURCE[d.activationSource] ?? d.activationSource})`,
    formatBytes(d.perRunBytes),
    d.workspaceReportedBy.length ? `${formatBytes(d.workspaceBytes)} (${d.workspaceReportedBy.join(', ')})` : '—',
    formatBytes(d.totalBytes),
  ]);
  const lines = [head, table(['device', 'weights', 'peak activations', 'per run', 'workspace', 'total'], rows).replace(/^/gm, '  ')];
  if (plan.unresolvedDims.length) {
    lines.push(`  Unresolved dims: ${plan.unresolvedDims.join(', ')}: ${plan.unsized.length} value(s) have no size and are not counted (bind them with --input name=file.npy or --free-dim NAME=SIZE)`);
  } else if (plan.unsized.length) {
    lines.push(`  ${plan.unsized.length} value(s) have a size no inference states (data-dependent) and are not counted`);
  }
  for (const note of plan.notes) lines.push(`  Note: ${note}`);
  return lines.join('\n');
}
