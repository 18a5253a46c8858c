// Real models on the GPU host: for each model of models/manifest.json that is present, run every
// case with executionProviders ['rocm', 'cpu'], compare with the stored reference outputs
// (atol/rtol 1e-3), record where each compute node ran, and time warm runs.
//   node scripts/gpu-host/models.mjs OUT_DIR [iterations]
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InferenceSession, Tensor, registerExecutionProvider } from '@switchyard/core';
import { executionProviderFactory as cpuFactory } from '@switchyard/ep-cpu';
import { executionProviderFactory as rocmFactory } from '@switchyard/ep-rocm';
import { readNpy } from './npy.mjs';

registerExecutionProvider(cpuFactory);
registerExecutionProvider(rocmFactory);

const [out = '.', iterArg = '20'] = process.argv.slice(2);
const iterations = Number(iterArg);
const root = new URL('../../models/', import.meta.url).pathname;
const manifest = JSON.parse((await import('node:fs')).readFileSync(join(root, 'manifest.json'), 'utf8'));
const SHAPE_ONLY = new Set(['Shape', 'Constant', 'ConstantOfShape', 'Identity']);

function compare(actual, expected, atol = 1e-3, rtol = 1e-3) {
  let worst = 0;
  let bad = 0;
  for (let i = 0; i < expected.length; i++) {
    const a = Number(actual[i]);
    const e = Number(expected[i]);
    const err = Math.abs(a - e);
    worst = Math.max(worst, err);
    if (!(err <= atol + rtol * Math.abs(e))) bad++;
  }
  return { worst, bad };
}

const results = [];
for (const m of manifest.models) {
  const dir = join(root, m.folder);
  const modelPath = join(dir, m.model);
  if (!existsSync(modelPath)) {
    results.push({ name: m.name, skipped: 'model file not present' });
    continue;
  }
  for (const [caseName, c] of Object.entries(m.cases)) {
    const entry = { name: m.name, case: caseName };
    try {
      const feeds = {};
      for (const [input, file] of Object.entries(c.inputs)) {
        const a = readNpy(join(dir, file));
        feeds[input] = new Tensor(a.type, a.data, a.dims);
      }
      for (const variant of [{ label: 'rocm', eps: ['rocm', 'cpu'] }, { label: 'rocm+graph', eps: [{ name: 'rocm', enableHipGraph: true }, 'cpu'] }, { label: 'rocm+fp16', eps: [{ name: 'rocm', fp16: true }, 'cpu'] }]) {
        const t0 = performance.now();
        const s = await InferenceSession.create(modelPath, { executionProviders: variant.eps, logSeverityLevel: 3 });
        const createMs = performance.now() - t0;
        const compute = s.placement.nodes.filter((n) => !SHAPE_ONLY.has(n.opType));
        const off = compute.filter((n) => n.ep !== 'rocm');
        const t1 = performance.now();
        const outputs = await s.run(feeds);
        const firstRunMs = performance.now() - t1;
        const checks = {};
        for (const [name, file] of Object.entries(c.outputs)) {
          const ref = readNpy(join(dir, file));
          const got = outputs[name];
          const data = got.location === 'cpu' ? got.data : await got.getData();
          checks[name] = compare(data, ref.data, variant.label.includes('fp16') ? 3e-2 : 1e-3, variant.label.includes('fp16') ? 3e-2 : 1e-3);
        }
        const times = [];
        for (let i = 0; i < iterations; i++) {
          const t = performance.now();
          await s.run(feeds);
          times.push(performance.now() - t);
        }
        times.sort((a, b) => a - b);
        entry[variant.label] = {
          createMs: Math.round(createMs),
          firstRunMs: Math.round(firstRunMs),
          p50Ms: times[Math.floor(times.length / 2)],
          p90Ms: times[Math.floor(times.length * 0.9)],
          computeNodes: compute.length,
          onRocm: compute.length - off.length,
          offRocm: [...new Set(off.map((n) => `${n.opType} (${n.declined?.find((d) => d.ep === 'rocm')?.reason.message ?? n.ep})`))].slice(0, 12),
          partitions: new Set(s.placement.nodes.filter((n) => n.ep === 'rocm').map((n) => n.partition)).size,
          checks,
          pass: Object.values(checks).every((r) => r.bad === 0),
        };
        await s.release();
        console.log(`${m.name}/${caseName} ${variant.label}: ${JSON.stringify(entry[variant.label])}`);
      }
      // CPU baseline (one warm run; the TS kernels are slow), only when asked for.
      if (process.env.SWITCHYARD_CPU_BASELINE) {
        const s = await InferenceSession.create(modelPath, { executionProviders: ['cpu'], logSeverityLevel: 3 });
        await s.run(feeds);
        const t = performance.now();
        await s.run(feeds);
        entry.cpuMs = performance.now() - t;
        await s.release();
      }
    } catch (error) {
      entry.error = String(error?.message ?? error).slice(0, 600);
      console.log(`${m.name}/${caseName}: ERROR ${entry.error}`);
    }
    results.push(entry);
  }
}
writeFileSync(join(out, 'models.json'), JSON.stringify(results, null, 1));
