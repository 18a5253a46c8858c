// The committed float32 models, converted to a newer opset by the host's onnx (1.23.1 there:
// scripts/onnx-suite/convert-opset.py), on [rocm, cpu] against the same models at their exported
// opset: every compute node the original runs on rocm must still run there (a newer schema version
// alone must not make rocm decline), and the outputs must match torch's references (atol/rtol 1e-3).
//   node scripts/gpu-host/opset-copies.mjs OUT_DIR [opset]      (python3 with onnx on PATH)
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { InferenceSession, Tensor, registerExecutionProvider } from '@switchyard/core';
import { executionProviderFactory as cpuFactory } from '@switchyard/ep-cpu';
import { executionProviderFactory as rocmFactory } from '@switchyard/ep-rocm';
import { MODELS_ROOT, readManifest } from '../../bench/gpu/cases.mjs';
import { readNpy } from '../../bench/lib/npy.mjs';

const [outDir = '.gpu/out', opsetArg = '21'] = process.argv.slice(2);
const opset = Number(opsetArg);
registerExecutionProvider(cpuFactory);
registerExecutionProvider(rocmFactory);
// The copies stay out of OUT_DIR (only a few files come back from the host).
const copies = join('.gpu', `opset${opset}`);
mkdirSync(copies, { recursive: true });

/** Node name → where it ran (and rocm's reason when elsewhere), for the nodes that compute. */
function placementOf(session) {
  const out = new Map();
  for (const n of session.placement.nodes) {
    if (['Shape', 'Size', 'Constant'].includes(n.opType)) continue;
    out.set(n.name, { op: n.opType, ep: n.ep, why: n.declined?.find((d) => d.ep === 'rocm')?.reason.message });
  }
  return out;
}

function maxDiff(got, ref) {
  let worst = 0;
  let bad = 0;
  for (let i = 0; i < ref.length; i++) {
    const d = Math.abs(got[i] - ref[i]);
    worst = Math.max(worst, d);
    if (!(d <= 1e-3 + 1e-3 * Math.abs(ref[i]))) bad++;
  }
  return { worst, bad };
}

const results = [];
let failed = 0;
for (const m of readManifest().models.filter((e) => e.committed && !e.conversion && !e.exporter)) {
  const source = join(MODELS_ROOT, m.folder, m.model);
  const copy = join(copies, `${m.name}.onnx`);
  const conv = spawnSync('python3', ['scripts/onnx-suite/convert-opset.py', source, copy, String(opset)], { encoding: 'utf8' });
  if (conv.status !== 0 || !existsSync(copy)) {
    results.push({ name: m.name, error: `conversion failed: ${conv.stderr.trim().split('\n').pop()}` });
    failed++;
    continue;
  }
  const eps = [{ name: 'rocm' }, 'cpu'];
  const original = await InferenceSession.create(source, { executionProviders: eps, logSeverityLevel: 3 });
  const converted = await InferenceSession.create(copy, { executionProviders: eps, logSeverityLevel: 3 });
  const before = placementOf(original);
  const after = placementOf(converted);
  const lost = [...before].filter(([name, p]) => p.ep === 'rocm' && after.get(name)?.ep !== 'rocm').map(([name]) => `${name}: ${after.get(name)?.why ?? 'gone'}`);
  const entry = { name: m.name, opset, nodes: after.size, onRocmOriginal: [...before.values()].filter((p) => p.ep === 'rocm').length, onRocmConverted: [...after.values()].filter((p) => p.ep === 'rocm').length, lostToVersion: lost, cases: {} };
  for (const [caseName, files] of Object.entries(m.cases)) {
    const feeds = Object.fromEntries(Object.entries(files.inputs).map(([n, f]) => { const a = readNpy(join(MODELS_ROOT, m.folder, f)); return [n, new Tensor(a.type, a.data, a.dims)]; }));
    const out = await converted.run(feeds);
    entry.cases[caseName] = Object.fromEntries(Object.entries(files.outputs).map(([n, f]) => [n, maxDiff(out[n].data, readNpy(join(MODELS_ROOT, m.folder, f)).data)]));
    if (Object.values(entry.cases[caseName]).some((d) => d.bad > 0)) failed++;
  }
  if (lost.length) failed++;
  await original.release();
  await converted.release();
  results.push(entry);
  console.log(JSON.stringify(entry));
}
writeFileSync(join(outDir, `opset${opset}-copies.json`), JSON.stringify(results, null, 2));
console.log(failed ? `opset ${opset} copies: ${failed} problem(s)` : `opset ${opset} copies: every committed model keeps its rocm placement and matches torch`);
process.exitCode = failed ? 1 : 0;
