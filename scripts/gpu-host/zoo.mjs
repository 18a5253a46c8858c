// The zoo stage's Node half, on the GPU host: every zoo model on rocm against the CPU EP.
//   node scripts/gpu-host/zoo.mjs OUT_DIR CASES_DIR NAME[,NAME…] [iterations]
// CASES_DIR/<name>/ holds what zoo_prepare.py wrote: `<case>.in.<input>.npy` (b1, and b8 where the batch
// dim is symbolic) and onnxruntime's CPU outputs `<case>.ort.<output>.npy`. Per model and case:
//   - rocm: `[{name: 'rocm', enableHipGraph: true}, 'cpu']`, one untimed run, then p50 of `iterations`
//     warm `session.run` calls (host tensors in and out; at least 3, then as many as fit in
//     SWITCHYARD_ZOO_CASE_SECONDS, default 20); then the same with device-resident IO (deviceIo); nodes on rocm / total (all nodes, and compute
//     nodes: not Shape/Constant/ConstantOfShape/Identity), every node rocm declined grouped by op with
//     its reasons, partitions, GPU time (events around the plans' steps);
//   - cpu: `['cpu']` once on the same inputs (the host has no oneDNN, so this is the CPU EP's TS kernels:
//     big models take minutes; each model's CPU runs get SWITCHYARD_ZOO_CPU_SECONDS, default 150, in a
//     niced process of their own beside the GPU runs, and a case that did not finish says so);
//   - each model's rocm runs get SWITCHYARD_ZOO_ROCM_SECONDS (default 150) in their own process;
//   - max abs diff of rocm against the CPU EP, and of both against onnxruntime's CPU outputs and PyTorch's
//     GPU outputs; for a float16 copy every engine's distance from the float32 module (zoo_prepare.py's
//     `torch32` outputs), which tells float16's own rounding from a wrong kernel.
// Results: OUT_DIR/zoo.json (with zoo-torch.json's PyTorch times merged in) and a table on stdout.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { timeDeviceIo } from '../../bench/lib/device-io.mjs';
import { readNpy, writeNpy } from '../../bench/lib/npy.mjs';

const SHAPE_ONLY = new Set(['Shape', 'Constant', 'ConstantOfShape', 'Identity']);
const here = fileURLToPath(import.meta.url);
const modelsRoot = fileURLToPath(new URL('../../models/', import.meta.url));
const manifest = JSON.parse(readFileSync(join(modelsRoot, 'manifest.json'), 'utf8'));

const modelPath = (name) => {
  const m = manifest.models.find((x) => x.name === name);
  if (!m) throw new Error(`${name} is not in models/manifest.json`);
  return join(modelsRoot, m.folder, m.model);
};

/** The cases zoo_prepare.py wrote for a model: case → {input name → file}. */
function casesIn(dir) {
  const cases = {};
  for (const f of existsSync(dir) ? readdirSync(dir) : []) {
    const m = /^(\w+)\.in\.(.+)\.npy$/.exec(f);
    if (m) (cases[m[1]] ??= {})[m[2]] = join(dir, f);
  }
  return Object.fromEntries(Object.entries(cases).sort(([a], [b]) => Number(a.slice(1)) - Number(b.slice(1))));
}

async function feedsOf(files) {
  const { Tensor } = await import('@switchyard/core');
  return Object.fromEntries(Object.entries(files).map(([n, f]) => {
    const a = readNpy(f);
    return [n, new Tensor(a.type, a.data, a.dims)];
  }));
}

async function hostData(t) {
  return t.location === 'cpu' ? t.data : await t.getData();
}

function maxAbsDiff(a, b) {
  if (a.length !== b.length) return { error: `sizes differ: ${a.length} vs ${b.length}` };
  let worst = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(Number(a[i]) - Number(b[i]));
    if (!(d <= worst)) worst = d; // a NaN becomes the worst
  }
  return worst;
}

