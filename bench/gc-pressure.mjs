// How hard a model's runs push V8's garbage collector, per engine: full (mark-compact) collections per
// 100 back-to-back runs, and the p50 of each block of 100, so bursts show up as blocks rather than
// vanishing into one median. Each engine runs in its own child process, so neither inherits the
// other's heap:
//   node bench/gc-pressure.mjs --models gpt2-decode [--runs 600] [--threads 2] [--engines switchyard,ort]
// A child is `node bench/gc-pressure.mjs --child <engine> <caseId> <runs> <threads>`.
import { execFileSync } from 'node:child_process';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { createEngine, ENGINES } from './lib/engines.mjs';
import { CASES, loadInputs, locateCase } from './lib/models.mjs';

const argv = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : fallback;
};
const BLOCK = 100;

async function child(engineName, caseId, runs, threads) {
  const c = CASES.find((x) => x.id === caseId);
  if (!c) throw new Error(`unknown case '${caseId}'`);
  const located = locateCase(c);
  const engine = await createEngine(engineName, located.path, threads, c.level);
  const feeds = engine.makeFeeds(loadInputs(c, located));
  for (let i = 0; i < 20; i++) await engine.run(feeds);
  let run = 0;
  const majors = new Array(Math.ceil(runs / BLOCK)).fill(0);
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (e.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors[Math.min(majors.length - 1, Math.floor(run / BLOCK))]++;
  });
  observer.observe({ entryTypes: ['gc'] });
  const ms = [];
  for (run = 0; run < runs; run++) {
    const started = performance.now();
    await engine.run(feeds);
    ms.push(performance.now() - started);
  }
  observer.disconnect();
  await engine.release();
  const p50 = (a) => a.slice().sort((x, y) => x - y)[a.length >> 1];
  const blocks = majors.map((_, b) => p50(ms.slice(b * BLOCK, (b + 1) * BLOCK)));
  process.stdout.write(JSON.stringify({ majors, blocks, p50: p50(ms) }));
}

if (argv[0] === '--child') {
  await child(argv[1], argv[2], Number(argv[3]), Number(argv[4]));
} else {
  const models = flag('--models', 'gpt2-decode').split(',');
  const runs = Number(flag('--runs', '600'));
  const threads = Number(flag('--threads', '2'));
  const engines = flag('--engines', ENGINES.join(',')).split(',');
  const self = fileURLToPath(import.meta.url);
  console.log(`| model | engine | full collections per ${BLOCK} runs | p50 per block (ms) | p50 (ms) |`);
  console.log('| --- | --- | --- | --- | ---: |');
  for (const id of models) {
    for (const engine of engines) {
      const out = JSON.parse(execFileSync(process.execPath, [self, '--child', engine, id, String(runs), String(threads)], { encoding: 'utf8', maxBuffer: 1 << 20 }));
      console.log(`| ${id} | ${engine} | ${out.majors.join(' ')} | ${out.blocks.map((b) => b.toFixed(1)).join(' ')} | ${out.p50.toFixed(2)} |`);
    }
  }
}
