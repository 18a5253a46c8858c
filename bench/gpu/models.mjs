// Real models on the GPU host: for each model of models/manifest.json that is present (and named in
// SWITCHYARD_MODELS, a comma list, when set), run every case -- the manifest's and any extra
// `<case>.in.*.npy` / `<case>.out.*.npy` pairs in the model's folder or models/generated/<name>/
// (scripts/gpu-host/extra_cases.py writes the batch-32 cases, BERT's and MobileNetV2's with their own
// static-batch `<case>.model.onnx`) -- with executionProviders ['rocm', 'cpu'], plain, with
// enableHipGraph, with fp16 and with both (and the fp16 convolution layouts forced, for CNNs); compare
// with the stored PyTorch references; record where each compute node ran (and why not on rocm); time
// warm runs.
//   node bench/gpu/models.mjs OUT_DIR [iterations]     (run.sh stage `models`)
// Each model runs in its own child process (`--model NAME`), so its first run is cold in that process
// (plan build, cuDNN algorithm search unless the on-disk cache has it) and its device memory is its own.
//
// Per variant: createMs (InferenceSession.create), firstRunMs, p50/p90 of `session.run` wall time in
// Node (host input in, host output back: copies and JS included), gpuP50Ms (HIP/CUDA events around the
// plans' steps, copies excluded: comparable with PyTorch's CUDA-event times), deviceUsedMiB (the
// driver's used memory after the timed runs: the process's context, library handles and workspaces,
// plans' arenas; the device has no other user on the GPU host); for the graph variants also
// deviceIoP50Ms, the same runs with device-resident IO (deviceIoP50).
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InferenceSession, Tensor, registerExecutionProvider } from '@switchyard/core';
import { executionProviderFactory as cpuFactory } from '@switchyard/ep-cpu';
import { executionProviderFactory as rocmFactory } from '@switchyard/ep-rocm';
import { nativeHipBinding } from '@switchyard/native-hip';
import { readNpy } from '../lib/npy.mjs';
import { timeDeviceIo } from '../lib/device-io.mjs';
import { percentile as pct } from '../lib/timing.mjs';

const args = process.argv.slice(2);
const modelFlag = args.indexOf('--model');
const only = modelFlag >= 0 ? args.splice(modelFlag, 2)[1] : undefined;
const [out = '.', iterArg = '20'] = args;
const iterations = Number(iterArg);
const root = new URL('../../models/', import.meta.url).pathname;
const manifest = JSON.parse(readFileSync(join(root, 'manifest.json'), 'utf8'));
const SHAPE_ONLY = new Set(['Shape', 'Constant', 'ConstantOfShape', 'Identity']);
const VARIANTS = [
  { label: 'rocm', rocm: {} },
  { label: 'rocm+graph', rocm: { enableHipGraph: true } },
  // IEEE float32 only (no 3xTF32 products): what fp32MatmulPrecision 'high' changes, on the models it touches.
  { label: 'rocm+graph+highest', rocm: { enableHipGraph: true, fp32MatmulPrecision: 'highest' }, bertOnly: true },
  { label: 'rocm+fp16', rocm: { fp16: true } },
  { label: 'rocm+fp16+graph', rocm: { fp16: true, enableHipGraph: true } },
  // The float16 convolutions' layout A/B (the default, 'auto', picks per plan): models with convolutions only.
  { label: 'rocm+fp16nchw+graph', rocm: { fp16: true, enableHipGraph: true, fp16ConvLayout: 'NCHW' }, convOnly: true },
  { label: 'rocm+fp16nhwc+graph', rocm: { fp16: true, enableHipGraph: true, fp16ConvLayout: 'NHWC' }, convOnly: true },
];

/**
 * The manifest's cases plus extra ones found in the model's folder or in models/generated/<name>/
 * (same input/output names). An extra case with its own `<case>.model.onnx` (a static-batch export,
 * see extra_cases.py) runs that model instead of the manifest's.
 */
function casesOf(m, dir) {
  const cases = Object.fromEntries(Object.entries(m.cases).map(([c, v]) => [c, { ...v, dir }]));
  const first = Object.values(m.cases)[0];
  const inputNames = Object.keys(first.inputs);
  const outputNames = Object.keys(first.outputs);
  const dirs = [...new Set([dir, join(root, 'generated', m.name)])].filter((d) => existsSync(d));
  for (const d of dirs) {
    for (const file of readdirSync(d)) {
      const match = /^(\w+)\.in\.(.+)\.npy$/.exec(file);
      if (!match || cases[match[1]] || match[2] !== inputNames[0]) continue;
      const c = match[1];
      const inputs = Object.fromEntries(inputNames.map((n) => [n, `${c}.in.${n}.npy`]));
      const outputs = Object.fromEntries(outputNames.map((n) => [n, `${c}.out.${n}.npy`]));
      const model = existsSync(join(d, `${c}.model.onnx`)) ? `${c}.model.onnx` : undefined;
      if (d !== dir && !model) continue;
      if ([...Object.values(inputs), ...Object.values(outputs)].every((f) => existsSync(join(d, f)))) cases[c] = { inputs, outputs, extra: true, dir: d, model };
    }
  }
  return cases;
}

