// Two builds of Switchyard (another checkout's — e.g. the commit a branch started from — and this one)
// and onnxruntime-node on the same models, in ONE process, timed in interleaved blocks
// (bench/lib/timing.mjs), so a change's effect is measured under the same machine load:
//   node bench/ab-models.mjs --base /path/to/other/checkout [--models gpt2,convnext] [--threads 1,2] [--quick]
// Both checkouts must be built (scripts/setup.sh there: its packages' dist/ and the CPU addon). Models
// and inputs come from this checkout's models/manifest.json (bench/lib/models.mjs).
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadInputs, locateCase, MODEL_IDS, ROOT, selectCases } from './lib/models.mjs';
import { planSchedule, steadyWarmUp, timeInterleaved } from './lib/timing.mjs';

const argv = process.argv.slice(2);
const flag = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const base = flag('--base');
if (!base) throw new Error('usage: node bench/ab-models.mjs --base /path/to/other/checkout [--models a,b] [--threads 1,2] [--quick]');
const models = flag('--models')?.split(',');
for (const m of models ?? []) if (!MODEL_IDS.includes(m)) throw new Error(`unknown model '${m}'; known: ${MODEL_IDS.join(', ')}`);
const threadCounts = (flag('--threads') ?? '1,2').split(',').map(Number);
const quick = argv.includes('--quick');

/** One checkout's core and CPU EP, imported from its built dist/ (each has its own Tensor class). */
async function loadBuild(root) {
  const core = await import(pathToFileURL(join(root, 'packages/core/dist/index.js')).href);
  const cpu = await import(pathToFileURL(join(root, 'packages/ep-cpu/dist/index.js')).href);
  return { root, core, cpu };
}

async function switchyardContestant(name, build, path, inputs, threads) {
  const session = await build.core.InferenceSession.create(path, {
    executionProviders: [new build.cpu.CpuExecutionProvider({})],
    intraOpNumThreads: threads,
    graphOptimizationLevel: 'all',
    logSeverityLevel: 3,
  });
  const counts = {};
  for (const n of session.placement.nodes) counts[n.implementation] = (counts[n.implementation] ?? 0) + 1;
  const feeds = Object.fromEntries(Object.entries(inputs).map(([k, v]) => [k, new build.core.Tensor(v.type, v.data, v.dims)]));
  return { name, run: (f) => session.run(f), feeds, release: () => session.release(), kernels: counts };
}

async function ortContestant(path, inputs, threads) {
  const ort = createRequire(import.meta.url)('onnxruntime-node');
  const session = await ort.InferenceSession.create(path, { intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all', logSeverityLevel: 3 });
  const feeds = Object.fromEntries(Object.entries(inputs).map(([k, v]) => [k, new ort.Tensor(v.type, v.data, v.dims)]));
  return { name: 'ort', run: (f) => session.run(f), feeds, release: () => session.release() };
}

const builds = { base: await loadBuild(base), this: await loadBuild(ROOT) };
console.log(`# ${base} (base) vs ${ROOT} (this) vs onnxruntime-node, one process, interleaved blocks${quick ? ', --quick' : ''}; shared machine: indicative`);
for (const c of selectCases(models)) {
  const located = locateCase(c);
  if (!located.ok) {
    console.log(`skip ${c.label}: ${located.reason}`);
    continue;
  }
  const inputs = loadInputs(c, located);
  for (const threads of threadCounts) {
    const contestants = [
      await switchyardContestant('base', builds.base, located.path, inputs, threads),
      await switchyardContestant('this', builds.this, located.path, inputs, threads),
      await ortContestant(located.path, inputs, threads),
    ];
    // cpu.mjs's warm-up rule: a model of microseconds needs thousands of runs before V8 has compiled
    // Switchyard's executor (timing.mjs), and five would time it half-interpreted.
    let slowest = 0;
    for (const k of contestants) slowest = Math.max(slowest, Math.min(...(await steadyWarmUp(k, quick)).slice(1)));
    const r = await timeInterleaved(contestants, planSchedule(slowest, quick));
    const [b, t, o] = contestants.map((k) => r[k.name]);
    const kernels = (k) => Object.entries(k.kernels).map(([impl, n]) => `${n} ${impl}`).join(', ');
    console.log(
      `${c.label}, ${threads} thread(s): p50 base ${b.p50Ms.toFixed(1)} | this ${t.p50Ms.toFixed(1)} (${(b.p50Ms / t.p50Ms).toFixed(2)}× faster) | ort ${o.p50Ms.toFixed(1)} ms; ` +
        `this/ort ${(t.p50Ms / o.p50Ms).toFixed(2)}, base/ort ${(b.p50Ms / o.p50Ms).toFixed(2)}; min ${b.minMs.toFixed(1)} | ${t.minMs.toFixed(1)} | ${o.minMs.toFixed(1)}; runs ${t.runs}`,
    );
    console.log(`  kernels base: ${kernels(contestants[0])}; this: ${kernels(contestants[1])}`);
    for (const k of contestants) await k.release();
  }
}
