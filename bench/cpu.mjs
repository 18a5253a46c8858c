/**
 * `pnpm bench`: Switchyard's CPU EP against onnxruntime-node's CPU EP, in one process, on the same
 * models, inputs and thread counts. Method: bench/lib/timing.mjs and docs/BENCHMARKS.md.
 */
import { spawnSync, execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, relative } from 'node:path';
import { parseArgs } from './lib/args.mjs';
import { createEngine, engineVersions, ENGINES, ortOptimizedNodeCount } from './lib/engines.mjs';
import { CHAIN_NODES, loadInputs, locateCase, MODEL_IDS, ROOT, selectCases, writeChainModel } from './lib/models.mjs';
import { isaFamily, renderMarkdown, writeDocs } from './lib/report.mjs';
import { planSchedule, steadyWarmUp, timeInterleaved } from './lib/timing.mjs';

const log = (line) => console.log(line);
/** An engine whose first run of a case takes longer is recorded as too slow, not timed. */
const TOO_SLOW_MS = 120_000;
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const opts = parseArgs(process.argv.slice(2), MODEL_IDS);
if (opts.from) {
  publish(JSON.parse(readFileSync(opts.from, 'utf8')));
  process.exit(0);
}
const cases = selectCases(opts.models);
writeChainModel();
// Load both engines' packages up front, so neither's session-create time includes module loading.
await import('@switchyard/core');
await import('@switchyard/ep-cpu');
await import('onnxruntime-node');
const started = new Date();

const results = [];
const skipped = [];
const rss = [];
const loadavgStart = os.loadavg();
log(`bench: ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.availableParallelism()} cores, load ${loadavgStart.map((v) => v.toFixed(2)).join(' ')}${opts.quick ? ', --quick' : ''}`);
if (opts.rss) rss.push(measureRss({ id: 'none', label: 'baseline (package loaded, no session)' }, opts.threads[0]));

for (const c of cases) {
  const located = locateCase(c);
  if (!located.ok) {
    log(`skip ${c.label}: ${located.reason}`);
    skipped.push({ id: c.id, label: c.label, reason: located.reason });
    continue;
  }
  const inputs = loadInputs(c, located);
  for (const threads of opts.threads) results.push(await benchCase(c, located.path, inputs, threads));
  // Right after the timing, while the model file is surely still there.
  if (opts.rss) rss.push(measureRss(c, opts.threads[0]));
}

const report = {
  date: started.toISOString(),
  command: ['pnpm bench', ...process.argv.slice(2)].join(' '),
  options: opts,
  machine: {
    cpu: os.cpus()[0]?.model ?? 'unknown',
    cores: os.availableParallelism(),
    totalMemBytes: os.totalmem(),
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    loadavgStart,
    loadavgEnd: os.loadavg(),
    cpuFlags: cpuFlags(),
    oneDnnIsaCap: process.env.ONEDNN_MAX_CPU_ISA,
  },
  versions: engineVersions(),
  gitCommit: gitCommit(),
  method: {
    timing: 'interleaved blocks, order flipped each round; before each block a 100 ms sleep and 2 untimed runs',
    ort: 'executionProviders [cpu], intraOpNumThreads = threads, interOpNumThreads 1, executionMode sequential, graphOptimizationLevel all',
    switchyard: "executionProviders ['cpu'], intraOpNumThreads = threads, graphOptimizationLevel all",
    inputs: "the generator's seeded reference inputs (models/manifest.json); the chain uses a fixed [1,16] tensor",
  },
  results,
  rss,
  skipped,
};

// Named by the start's UTC date and time (cpu-2026-12-05T22-24.json): a later run the same day gets a file of
// its own instead of overwriting one that BENCHMARKS.md may cite as raw data.
const stamp = started.toISOString().slice(0, 16).replace(':', '-');
// A run with oneDNN capped (ONEDNN_MAX_CPU_ISA) is named for it: it is a different table.
const cap = process.env.ONEDNN_MAX_CPU_ISA ? `-cap-${process.env.ONEDNN_MAX_CPU_ISA.toLowerCase()}` : '';
const out = opts.out ?? join(ROOT, 'bench/results', `cpu-${stamp}${cap}${opts.quick ? '-quick' : ''}.json`);
mkdirSync(join(out, '..'), { recursive: true });
writeFileSync(out, JSON.stringify(report, null, 2) + '\n');
log(`\nresults: ${relative(ROOT, out)}`);
publish(report);

/** Prints the markdown tables and, with --write-docs, puts them into docs/BENCHMARKS.md. */
function publish(results) {
  const markdown = renderMarkdown(results);
  log('\n' + markdown);
  if (opts.writeDocs) {
    const docs = join(ROOT, 'docs/BENCHMARKS.md');
    writeDocs(docs, markdown, '# Benchmarks\n\nSee bench/ for the method.\n', isaFamily(results));
    log(`docs: ${relative(ROOT, docs)} updated`);
  }
}