function compare(actual, expected, atol, rtol) {
  let worst = 0;
  let scale = 0;
  let bad = 0;
  for (let i = 0; i < expected.length; i++) {
    const a = Number(actual[i]);
    const e = Number(expected[i]);
    const err = Math.abs(a - e);
    if (!(err <= worst)) worst = err; // NaN-safe: a NaN becomes the worst
    scale = Math.max(scale, Math.abs(e));
    if (!(err <= atol + rtol * Math.abs(e))) bad++;
  }
  return { worst, refMaxAbs: scale, atol, rtol, bad, of: expected.length };
}

async function runModel(m, binding) {
  const dir = join(root, m.folder);
  const modelPath = join(dir, m.model);
  const memory = () => {
    if (!binding?.planDeviceMemory) return undefined;
    try {
      const { free, total } = binding.planDeviceMemory(0);
      return (total - free) / 2 ** 20;
    } catch {
      return undefined; // no usable device: the variants run on cpu
    }
  };
  const baseline = memory();
  const results = [];
  for (const [caseName, c] of Object.entries(casesOf(m, dir))) {
    const entry = { name: m.name, case: caseName, extraCase: c.extra === true, model: c.model, deviceUsedBeforeMiB: baseline };
    const caseModel = c.model ? join(c.dir, c.model) : modelPath;
    try {
      const feeds = {};
      for (const [input, file] of Object.entries(c.inputs)) {
        const a = readNpy(join(c.dir, file));
        feeds[input] = new Tensor(a.type, a.data, a.dims);
      }
      const refs = Object.fromEntries(Object.entries(c.outputs).map(([name, file]) => [name, readNpy(join(c.dir, file))]));
      for (const variant of VARIANTS) {
        if (variant.convOnly && m.name === 'bert') continue;
        if (variant.bertOnly && m.name !== 'bert') continue;
        const eps = [{ name: 'rocm', ...variant.rocm }, 'cpu'];
        const t0 = performance.now();
        const s = await InferenceSession.create(caseModel, { executionProviders: eps, logSeverityLevel: 3 });
        const createMs = performance.now() - t0;
        const rocm = s.providers.find((p) => p.name === 'rocm');
        const compute = s.placement.nodes.filter((n) => !SHAPE_ONLY.has(n.opType));
        const off = compute.filter((n) => n.ep !== 'rocm');
        const t1 = performance.now();
        const outputs = await s.run(feeds);
        const firstRunMs = performance.now() - t1;
        const half = variant.label.includes('fp16');
        const checks = {};
        for (const [name, ref] of Object.entries(refs)) {
          const got = outputs[name];
          const data = got.location === 'cpu' ? got.data : await got.getData();
          checks[name] = compare(data, ref.data, half ? 1e-2 : 1e-3, half ? 1e-2 : 1e-3);
        }
        const times = [];
        const gpu = [];
        const hostLaunch = [];
        const copyIn = [];
        const parts = rocm?.partitions ?? [];
        for (let i = 0; i < iterations; i++) {
          const t = performance.now();
          await s.run(feeds);
          times.push(performance.now() - t);
          const g = parts.map((p) => p.stats.lastPlan?.lastGpuMs ?? -1);
          if (g.length && g.every((x) => x >= 0)) gpu.push(g.reduce((a, b) => a + b, 0));
          const c = parts.map((p) => p.stats.lastPlan?.lastCopyMs);
          if (c.length && c.every((x) => x && x.in >= 0)) copyIn.push(c.reduce((a, x) => a + x.in + x.out, 0));
          const h = parts.map((p) => p.stats.lastPlan?.lastHostLaunchMs ?? -1);
          if (h.length && h.every((x) => x >= 0)) hostLaunch.push(h.reduce((a, b) => a + b, 0));
        }
        const reasons = {};
        for (const n of off) {
          const why = `${n.opType} on ${n.ep}: ${n.declined?.find((d) => d.ep === 'rocm')?.reason.message ?? 'not offered to rocm'}`;
          reasons[why] = (reasons[why] ?? 0) + 1;
        }
        const descriptions = parts.map((p) => p.stats.lastDescription).filter(Boolean);
        entry[variant.label] = {
          createMs: Math.round(createMs),
          firstRunMs: Math.round(firstRunMs),
          p50Ms: pct(times, 0.5),
          p90Ms: pct(times, 0.9),
          gpuP50Ms: gpu.length ? pct(gpu, 0.5) : undefined,
          hostLaunchP50Ms: hostLaunch.length ? pct(hostLaunch, 0.5) : undefined,
          hostCopyP50Ms: copyIn.length ? pct(copyIn, 0.5) : undefined,
          computeNodes: compute.length,
          onRocm: compute.length - off.length,
          offRocm: reasons,
          partitions: parts.length,
          planSteps: descriptions.reduce((a, d) => a + d.steps.length, 0),
          nhwcConvSteps: descriptions.reduce((a, d) => a + d.steps.filter((st) => st.op === 'ConvNHWC').length, 0),
          layoutNotes: [...new Set(parts.map((p) => p.stats.layoutNote).filter(Boolean))],
          planArenaMiB: descriptions.reduce((a, d) => a + d.arenaBytes, 0) / 2 ** 20,
          fp16Applied: descriptions.some((d) => d.buffers.some((b) => b.dtype === 10)),
          graphCaptured: parts.map((p) => p.stats.lastPlan?.graphCaptured ?? false),
          graphNotes: [...new Set(parts.map((p) => p.stats.lastPlan?.graphNote).filter(Boolean))],
          deviceUsedMiB: memory(),
          checks,
          pass: Object.values(checks).every((r) => r.bad === 0),
        };
        await s.release();
        const e = entry[variant.label];
        if (variant.label.includes('graph')) e.deviceIoP50Ms = await deviceIoP50(caseModel, eps, feeds);
        const worst = Object.entries(checks).map(([k, r]) => `${k} ${r.worst.toExponential(1)}${r.bad ? ` (${r.bad} bad)` : ''}`).join(', ');
        console.log(
          `${m.name}/${caseName} ${variant.label}: rocm ${e.onRocm}/${e.computeNodes} in ${e.partitions} partition(s), p50 ${e.p50Ms.toFixed(2)} ms, gpu ${e.gpuP50Ms?.toFixed(2)} ms, launch ${e.hostLaunchP50Ms?.toFixed(2)} ms, copies ${e.hostCopyP50Ms?.toFixed(2)} ms, ` +
            `device IO p50 ${e.deviceIoP50Ms?.toFixed(2)} ms, create ${e.createMs} ms, first run ${e.firstRunMs} ms, used ${e.deviceUsedMiB?.toFixed(0)} MiB, fp16 ${e.fp16Applied}, nhwc ${e.nhwcConvSteps}, ${e.pass ? 'PASS' : 'FAIL'} (${worst})` +
            (e.layoutNotes.length ? ` layout: ${e.layoutNotes.join('; ').slice(0, 400)}` : '') +
            (Object.keys(e.offRocm).length ? ` off: ${JSON.stringify(e.offRocm).slice(0, 600)}` : '') + (e.graphNotes.length ? ` graph: ${e.graphNotes.join('; ')}` : ''),
        );
      }
    } catch (error) {
      entry.error = String(error?.stack ?? error?.message ?? error).slice(0, 1200);
      console.log(`${m.name}/${caseName}: ERROR ${entry.error}`);
    }
    results.push(entry);
  }
  return results;
}

