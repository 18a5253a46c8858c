/** Renders a `validateProviders` report: what each side ran on, then one row per output. */
import type { OutputDifference, ValidatedSide, ValidationReport } from '@switchyard/core';
import { table } from './table.js';

function num(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  if (x === 0) return '0';
  return Math.abs(x) >= 1e-3 && Math.abs(x) < 1e4 ? x.toPrecision(4) : x.toExponential(2);
}

function sideLine(label: string, requested: readonly string[], side: ValidatedSide): string {
  const ran = side.providers.map((p) => `${p.name} ${p.nodes} nodes`).join(', ');
  const skipped = side.skipped.map((s) => `${s.name} unavailable: ${s.reason.split('\n')[0]}`);
  return `${label} [${requested.join(', ')}]: ${ran}${skipped.length ? `; ${skipped.join('; ')}` : ''} (run ${side.runMs.toFixed(1)} ms)`;
}

function worstCell(d: OutputDifference): string {
  if (d.problem) return d.problem;
  if (!d.worst) return 'all equal';
  const v = (x: number | string) => (typeof x === 'number' ? num(x) : JSON.stringify(x));
  return `[${d.worst.coords.join(', ')}] ${v(d.worst.actual)} vs ${v(d.worst.reference)}`;
}

export function formatValidation(model: string, tested: readonly string[], reference: readonly string[], report: ValidationReport): string {
  const lines = [`Switchyard validate — ${model}`, sideLine('Tested   ', tested, report.tested), sideLine('Reference', reference, report.reference)];
  const testedNames = new Set(report.tested.providers.map((p) => p.name));
  const referenceNames = new Set(report.reference.providers.map((p) => p.name));
  if ([...testedNames].every((n) => referenceNames.has(n))) {
    lines.push(`Note: the tested list ran only on ${[...testedNames].join(', ')}, which the reference uses too.`);
  }
  lines.push(`Feeds: ${report.feeds.map((f) => `${f.name} ${f.type}[${f.dims.join(', ')}]${f.random ? ' (random, seed 42)' : ''}`).join('; ')}`, '');
  const rows = report.outputs.map((d) => [
    d.name,
    d.type ? `${d.type}[${d.dims!.join(', ')}]` : '',
    d.precision,
    `${num(d.tolerance.atol)} / ${num(d.tolerance.rtol)}`,
    num(d.maxAbs),
    num(d.maxRel),
    worstCell(d),
    d.passed ? 'pass' : `FAIL${d.mismatches ? ` (${d.mismatches} of ${d.elements})` : ''}`,
  ]);
  lines.push(table(['output', 'value', 'precision', 'atol / rtol', 'max abs', 'max rel', 'worst element: tested vs reference', 'result'], rows, [40, 30]).replace(/^/gm, '  '), '');
  const failed = report.outputs.filter((o) => !o.passed).length;
  lines.push(report.passed ? `PASS: all ${report.outputs.length} outputs within tolerance` : `FAIL: ${failed} of ${report.outputs.length} outputs beyond tolerance`);
  return lines.join('\n');
}
