/** Plain-text tables for terminal output. */
export function table(headers: string[], rows: string[][], maxWidths: number[] = []): string {
  const clip = (s: string, i: number) => (maxWidths[i] && s.length > maxWidths[i] ? s.slice(0, maxWidths[i] - 1) + '…' : s);
  const cells = [headers, ...rows].map((r) => r.map(clip));
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  return cells
    .map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ').trimEnd())
    .join('\n');
}

export function percent(x: number): string {
  return `${(x * 100).toFixed(1)}%`;
}
