/** Turns a results object (bench/results/cpu-*.json) into markdown, and splices it into docs/BENCHMARKS.md. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

export const DOCS_START = '<!-- bench:cpu:start (written by `pnpm bench --write-docs`; edits inside are overwritten) -->';
export const DOCS_END = '<!-- bench:cpu:end -->';

const ms = (v) => (v === undefined ? '—' : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v >= 1 ? v.toFixed(2) : v.toFixed(3));
const mib = (kib) => (kib === undefined ? '—' : (kib / 1024).toFixed(0));
const ratio = (a, b) => (a === undefined || b === undefined ? '—' : `${(a / b).toFixed(2)}×`);
const pair = (e) => (e?.p50Ms === undefined ? (e?.error ? 'failed' : '—') : `${ms(e.p50Ms)} / ${ms(e.p90Ms)}`);

/** The markdown for one results object: run conditions, then one table per measurement. */
export function renderMarkdown(r) {
  const m = r.machine;
  const lines = [];
  lines.push(`Run ${r.date}${r.options.quick ? ' with `--quick` (few runs: a smoke run, not numbers to quote)' : ''}.`);
  lines.push('');
  lines.push(`- Command: \`${r.command}\``);
  lines.push(`- Machine: ${m.cpu}, ${m.cores} cores, ${(m.totalMemBytes / 2 ** 30).toFixed(0)} GiB, ${m.platform}; Node ${m.node}`);
  lines.push(`- Load average (1 min) at start / end: ${m.loadavgStart[0].toFixed(2)} / ${m.loadavgEnd[0].toFixed(2)}${m.loadavgStart[0] > 0.5 * m.cores ? ' — the machine was busy; treat the numbers as rough' : ''}`);
  const versions = Object.entries(r.versions).filter(([k]) => !k.endsWith(' built')).map(([k, v]) => `${k} ${v}`);
  const built = r.versions['@switchyard/ep-cpu dist built'];
  lines.push(`- Versions: ${versions.join(', ')}${r.gitCommit ? `; commit ${r.gitCommit.slice(0, 10)}` : ''}${built ? ` (ep-cpu dist built ${built})` : ''}`);
  const sy = r.results.find((x) => x.engines.switchyard?.describe)?.engines.switchyard.describe;
  if (sy) lines.push(`- Switchyard CPU EP: ${sy}`);
  lines.push('');

  lines.push('#### Latency (ms, after warm-up; p50 / p90)');
  lines.push('');
  lines.push('| model | threads | Switchyard | onnxruntime-node | Switchyard / ORT (p50) | runs each | max abs diff | Switchyard kernels |');
  lines.push('| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
  for (const x of r.results) {
    const s = x.engines.switchyard;
    const o = x.engines.ort;
    const diff = x.maxAbsDiff === undefined ? '—' : x.maxAbsDiff.toExponential(1);
    const kernels = s?.implementations ? Object.entries(s.implementations).map(([k, n]) => `${n} ${k}`).join(', ') : '—';
    lines.push(`| ${x.label} | ${x.threads} | ${pair(s)} | ${pair(o)} | ${ratio(s?.p50Ms, o?.p50Ms)} | ${s?.runs ?? o?.runs ?? '—'} | ${diff} | ${kernels} |`);
  }
  lines.push('');

  const chain = r.results.filter((x) => x.chainNodes);
  if (chain.length) {
    lines.push('#### Per-node overhead (the chain of tiny ops; µs per node at p50)');
    lines.push('');
    lines.push('| threads | Switchyard µs/node | onnxruntime-node µs/node | Switchyard / ORT | nodes after optimization (Switchyard / ORT) |');
    lines.push('| ---: | ---: | ---: | ---: | ---: |');
    for (const x of chain) {
      const us = (e) => (e?.p50Ms === undefined ? undefined : (e.p50Ms * 1000) / x.chainNodes);
      const fmt = (v) => (v === undefined ? '—' : v.toFixed(2));
      const [s, o] = [us(x.engines.switchyard), us(x.engines.ort)];
      lines.push(`| ${x.threads} | ${fmt(s)} | ${fmt(o)} | ${ratio(s, o)} | ${x.nodes?.switchyard ?? '—'} / ${x.nodes?.ort ?? '—'} |`);
    }
    lines.push('');
  }

  lines.push('#### Event-loop delay while the timed runs were in flight (ms; max / p99)');
  lines.push('');
  lines.push('| model | threads | Switchyard | onnxruntime-node |');
  lines.push('| --- | ---: | ---: | ---: |');
  for (const x of r.results) {
    const d = (e) => (e?.eventLoopDelay ? `${ms(e.eventLoopDelay.maxMs)} / ${ms(e.eventLoopDelay.p99Ms)}` : '—');
    lines.push(`| ${x.label} | ${x.threads} | ${d(x.engines.switchyard)} | ${d(x.engines.ort)} |`);
  }
  lines.push('');

  if (r.rss.length) {
    lines.push(`#### Peak RSS (MiB; one child process per engine and model, ${r.rss[0].threads} thread${r.rss[0].threads > 1 ? 's' : ''})`);
    lines.push('');
    lines.push('| model | Switchyard | onnxruntime-node | Switchyard / ORT |');
    lines.push('| --- | ---: | ---: | ---: |');
    for (const x of r.rss) {
      const v = (e) => (e?.peakKiB === undefined ? (e?.error ? 'failed' : '—') : mib(e.peakKiB));
      lines.push(`| ${x.label} | ${v(x.switchyard)} | ${v(x.ort)} | ${ratio(x.switchyard?.peakKiB, x.ort?.peakKiB)} |`);
    }
    lines.push('');
  }

  const failures = [
    ...r.results.flatMap((x) => Object.entries(x.engines).filter(([, e]) => e.error).map(([n, e]) => `${x.label} (${x.threads} threads), ${n}: ${e.error}`)),
    ...r.rss.flatMap((x) => ['switchyard', 'ort'].filter((n) => x[n]?.error).map((n) => `peak RSS of ${x.label}, ${n}: ${x[n].error}`)),
  ];
  if (r.skipped.length || failures.length) {
    lines.push('#### Not measured');
    lines.push('');
    for (const s of r.skipped) lines.push(`- ${s.label}: ${s.reason}`);
    for (const f of failures) lines.push(`- ${f}`);
    lines.push('');
  }
  return lines.join('\n');
}

/** Replaces the generated section of docs/BENCHMARKS.md (creating the file or markers if needed). */
export function writeDocs(path, markdown, headerIfNew) {
  const section = `${DOCS_START}\n\n${markdown.trimEnd()}\n\n${DOCS_END}`;
  const text = existsSync(path) ? readFileSync(path, 'utf8') : headerIfNew;
  const start = text.indexOf(DOCS_START);
  const end = text.indexOf(DOCS_END);
  const next = start >= 0 && end > start ? text.slice(0, start) + section + text.slice(end + DOCS_END.length) : `${text.trimEnd()}\n\n${section}\n`;
  writeFileSync(path, next);
}
