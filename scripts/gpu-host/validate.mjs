/**
 * validateProviders on the GPU host: rocm (fp32 and with `fp16: true`) against the CPU EP on the committed
 * models, with each model's stored b1 inputs (seeded random inputs where it has none). Prints one line per
 * output and writes OUT/validate.json.
 *
 *   node scripts/gpu-host/validate.mjs OUT_DIR [model …]
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Tensor, validateProviders } from '@switchyard/core';
import '@switchyard/ep-rocm';
import { readNpy } from '../../bench/lib/npy.mjs';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const [outDir, ...names] = process.argv.slice(2);
if (!outDir) throw new Error('usage: validate.mjs OUT_DIR [model …]');
const models = names.length ? names : ['mobilenet_v2', 'squeezenet1_1', 'crnn_recognizer', 'modern_encoder_opset23', 'lstm2'];
const results = [];
let failed = 0;
for (const name of models) {
  const dir = join(repo, 'models', name);
  if (!existsSync(join(dir, 'model.onnx'))) continue;
  // The first case's inputs (`<case>.in.<input>.npy`), b1 when there is one.
  const cases = [...new Set(readdirSync(dir).filter((f) => /\.in\..+\.npy$/.test(f)).map((f) => f.split('.in.')[0]))].sort();
  const pick = cases.includes('b1') ? 'b1' : cases[0];
  const feeds = {};
  for (const f of readdirSync(dir).filter((f) => pick && f.startsWith(`${pick}.in.`) && f.endsWith('.npy'))) {
    const t = readNpy(join(dir, f));
    feeds[f.slice(pick.length + 4, -4)] = new Tensor(t.type, t.data, t.dims);
  }
  for (const [label, ep, precision] of [['fp32', { name: 'rocm' }, undefined], ['fp16', { name: 'rocm', fp16: true }, 'fp16']]) {
    let placed = '';
    let onRocm = 0;
    const report = await validateProviders(join(dir, 'model.onnx'), {
      executionProviders: [ep],
      reference: ['cpu'],
      feeds,
      ...(precision ? { precision } : {}),
      onSession: (side, session) => {
        if (side === 'reference') return;
        placed = session.placement.providers.map((p) => `${p.name} ${p.nodes}`).join(', ');
        onRocm = session.placement.providers.find((p) => p.name === 'rocm')?.nodes ?? 0;
      },
    });
    // A pass with nothing on rocm would compare the CPU EP with itself.
    const passed = report.passed && onRocm > 0;
    if (!passed) failed++;
    results.push({ model: name, case: pick ?? 'random', variant: label, placed, onRocm, passed, outputs: report.outputs.map(({ name: o, precision: p, tolerance, maxAbs, maxRel, mismatches, passed }) => ({ name: o, precision: p, tolerance, maxAbs, maxRel, mismatches, passed })) });
    if (!onRocm) console.log(`${name} ${label}: FAIL, no node ran on rocm [${placed}]`);
    for (const o of report.outputs) console.log(`${name} ${label} [${placed}] ${o.name}: max abs ${o.maxAbs.toExponential(2)} max rel ${o.maxRel.toExponential(2)} (${o.precision}) ${o.passed ? 'pass' : `FAIL (${o.mismatches} mismatches)`}`);
  }
}
writeFileSync(join(outDir, 'validate.json'), JSON.stringify({ date: new Date().toISOString(), results }, null, 2) + '\n');
console.log(`${results.length - failed} of ${results.length} validations passed`);
process.exit(failed ? 1 : 0);
