/**
 * Peak RSS of one engine on one model, in a process of its own so the engines share no heap:
 *
 *   node bench/rss-child.mjs <switchyard|ort> <model id|none> <threads> [runs]
 *
 * Loads the model, warms up, runs `runs` times (default 10) and prints one JSON line with the
 * peak RSS in KiB (see peakKiB). Model `none` loads the engine's package and nothing else:
 * the baseline to subtract.
 */
import { readFileSync } from 'node:fs';
import { createEngine, ENGINES } from './lib/engines.mjs';
import { CASES, loadInputs, locateCase } from './lib/models.mjs';

const [engineName, caseId, threadsText, runsText = '10'] = process.argv.slice(2);
const threads = Number(threadsText);
const runs = Number(runsText);
if (!ENGINES.includes(engineName) || !caseId || !Number.isInteger(threads) || threads < 1 || !Number.isInteger(runs) || runs < 0) {
  console.error(`usage: node bench/rss-child.mjs <${ENGINES.join('|')}> <model id|none> <threads> [runs]`);
  process.exit(2);
}

const kib = () => Math.round(process.memoryUsage().rss / 1024);

/**
 * Peak RSS in KiB. On Linux, getrusage's maxRSS survives fork + exec: a child of the benchmark
 * (hundreds of MiB after ResNet-50) starts with its parent's peak. VmHWM in /proc/self/status is
 * the high-water mark of this process's own address space, so it is the number reported there;
 * elsewhere, maxRSS (right when the parent is smaller than the child).
 */
function peakKiB() {
  try {
    const hwm = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (hwm) return { peakKiB: Number(hwm[1]), source: 'VmHWM', maxRssKiB: process.resourceUsage().maxRSS };
  } catch {
    // no procfs
  }
  return { peakKiB: process.resourceUsage().maxRSS, source: 'maxRSS', maxRssKiB: process.resourceUsage().maxRSS };
}

if (caseId === 'none') {
  // Import the engine's packages without a model: what the engine costs before any session.
  if (engineName === 'switchyard') {
    await import('@switchyard/core');
    await import('@switchyard/ep-cpu');
  } else {
    const { createRequire } = await import('node:module');
    createRequire(import.meta.url)('onnxruntime-node');
  }
  console.log(JSON.stringify({ engine: engineName, model: caseId, threads, ...peakKiB(), rssKiB: kib() }));
  process.exit(0);
}

const c = CASES.find((x) => x.id === caseId);
if (!c) {
  console.error(`unknown model '${caseId}'; known: ${CASES.map((x) => x.id).join(', ')}`);
  process.exit(2);
}
const located = locateCase(c);
if (!located.ok) {
  console.error(`${caseId}: ${located.reason}`);
  process.exit(3);
}
const engine = await createEngine(engineName, located.path, threads, c.level);
const afterCreateKiB = kib();
const feeds = engine.makeFeeds(loadInputs(c, located));
for (let i = 0; i < 2 + runs; i++) await engine.run(feeds);
console.log(
  JSON.stringify({ engine: engineName, model: caseId, threads, runs, ...peakKiB(), afterCreateKiB, rssKiB: kib() }),
);
await engine.release();