/**
 * p50 of `session.run` with device-resident IO: the inputs uploaded once (the EP's uploadTensor),
 * outputs kept on the device (preferredOutputLocation 'device') and disposed unread, as PyTorch's
 * eager times have their tensors on the GPU.
 */
async function deviceIoP50(modelFile, eps, feeds) {
  const s = await InferenceSession.create(modelFile, { executionProviders: eps, logSeverityLevel: 3, preferredOutputLocation: 'device' });
  try {
    const times = await timeDeviceIo(s, feeds, { iterations });
    return times && pct(times, 0.5);
  } finally {
    await s.release();
  }
}

if (only) {
  registerExecutionProvider(cpuFactory);
  registerExecutionProvider(rocmFactory);
  const loaded = nativeHipBinding();
  const m = manifest.models.find((x) => x.name === only);
  const results = await runModel(m, loaded.ok ? loaded.binding : undefined);
  writeFileSync(join(out, `models-${only}.json`), JSON.stringify(results, null, 1));
} else {
  const wanted = process.env.SWITCHYARD_MODELS ? new Set(process.env.SWITCHYARD_MODELS.split(',')) : undefined;
  const all = [];
  let failed = false;
  for (const m of manifest.models) {
    if (wanted && !wanted.has(m.name)) continue;
    if (!existsSync(join(root, m.folder, m.model))) {
      all.push({ name: m.name, skipped: 'model file not present' });
      continue;
    }
    const t = performance.now();
    const child = spawnSync(process.execPath, ['--max-old-space-size=16384', fileURLToPath(import.meta.url), out, String(iterations), '--model', m.name], { stdio: 'inherit' });
    console.log(`${m.name}: process exited ${child.status} after ${((performance.now() - t) / 1000).toFixed(1)} s`);
    const file = join(out, `models-${m.name}.json`);
    if (child.status !== 0 || !existsSync(file)) {
      failed = true;
      all.push({ name: m.name, error: `child process exited ${child.status} ${child.signal ?? ''}` });
      continue;
    }
    all.push(...JSON.parse(readFileSync(file, 'utf8')));
  }
  writeFileSync(join(out, 'models.json'), JSON.stringify(all, null, 1));
  process.exitCode = failed || all.some((e) => e.error) ? 1 : 0;
}
