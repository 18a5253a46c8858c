/** Renders a bench report: creation phases, the per-batch table, speedups and the knee. */
import type { Placement } from '@switchyard/core';
import type { BenchReport } from '../commands/bench.js';
import { KNEE_GROWTH } from '../commands/bench.js';
import { table } from './table.js';

const ms = (x: number) => x.toFixed(x < 10 ? 3 : 1);

export function formatBench(r: BenchReport, placement: Placement): string {
  const c = r.creationMs;
  const lines = [
    `Switchyard bench — ${r.model}`,
    `EPs [${r.eps.join(', ')}]: ${placement.providers.map((p) => `${p.name} ${p.nodes} nodes`).join(', ')}${placement.skipped.length ? `; unavailable: ${placement.skipped.map((s) => s.name).join(', ')}` : ''}`,
    `Session creation: T_parse ${ms(c.parseMs)} ms + T_providers ${ms(c.providersMs)} ms + T_optimize ${ms(c.optimizeMs)} ms + T_prepare ${ms(c.prepareMs)} ms`,
    `Runs: ${r.warmup} warm-up, then ${r.iterations} timed per batch; T_run = T_exec + T_copy + T_other (means)`,
    '',
  ];
  const headers = ['batch', 'p50 ms', 'p90 ms', 'mean ms', 'T_exec', 'T_copy', 'T_other', 'copies', 'samples/s'];
  if (r.compareEps) headers.push(`p50 on ${r.compareEps.join(',')}`, 'speedup');
  headers.push('');
  const rows = r.batches.map((b) => {
    const l = b.latencyMs;
    const row = [String(b.batch), ms(l.p50), ms(l.p90), ms(l.mean), ms(l.exec), ms(l.copy), ms(l.other), String(Math.round(l.copies)), b.throughput.toFixed(1)];
    if (b.compare) row.push(ms(b.compare.latencyMs.p50), `${b.compare.speedup.toFixed(2)}×`);
    row.push(b.batch === r.knee ? '← knee' : '');
    return row;
  });
  lines.push(table(headers, rows).replace(/^/gm, '  '));
  if (r.batches.length > 1) {
    lines.push('');
    lines.push(
      r.knee !== undefined
        ? `Knee: batch ${r.knee} — beyond it throughput grows less than ${KNEE_GROWTH * 100}% per doubling of the batch`
        : `No knee: throughput grew at least ${KNEE_GROWTH * 100}% per doubling up to batch ${r.batches[r.batches.length - 1].batch}`,
    );
  }
  return lines.join('\n');
}
