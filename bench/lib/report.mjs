/** Turns a results object (bench/results/cpu-*.json) into markdown, and splices it into docs/BENCHMARKS.md. */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/** The markers of the generated section for one ISA family ('avx2', 'avx512', …): each has its own table. */
const machineOf = (family) => (family === 'avx512' ? 'an AVX-512 machine' : family === 'avx512-capped-avx2' ? 'an AVX-512 machine with ONEDNN_MAX_CPU_ISA=AVX2' : 'an AVX2 machine');
export const docsStart = (family) => `<!-- bench:cpu:${family}:start (written by \`pnpm bench --write-docs\` on ${machineOf(family)}; edits inside are overwritten) -->`;
export const docsEnd = (family) => `<!-- bench:cpu:${family}:end -->`;

/** 'avx512' or 'avx2' (or 'other'): the ISA oneDNN ran at, which names the table the results go to. */
export function isaFamily(r) {
  const isa = r.results.map((x) => x.engines.switchyard?.native?.cpuIsa).find(Boolean) ?? '';
  // An AVX-512 CPU with oneDNN capped at AVX2 (ONEDNN_MAX_CPU_ISA): a table of its own, not the AVX2 machine's.
  if (isa.startsWith('avx2') && r.machine?.oneDnnIsaCap && r.machine?.cpuFlags?.includes('avx512f')) return 'avx512-capped-avx2';
  return isa.startsWith('avx512') ? 'avx512' : isa.startsWith('avx2') ? 'avx2' : 'other';
}

/** Cases that are whole models (not the demo CNN or the overhead chain): the ones the summary is over. */
const isModel = (x) => !x.chainNodes && x.id !== 'tiny-cnn';

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
  const native = r.results.map((x) => x.engines.switchyard?.native).find(Boolean);
  if (m.cpuFlags) {
    const ran = native?.cpuIsa ?? (sy?.includes('oneDNN') ? 'an ISA not recorded' : 'not at all (TS kernels only)');
    lines.push(`- ISA: the CPU has ${m.cpuFlags.join(', ') || 'none of AVX2/AVX-512'}; Switchyard's oneDNN ran ${ran}${m.oneDnnIsaCap ? ` (capped by ONEDNN_MAX_CPU_ISA=${m.oneDnnIsaCap}; onnxruntime-node is not capped)` : ''}`);
  } else {
    lines.push('- ISA: not recorded by this run (an AVX2 machine, from the session notes of the day)');
  }
  lines.push('');

  const summary = summarize(r);
  if (summary.length) {
    lines.push('#### Summary (whole models; Switchyard / ORT at p50)');
    lines.push('');
    lines.push('| threads | models | geometric mean | worst | all outputs agree (max abs diff ≤ 1e-3) |');
    lines.push('| ---: | ---: | ---: | --- | --- |');
    for (const x of summary) {
      const agree = x.agree ? `yes${x.looser.length ? ` (${x.looser.join('; ')})` : ''}` : `no: ${x.disagree.join(', ')}`;
      lines.push(`| ${x.threads} | ${x.count} | ${x.geomean.toFixed(2)}× | ${x.worst.ratio.toFixed(2)}× (${x.worst.label}) | ${agree} |`);
    }
    lines.push('');
  }

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
    lines.push('| graph optimization | threads | Switchyard µs/node | onnxruntime-node µs/node | Switchyard / ORT | nodes after optimization (Switchyard / ORT) |');
    lines.push('| --- | ---: | ---: | ---: | ---: | ---: |');
    for (const x of chain) {
      const us = (e) => (e?.p50Ms === undefined ? undefined : (e.p50Ms * 1000) / x.chainNodes);
      const fmt = (v) => (v === undefined ? '—' : v.toFixed(2));
      const [s, o] = [us(x.engines.switchyard), us(x.engines.ort)];
      lines.push(`| ${x.level ?? 'all'} | ${x.threads} | ${fmt(s)} | ${fmt(o)} | ${ratio(s, o)} | ${x.nodes?.switchyard ?? '—'} / ${x.nodes?.ort ?? '—'} |`);
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

/** Per thread count: the geometric mean and worst of the p50 ratios over whole models, and whether outputs agreed. */
export function summarize(r) {
  const byThreads = new Map();
  for (const x of r.results.filter(isModel)) {
    const s = x.engines.switchyard?.p50Ms;
    const o = x.engines.ort?.p50Ms;
    if (s === undefined || o === undefined) continue;
    const list = byThreads.get(x.threads) ?? [];
    list.push({ label: x.label, ratio: s / o, diff: x.maxAbsDiff, bound: x.agreeWithin?.tolerance ?? 1e-3, why: x.agreeWithin?.why });
    byThreads.set(x.threads, list);
  }
  return [...byThreads].map(([threads, list]) => {
    const disagree = list.filter((e) => !(e.diff <= e.bound)).map((e) => `${e.label} (${e.diff?.toExponential(1) ?? 'not compared'})`);
    const looser = list.filter((e) => e.bound !== 1e-3 && e.diff <= e.bound).map((e) => `${e.label} within ${e.bound}: ${e.why}`);
    return {
      threads,
      count: list.length,
      geomean: Math.exp(list.reduce((a, e) => a + Math.log(e.ratio), 0) / list.length),
      worst: list.reduce((a, e) => (e.ratio > a.ratio ? e : a)),
      agree: disagree.length === 0,
      disagree,
      looser,
    };
  });
}

/** Replaces the ISA family's generated section of docs/BENCHMARKS.md (creating the file or markers if needed). */
export function writeDocs(path, markdown, headerIfNew, family) {
  const [open, close] = [docsStart(family), docsEnd(family)];
  const section = `${open}\n\n${markdown.trimEnd()}\n\n${close}`;
  const text = existsSync(path) ? readFileSync(path, 'utf8') : headerIfNew;
  const start = text.indexOf(`<!-- bench:cpu:${family}:start`);
  const end = text.indexOf(close);
  const next = start >= 0 && end > start ? text.slice(0, start) + section + text.slice(end + close.length) : `${text.trimEnd()}\n\n${section}\n`;
  writeFileSync(path, next);
}
