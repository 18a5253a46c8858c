/**
 * Soak on the GPU host: many runs of one rocm session, and many create/run/release cycles, sampling the
 * process's RSS (after a full GC) and the GPU's used memory (nvidia-smi; the host runs nothing else).
 * A least-squares line over the samples after the first fifth (warm-up: caches, cuDNN's algorithm
 * picks) must not project more growth over the whole soak than max(8 MiB, 5% of the start), for RSS and
 * for device memory alike. Writes OUT/soak.json; exits 1 when a trend fails.
 *
 *   node --expose-gc scripts/gpu-host/soak.mjs OUT_DIR [runs=10000] [cycles=1000]
 *
 * SWITCHYARD_SOAK_SECONDS (default 150) bounds each phase: one that runs out of time stops early and
 * says how far it got (the trend is then over what ran).
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InferenceSession, Tensor } from '@switchyard/core';
import '@switchyard/ep-rocm';
import { readNpy } from '../../bench/lib/npy.mjs';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const [outDir, runsArg = '10000', cyclesArg = '1000'] = process.argv.slice(2);
if (!outDir || typeof globalThis.gc !== 'function') throw new Error('usage: node --expose-gc soak.mjs OUT_DIR [runs] [cycles]');
const MiB = 1024 * 1024;
const phaseMs = Number(process.env.SWITCHYARD_SOAK_SECONDS ?? 150) * 1000;

/** Device memory in use (MiB), or undefined where nvidia-smi cannot say. */
function gpuUsedMiB() {
  try {
    const out = execFileSync('nvidia-smi', ['--query-gpu=memory.used', '--format=csv,noheader,nounits'], { encoding: 'utf8' });
    return Number(out.trim().split('\n')[0]);
  } catch {
    return undefined;
  }
}

function sample(at) {
  globalThis.gc();
  const m = process.memoryUsage();
  // The JS heap and external (ArrayBuffer) bytes tell a JS-side leak from one in native code.
  return { at, rssMiB: m.rss / MiB, heapMiB: m.heapUsed / MiB, externalMiB: m.external / MiB, gpuMiB: gpuUsedMiB() };
}

/** Growth the least-squares line over samples after the first fifth projects across the whole soak. */
function trend(samples, key, total) {
  const kept = samples.slice(Math.floor(samples.length / 5)).filter((s) => s[key] !== undefined);
  if (kept.length < 3) return undefined;
  const n = kept.length;
  const mx = kept.reduce((a, s) => a + s.at, 0) / n;
  const my = kept.reduce((a, s) => a + s[key], 0) / n;
  const slope = kept.reduce((a, s) => a + (s.at - mx) * (s[key] - my), 0) / kept.reduce((a, s) => a + (s.at - mx) ** 2, 0);
  const start = kept[0][key];
  const projected = slope * total;
  const bound = Math.max(8, 0.05 * start);
  return { startMiB: samples[0][key], endMiB: samples[samples.length - 1][key], slopeMiBPerUnit: slope, projectedMiB: projected, boundMiB: bound, passed: projected <= bound };
}

function feedsOf(dir, name) {
  const t = readNpy(join(repo, dir, `b1.in.${name}.npy`));
  return { [name]: new Tensor(t.type, t.data, t.dims) };
}

const report = { date: new Date().toISOString(), runs: Number(runsArg), cycles: Number(cyclesArg), phases: [] };
let failed = false;

// Phase 1: one session (HIP graph replays), many runs.
{
  const feeds = feedsOf('models/mobilenet_v2', 'input');
  const session = await InferenceSession.create(join(repo, 'models/mobilenet_v2/model.onnx'), { executionProviders: [{ name: 'rocm', enableHipGraph: true }] });
  const onRocm = session.placement.providers.find((p) => p.name === 'rocm')?.nodes ?? 0;
  const every = Math.max(1, Math.floor(report.runs / 40));
  const samples = [sample(0)];
  const t0 = performance.now();
  let done = 0;
  for (let i = 1; i <= report.runs && performance.now() - t0 < phaseMs; i++) {
    await session.run(feeds);
    done = i;
    if (i % every === 0) samples.push(sample(i));
  }
  const seconds = (performance.now() - t0) / 1000;
  await session.release();
  const phase = { name: `${done} runs of one session (MobileNetV2 b1, rocm + HIP graph, ${onRocm} nodes on rocm)`, seconds, rss: trend(samples, 'rssMiB', done), gpu: trend(samples, 'gpuMiB', done), heap: trend(samples, 'heapMiB', done), samples };
  report.phases.push(phase);
}

// Phase 2: create, run and release, many times (each a fresh plan, arena and cuDNN/cuBLAS handles' use).
{
  const feeds = feedsOf('models/squeezenet1_1', 'input');
  const model = join(repo, 'models/squeezenet1_1/model.onnx');
  const every = Math.max(1, Math.floor(report.cycles / 40));
  const samples = [sample(0)];
  const t0 = performance.now();
  let done = 0;
  for (let i = 1; i <= report.cycles && performance.now() - t0 < phaseMs; i++) {
    const session = await InferenceSession.create(model, { executionProviders: ['rocm'] });
    await session.run(feeds);
    await session.release();
    done = i;
    if (i % every === 0) samples.push(sample(i));
  }
  const seconds = (performance.now() - t0) / 1000;
  report.phases.push({ name: `${done} create/run/release cycles (SqueezeNet 1.1 b1, rocm)`, seconds, rss: trend(samples, 'rssMiB', done), gpu: trend(samples, 'gpuMiB', done), heap: trend(samples, 'heapMiB', done), samples });
}

for (const p of report.phases) {
  const fmt = (t) => (t ? `${t.startMiB.toFixed(1)} -> ${t.endMiB.toFixed(1)} MiB, projected ${t.projectedMiB.toFixed(2)} MiB (bound ${t.boundMiB.toFixed(1)}) ${t.passed ? 'ok' : 'FAIL'}` : 'not measured');
  console.log(`${p.name}: ${p.seconds.toFixed(1)} s; RSS ${fmt(p.rss)}; GPU ${fmt(p.gpu)}; JS heap (not judged: part of RSS) ${fmt(p.heap)}`);
  if (p.rss?.passed === false || p.gpu?.passed === false) failed = true;
}
writeFileSync(join(outDir, 'soak.json'), JSON.stringify(report, null, 2) + '\n');
process.exit(failed ? 1 : 0);
