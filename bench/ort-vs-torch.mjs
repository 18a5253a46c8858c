/**
 * Checks the exports themselves: every case of models/manifest.json through onnxruntime-node,
 * against PyTorch's outputs, with the real-models test's rule (|ort − torch| ≤ 1e-4 + 1e-3·|torch|).
 * When Switchyard disagrees with torch on a model this says whether the graph or the EP is wrong.
 *
 *   node bench/ort-vs-torch.mjs [--models a,b] [--level disabled|basic|extended|all]
 *
 * Models not generated yet are skipped (run /usr/bin/python3 models/generate.py --only …).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { readNpy } from './lib/npy.mjs';
import { ROOT } from './lib/models.mjs';

const ATOL = 1e-4;
const RTOL = 1e-3;
const require = createRequire(import.meta.url);
const ort = require('onnxruntime-node');

const { values } = parseArgs({ options: { models: { type: 'string' }, level: { type: 'string', default: 'all' } } });
const wanted = values.models?.split(',').map((s) => s.trim());
const manifest = JSON.parse(readFileSync(join(ROOT, 'models/manifest.json'), 'utf8'));
let failed = 0;

for (const entry of manifest.models.filter((m) => !wanted || wanted.includes(m.name))) {
  const folder = join(ROOT, 'models', entry.folder);
  const modelPath = join(folder, entry.model);
  if (!existsSync(modelPath)) {
    console.log(`${entry.name}: skipped, ${modelPath} not generated`);
    continue;
  }
  const session = await ort.InferenceSession.create(modelPath, { executionProviders: ['cpu'], graphOptimizationLevel: values.level, logSeverityLevel: 3 });
  for (const [caseName, files] of Object.entries(entry.cases)) {
    const feeds = {};
    for (const [name, file] of Object.entries(files.inputs)) {
      const a = readNpy(join(folder, file));
      feeds[name] = new ort.Tensor(a.type, a.data, a.dims);
    }
    const started = performance.now();
    const outputs = await session.run(feeds);
    const ms = performance.now() - started;
    let worst = { name: '', maxAbs: 0, failures: 0 };
    for (const [name, file] of Object.entries(files.outputs)) {
      const expected = readNpy(join(folder, file));
      const got = outputs[name];
      if (!got || got.dims.join() !== expected.dims.join()) {
        console.log(`${entry.name} ${caseName} ${name}: dims ${got?.dims} vs torch ${expected.dims}`);
        failed++;
        continue;
      }
      const c = compare(got.data, expected.data);
      if (c.failures) failed++;
      if (c.failures > worst.failures || (!worst.failures && c.maxAbs >= worst.maxAbs)) worst = { name, ...c };
    }
    const verdict = worst.failures ? `FAIL (${worst.failures} elements of ${worst.name})` : 'ok';
    console.log(`${entry.name.padEnd(29)} ${caseName.padEnd(8)} ort ${values.level}: ${verdict}, worst output ${worst.name} max abs ${worst.maxAbs.toExponential(2)}, run ${ms.toFixed(0)} ms`);
  }
  await session.release();
}
process.exit(failed ? 1 : 0);

function compare(a, b) {
  let maxAbs = 0;
  let failures = 0;
  for (let i = 0; i < b.length; i++) {
    const diff = Math.abs(a[i] - b[i]);
    if (!(diff <= ATOL + RTOL * Math.abs(b[i]))) failures++;
    if (diff > maxAbs) maxAbs = diff;
  }
  return { maxAbs, failures };
}