/** The worst element against numpy's allclose(a, b, rtol, atol): max |a−b| / (atol + rtol·|b|); ≤ 1 passes. */
function allcloseExcess(a, b, tol = 1e-2) {
  if (a.length !== b.length) return { error: `sizes differ: ${a.length} vs ${b.length}` };
  let worst = 0;
  for (let i = 0; i < a.length; i++) {
    const r = Math.abs(Number(a[i]) - Number(b[i])) / (tol + tol * Math.abs(Number(b[i])));
    if (!(r <= worst)) worst = r;
  }
  return worst;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** One model's CPU EP runs: each case's outputs saved as `<case>.cpu.<output>.npy`, times in `cpu.json`. */
async function cpuChild(name, dir) {
  const { InferenceSession } = await import('@switchyard/core');
  await import('@switchyard/ep-cpu');
  const done = {};
  for (const [c, files] of Object.entries(casesIn(dir))) {
    const s = await InferenceSession.create(modelPath(name), { executionProviders: ['cpu'], logSeverityLevel: 3 });
    const t = performance.now();
    const outs = await s.run(await feedsOf(files));
    done[c] = { cpuRunMs: Math.round(performance.now() - t) };
    for (const [o, t2] of Object.entries(outs)) writeNpy(join(dir, `${c}.cpu.${o}.npy`), t2.type, t2.dims, await hostData(t2));
    await s.release();
    writeFileSync(join(dir, 'cpu.json'), JSON.stringify(done));
  }
}

/** One model's rocm runs; outputs saved as `<case>.rocm.<output>.npy`, results in OUT/zoo-<name>.json. */
async function rocmChild(name, dir, out, iterations) {
  const { InferenceSession } = await import('@switchyard/core');
  await import('@switchyard/ep-cpu');
  await import('@switchyard/ep-rocm');
  const results = [];
  for (const [c, files] of Object.entries(casesIn(dir))) {
    const r = { name, case: c };
    results.push(r);
    try {
      const feeds = await feedsOf(files);
      r.inputs = Object.fromEntries(Object.entries(feeds).map(([n, t]) => [n, t.dims]));
      const t0 = performance.now();
      const s = await InferenceSession.create(modelPath(name), { executionProviders: [{ name: 'rocm', enableHipGraph: true }, 'cpu'], logSeverityLevel: 3 });
      r.createMs = Math.round(performance.now() - t0);
      const nodes = s.placement.nodes;
      const compute = nodes.filter((n) => !SHAPE_ONLY.has(n.opType));
      r.nodes = nodes.length;
      r.nodesOnRocm = nodes.filter((n) => n.ep === 'rocm').length;
      r.computeNodes = compute.length;
      r.computeOnRocm = compute.filter((n) => n.ep === 'rocm').length;
      const declines = {};
      for (const n of nodes.filter((x) => x.ep !== 'rocm')) {
        const why = n.declined?.find((d) => d.ep === 'rocm')?.reason?.message ?? 'not offered to rocm';
        const byOp = (declines[n.opType] ??= {});
        byOp[why] = (byOp[why] ?? 0) + 1;
      }
      r.declines = declines;
      const parts = s.providers.find((p) => p.name === 'rocm')?.partitions ?? [];
      r.partitions = parts.length;
      // Placement first: a model whose runs are slow (nodes left on the TS CPU kernels) still reports it.
      writeFileSync(join(out, `zoo-${name}.json`), JSON.stringify(results, null, 1));
      const t1 = performance.now();
      const outs = await s.run(feeds);
      r.firstRunMs = Math.round(performance.now() - t1);
      for (const [o, t] of Object.entries(outs)) writeNpy(join(dir, `${c}.rocm.${o}.npy`), t.type, t.dims, await hostData(t));
      writeFileSync(join(out, `zoo-${name}.json`), JSON.stringify(results, null, 1));
      const times = [];
      const gpu = [];
      const budgetEnd = performance.now() + 1000 * Number(process.env.SWITCHYARD_ZOO_CASE_SECONDS ?? 20);
      for (let i = 0; i < iterations && (i < 3 || performance.now() < budgetEnd); i++) {
        const t = performance.now();
        await s.run(feeds);
        times.push(performance.now() - t);
        const g = parts.map((p) => p.stats.lastPlan?.lastGpuMs ?? -1);
        if (g.length && g.every((x) => x >= 0)) gpu.push(g.reduce((a, b) => a + b, 0));
      }
      r.timedRuns = times.length;
      r.p50Ms = median(times);
      r.gpuP50Ms = gpu.length ? median(gpu) : undefined;
      r.graphCaptured = parts.map((p) => p.stats.lastPlan?.graphCaptured ?? false);
      await s.release();
      await deviceIo(name, dir, feeds, r, iterations);
    } catch (error) {
      r.error = String(error?.stack ?? error).slice(0, 1500);
    }
    writeFileSync(join(out, `zoo-${name}.json`), JSON.stringify(results, null, 1));
  }
}

/**
 * Device-resident IO, as PyTorch's eager wall has it (input already on the GPU, outputs left there):
 * the inputs uploaded once with the EP's uploadTensor, outputs kept on the device
 * (preferredOutputLocation 'device') and disposed unread; p50 of `session.run`. One run's outputs are
 * downloaded and compared with the host-IO run's.
 */
async function deviceIo(name, dir, feeds, r, iterations) {
  const { InferenceSession } = await import('@switchyard/core');
  const s = await InferenceSession.create(modelPath(name), { executionProviders: [{ name: 'rocm', enableHipGraph: true }, 'cpu'], preferredOutputLocation: 'device', logSeverityLevel: 3 });
  const ep = s.providers.find((p) => p.name === 'rocm');
  try {
    const times = await timeDeviceIo(s, feeds, {
      iterations,
      untilMs: performance.now() + 1000 * Number(process.env.SWITCHYARD_ZOO_CASE_SECONDS ?? 20),
      after: async (onDevice) => {
        // Where the timed runs wrote the outputs (the download below moves them to the host for later runs).
        r.deviceIoOutputs = ep.partitions.flatMap((p) => p.outputPlacement);
        const last = await s.run(onDevice);
        r.deviceIoDiffVsHostIo = 0;
        for (const [o, t] of Object.entries(last)) {
          const host = readNpy(join(dir, `${r.case}.rocm.${o}.npy`)).data;
          const d = maxAbsDiff(await t.getData(), host);
          r.deviceIoDiffVsHostIo = typeof d === 'number' ? Math.max(r.deviceIoDiffVsHostIo, d) : d;
          t.dispose();
        }
      },
    });
    r.deviceIoP50Ms = times && median(times);
  } finally {
    await s.release();
  }
}

/** Runs this script again as a child; resolves with its exit code (or the signal that ended it). */
function child(args, { timeoutS, niced }) {
  const cmd = niced ? 'nice' : process.execPath;
  const argv = niced ? ['-n', '19', process.execPath, ...args] : args;
  return new Promise((resolve) => {
    const p = spawn(cmd, argv, { stdio: 'inherit', timeout: timeoutS * 1000, killSignal: 'SIGKILL' });
    p.on('exit', (code, signal) => resolve(signal ?? code));
  });
}

function compareOutputs(dir, c, a, b, metric = maxAbsDiff) {
  const diffs = {};
  for (const f of readdirSync(dir).filter((x) => x.startsWith(`${c}.${a}.`) && x.endsWith('.npy'))) {
    const o = f.slice(c.length + a.length + 2, -4);
    const other = join(dir, `${c}.${b}.${o}.npy`);
    if (!existsSync(other)) continue;
    diffs[o] = metric(readNpy(join(dir, f)).data, readNpy(other).data);
  }
  if (!Object.keys(diffs).length) return undefined;
  const values = Object.values(diffs);
  return { max: values.some((v) => typeof v !== 'number') ? undefined : Math.max(...values), perOutput: diffs };
}

async function parent(out, casesDir, names, iterations) {
  const cpuSeconds = Number(process.env.SWITCHYARD_ZOO_CPU_SECONDS ?? 150);
  const cpuParallel = Number(process.env.SWITCHYARD_ZOO_CPU_PARALLEL ?? 6);
  // The CPU EP runs (slow, single-threaded TS kernels here) start first, several at a time, niced, and
  // overlap the GPU runs, which go one model at a time.
  const queue = [...names];
  const cpuStatus = {};
  const cpuWorkers = Array.from({ length: cpuParallel }, async () => {
    for (let name; (name = queue.shift()); ) {
      cpuStatus[name] = await child([here, '--cpu', name, join(casesDir, name)], { timeoutS: cpuSeconds, niced: true });
    }
  });
  const rocmStatus = {};
  for (const name of names) {
    const t = performance.now();
    rocmStatus[name] = await child(['--max-old-space-size=16384', here, '--rocm', name, join(casesDir, name), out, String(iterations)], { timeoutS: Number(process.env.SWITCHYARD_ZOO_ROCM_SECONDS ?? 150), niced: false });
    console.log(`[zoo] ${name}: rocm process ended ${rocmStatus[name]} after ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }
  await Promise.all(cpuWorkers);

  const torchFile = join(out, 'zoo-torch.json');
  const torch = existsSync(torchFile) ? JSON.parse(readFileSync(torchFile, 'utf8')) : { results: [] };
  const all = [];
  for (const name of names) {
    const dir = join(casesDir, name);
    const file = join(out, `zoo-${name}.json`);
    const rows = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : [{ name, case: 'b1', error: `rocm process ended ${rocmStatus[name]} before writing results` }];
    const cpuTimes = existsSync(join(dir, 'cpu.json')) ? JSON.parse(readFileSync(join(dir, 'cpu.json'), 'utf8')) : {};
    for (const r of rows) {
      if (r.p50Ms === undefined && !r.error) r.error = `rocm process ended ${rocmStatus[name]} before its timed runs (first run ${r.firstRunMs === undefined ? 'not finished' : `${r.firstRunMs} ms`})`;
      r.cpuRunMs = cpuTimes[r.case]?.cpuRunMs;
      if (r.cpuRunMs === undefined) r.cpuNote = `CPU EP run did not finish (process ${cpuStatus[name]}, limit ${cpuSeconds} s)`;
      r.diffVsCpuEp = compareOutputs(dir, r.case, 'rocm', 'cpu');
      r.diffVsOrtCpu = compareOutputs(dir, r.case, 'rocm', 'ort');
      r.cpuEpVsOrtCpu = compareOutputs(dir, r.case, 'cpu', 'ort');
      r.diffVsTorch = compareOutputs(dir, r.case, 'rocm', 'torch');
      r.allcloseVsOrtCpu = compareOutputs(dir, r.case, 'rocm', 'ort', allcloseExcess);
      // A float16 copy: every engine's distance from the float32 module (same weights), so float16's
      // own rounding is told apart from a kernel that is wrong.
      if (readdirSync(dir).some((x) => x.startsWith(`${r.case}.torch32.`))) {
        r.vsFloat32Module = Object.fromEntries(['rocm', 'torch', 'ort', 'cpu'].map((e) => [e, compareOutputs(dir, r.case, e, 'torch32')?.max]));
      }
      const t = torch.results.find((x) => x.name === name && x.case === r.case);
      if (t) r.torch = t;
      all.push(r);
    }
  }
  writeFileSync(join(out, 'zoo.json'), JSON.stringify({ date: new Date().toISOString(), iterations, cpuSeconds, results: all }, null, 1));
  const f = (x, d = 2) => (typeof x === 'number' ? x.toFixed(d) : '-');
  const e = (x) => (typeof x === 'number' ? x.toExponential(1) : '-');
  console.log('| model | case | nodes on rocm | compute on rocm | partitions | rocm p50 ms | device IO p50 ms | GPU ms | torch eager ms | torch wall+copies ms | vs CPU EP | vs ORT CPU | declines |');
  for (const r of all) {
    const declines = Object.entries(r.declines ?? {}).map(([op, why]) => `${op}×${Object.values(why).reduce((a, b) => a + b, 0)}: ${Object.keys(why).join(' / ')}`).join('; ');
    console.log(`| ${r.name} | ${r.case} | ${r.nodesOnRocm ?? '-'}/${r.nodes ?? '-'} | ${r.computeOnRocm ?? '-'}/${r.computeNodes ?? '-'} | ${r.partitions ?? '-'} | ${f(r.p50Ms)} | ${f(r.deviceIoP50Ms)} | ${f(r.gpuP50Ms)} | ${f(r.torch?.eagerMs)} | ${f(r.torch?.wallCopiesMs)} | ${e(r.diffVsCpuEp?.max)} | ${e(r.diffVsOrtCpu?.max)} | ${r.error ? `ERROR ${r.error.split('\n')[0].slice(0, 200)} ` : ''}${declines.slice(0, 600)} |`);
  }
  for (const r of all.filter((x) => x.vsFloat32Module)) {
    const v = r.vsFloat32Module;
    console.log(`[zoo] ${r.name} ${r.case} (float16) max abs diff from the float32 module: rocm ${e(v.rocm)}, PyTorch float16 ${e(v.torch)}, ORT CPU ${e(v.ort)}, CPU EP ${e(v.cpu)}; rocm vs PyTorch float16 ${e(r.diffVsTorch?.max)}; rocm vs ORT CPU allclose(1e-2, 1e-2) worst ${f(r.allcloseVsOrtCpu?.max, 3)} (≤ 1 passes)`);
  }
  return all.some((r) => r.error) ? 1 : 0;
}

const args = process.argv.slice(2);
if (args[0] === '--cpu') await cpuChild(args[1], args[2]);
else if (args[0] === '--rocm') await rocmChild(args[1], args[2], args[3], Number(args[4]));
else {
  const [out, casesDir, namesArg, iterArg = '30'] = args;
  if (!namesArg) throw new Error('usage: zoo.mjs OUT_DIR CASES_DIR NAME[,NAME…] [iterations]');
  process.exitCode = await parent(out, casesDir, namesArg.split(',').filter(Boolean), Number(iterArg));
}