/** Both engines on one case at one thread count. An engine that fails is recorded, the other still runs. */
async function benchCase(c, modelPath, inputs, threads) {
  const entry = { id: c.id, label: c.label, ...(c.level && { level: c.level }), ...(c.agreeWithin && { agreeWithin: c.agreeWithin }), threads, loadavg: os.loadavg()[0], engines: {}, createMs: {}, firstRunMs: {} };
  const contestants = [];
  for (const name of ENGINES) {
    try {
      const t = performance.now();
      const engine = await createEngine(name, modelPath, threads, c.level);
      entry.createMs[name] = performance.now() - t;
      const contestant = { name, engine, run: engine.run, feeds: engine.makeFeeds(inputs) };
      const warm = await steadyWarmUp(contestant, opts.quick, TOO_SLOW_MS);
      entry.firstRunMs[name] = warm[0];
      // How the engine does before it is warm: the first runs' median, kept beside the timed figures.
      entry.warmUp ??= {};
      entry.warmUp[name] = { runs: warm.length, ms: warm.reduce((a, b) => a + b, 0), first10P50Ms: median(warm.slice(0, 10)) };
      contestant.warmMs = Math.min(...warm.slice(1));
      contestants.push(contestant);
      entry.engines[name] = { describe: engine.describe, ...(engine.implementations && { implementations: engine.implementations }), ...(engine.native && { native: engine.native }) };
    } catch (err) {
      entry.engines[name] = { error: String(err?.message ?? err).split('\n')[0] };
      log(`  ${c.label} (${threads} threads): ${name} failed: ${entry.engines[name].error}`);
    }
  }
  if (contestants.length === 2) entry.maxAbsDiff = await compareOutputs(contestants);
  if (c.chain) {
    entry.chainNodes = CHAIN_NODES;
    entry.nodes = {
      switchyard: contestants.find((x) => x.name === 'switchyard')?.engine.nodes,
      ort: await ortOptimizedNodeCount(modelPath, join(os.tmpdir(), 'switchyard-bench', 'chain-ort-optimized.onnx'), c.level).catch(() => undefined),
    };
  }
  if (contestants.length) {
    const schedule = planSchedule(Math.max(...contestants.map((x) => x.warmMs)), opts.quick);
    entry.schedule = schedule;
    const timed = await timeInterleaved(contestants, schedule);
    for (const x of contestants) Object.assign(entry.engines[x.name], timed[x.name]);
  }
  for (const x of contestants) await x.engine.release();
  const s = entry.engines.switchyard;
  const o = entry.engines.ort;
  const fmt = (e) => (e?.p50Ms === undefined ? 'failed' : `p50 ${e.p50Ms.toFixed(2)} p90 ${e.p90Ms.toFixed(2)} ms`);
  const r = s?.p50Ms && o?.p50Ms ? `, ratio ${(s.p50Ms / o.p50Ms).toFixed(2)}` : '';
  log(`${c.label}, ${threads} thread${threads > 1 ? 's' : ''}: switchyard ${fmt(s)}; ort ${fmt(o)}${r} (load ${entry.loadavg.toFixed(2)})`);
  return entry;
}

/** The largest absolute difference between the engines' outputs: a sanity check that both computed the same thing. */
async function compareOutputs(contestants) {
  const a = await contestants[0].run(contestants[0].feeds);
  const b = await contestants[1].run(contestants[1].feeds);
  let max = 0;
  for (const name of Object.keys(a)) {
    const da = a[name]?.data;
    const db = b[name]?.data;
    if (!da || !db || da.length !== db.length) return Number.NaN;
    if (typeof da[0] !== 'number') continue;
    for (let i = 0; i < da.length; i++) max = Math.max(max, Math.abs(da[i] - db[i]));
  }
  return max;
}

/** Peak RSS of each engine on one model, each in its own child process; model `none` is the engine's import alone. */
function measureRss(c, threads) {
  const row = { id: c.id, label: c.label, threads };
  for (const name of ENGINES) {
    const child = spawnSync(process.execPath, [join(ROOT, 'bench/rss-child.mjs'), name, c.id, String(threads), opts.quick ? '3' : '10'], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 10 * 60 * 1000,
    });
    const last = child.stdout?.trim().split('\n').pop();
    try {
      if (child.status !== 0) throw new Error((child.stderr || `exit ${child.status ?? child.signal}`).trim().split('\n').pop());
      row[name] = JSON.parse(last);
    } catch (err) {
      row[name] = { error: String(err?.message ?? err) };
    }
  }
  const kib = (e) => (e.peakKiB === undefined ? `failed (${e.error})` : `${e.peakKiB} KiB`);
  log(`  peak RSS ${c.label}: switchyard ${kib(row.switchyard)}, ort ${kib(row.ort)}`);
  return row;
}

/** The vector extensions the CPU has (what ORT's MLAS picks from; oneDNN may be capped below them). */
function cpuFlags() {
  try {
    const flags = readFileSync('/proc/cpuinfo', 'utf8').match(/^flags\s*:(.*)$/m)?.[1].split(/\s+/) ?? [];
    return ['avx2', 'fma', 'avx512f', 'avx512_vnni', 'avx512_bf16', 'amx_tile'].filter((f) => flags.includes(f));
  } catch {
    return [];
  }
}

function gitCommit() {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}
