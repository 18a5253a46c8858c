// The dynamic-shapes stage's Node half, on the GPU host: a model with symbolic height and width (the
// zoo's DB text detector) fed two resolutions in turn, against a static-shape session of each.
//   node scripts/gpu-host/dynamic_shapes.mjs OUT_DIR [iterations] [sizes, e.g. 640x640,960x960]
// - dynamic: one session of the symbolic model, `[{name: 'rocm', enableHipGraph: true}, 'cpu']`; one
//   untimed run per size, then `iterations` rounds of one run per size in turn; p50 per size, and
//   the plans its partitions built (one per size is the bar) and runs.
// - static: per size, a session with `freeDimensionOverrides` fixing batch, height and width, so its
//   plan is built at creation's shapes; `iterations` runs, p50, interleaved with the dynamic ones.
// Inputs are seeded noise; outputs of the dynamic session are checked against the static one's.
// Results: OUT_DIR/dynamic.json and a table on stdout.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InferenceSession, Tensor } from '@switchyard/core';
import '@switchyard/ep-cpu';
import '@switchyard/ep-rocm';

const [out, iterArg = '30', sizesArg = '640x640,960x960', name = 'db_text_detector'] = process.argv.slice(2);
if (!out) throw new Error('usage: dynamic_shapes.mjs OUT_DIR [iterations] [sizes] [model]');
const iterations = Number(iterArg);
const sizes = sizesArg.split(',').map((s) => s.split('x').map(Number));
const modelsRoot = fileURLToPath(new URL('../../models/', import.meta.url));
const manifest = JSON.parse(readFileSync(join(modelsRoot, 'manifest.json'), 'utf8'));
const entry = manifest.models.find((m) => m.name === name);
const path = join(modelsRoot, entry.folder, entry.model);
const providers = [{ name: 'rocm', enableHipGraph: true }, 'cpu'];

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
function noise(n, seed) {
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32 - 0.5;
  });
}
const feedsFor = ([h, w]) => ({ input: new Tensor('float32', noise(3 * h * w, h * 7 + w), [1, 3, h, w]) });
const rocmPartitions = (s) => s.providers.find((p) => p.name === 'rocm')?.partitions ?? [];

async function timed(session, feeds) {
  const t = performance.now();
  const outs = await session.run(feeds);
  return { ms: performance.now() - t, outs };
}

function maxAbsDiff(a, b) {
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
}

const result = { date: new Date().toISOString(), model: name, iterations, sizes: sizesArg, dynamic: {}, static: {} };
const feeds = sizes.map(feedsFor);

// Every session is made (and run once) before any timing, and the timed runs interleave: each round
// runs the dynamic session at every size in turn, each followed by that size's static session, so
// that warm-up and the machine's drift fall on both alike (an earlier version timed the dynamic session
// first and the static ones after it).
const dynamic = await InferenceSession.create(path, { executionProviders: providers, logSeverityLevel: 3 });
const dynamicOut = [];
for (const f of feeds) dynamicOut.push((await dynamic.run(f)).probability.data);
const statics = [];
for (let k = 0; k < sizes.length; k++) {
  const [h, w] = sizes[k];
  const s = await InferenceSession.create(path, { executionProviders: providers, logSeverityLevel: 3, freeDimensionOverrides: { batch: 1, height: h, width: w } });
  statics.push({ session: s, first: (await s.run(feeds[k])).probability.data, times: [] });
}
const times = sizes.map(() => []);
for (let i = 0; i < iterations; i++) {
  for (let k = 0; k < sizes.length; k++) {
    times[k].push((await timed(dynamic, feeds[k])).ms);
    statics[k].times.push((await timed(statics[k].session, feeds[k])).ms);
  }
}
const parts = rocmPartitions(dynamic);
result.dynamic = {
  partitions: parts.length,
  plansBuilt: parts.map((p) => p.stats.plans),
  runs: parts.map((p) => p.stats.runs),
  nodesOnRocm: `${dynamic.placement.nodes.filter((n) => n.ep === 'rocm').length}/${dynamic.placement.nodes.length}`,
  p50Ms: Object.fromEntries(sizes.map(([h, w], k) => [`${h}x${w}`, median(times[k])])),
};
await dynamic.release();
for (let k = 0; k < sizes.length; k++) {
  const [h, w] = sizes[k];
  const { session, first, times: t } = statics[k];
  result.static[`${h}x${w}`] = { p50Ms: median(t), plansBuilt: rocmPartitions(session).map((p) => p.stats.plans), maxAbsDiffDynamicVsStatic: maxAbsDiff(dynamicOut[k], first) };
  await session.release();
}
writeFileSync(join(out, 'dynamic.json'), JSON.stringify(result, null, 1));
console.log(`dynamic session: ${result.dynamic.nodesOnRocm} nodes on rocm, ${result.dynamic.partitions} partition(s), plans built ${result.dynamic.plansBuilt.join('+')}, runs ${result.dynamic.runs.join('+')}`);
console.log('| size | dynamic p50 ms (alternating) | static p50 ms | dynamic / static | max abs diff |');
for (const [h, w] of sizes) {
  const key = `${h}x${w}`;
  const d = result.dynamic.p50Ms[key];
  const st = result.static[key];
  console.log(`| ${key} | ${d.toFixed(2)} | ${st.p50Ms.toFixed(2)} | ${(d / st.p50Ms).toFixed(3)} | ${st.maxAbsDiffDynamicVsStatic.toExponential(1)} |`);
}
