// The ONNX backend tests on the GPU host: the same folders with ['rocm', 'cpu'] and with ['cpu']
// alone; writes the pass counts, the tests rocm took part in, and each regression.
//   node scripts/gpu-host/backend.mjs DATA_ROOT OUT_DIR
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InferenceSession, registerExecutionProvider } from '@switchyard/core';
import { runBackendSuite, listBackendTests } from '@switchyard/core/testing';
import { executionProviderFactory as cpuFactory } from '@switchyard/ep-cpu';
import { executionProviderFactory as rocmFactory } from '@switchyard/ep-rocm';

registerExecutionProvider(cpuFactory);
registerExecutionProvider(rocmFactory);
const [root, out = '.'] = process.argv.slice(2);
const suites = ['node', 'pytorch-converted', 'pytorch-operator', 'simple'];
const total = listBackendTests(root, suites).length;

const gpu = await runBackendSuite({ root, suites, session: { executionProviders: ['rocm', 'cpu'], logSeverityLevel: 3 } });
const cpu = await runBackendSuite({ root, suites, session: { executionProviders: ['cpu'], logSeverityLevel: 3 } });

// Which tests placed at least one node on rocm (a session per test; cheap next to the runs).
let usedRocm = 0;
const onRocm = [];
for (const t of listBackendTests(root, suites)) {
  try {
    const s = await InferenceSession.create(join(t.dir, 'model.onnx'), { executionProviders: ['rocm', 'cpu'], logSeverityLevel: 3 });
    if (s.placement.nodes.some((n) => n.ep === 'rocm')) {
      usedRocm++;
      onRocm.push(t.id);
    }
    await s.release();
  } catch {}
}
const cpuPassed = new Set(cpu.results.filter((r) => r.outcome === 'passed').map((r) => r.id));
const regressions = gpu.results.filter((r) => r.outcome !== 'passed' && cpuPassed.has(r.id)).map((r) => ({ id: r.id, detail: r.detail }));
const summary = { total, rocmCpu: { passed: gpu.passed, failed: gpu.failed, unsupported: gpu.unsupported }, cpu: { passed: cpu.passed, failed: cpu.failed, unsupported: cpu.unsupported }, testsUsingRocm: usedRocm, regressions, onRocm };
writeFileSync(join(out, 'backend.json'), JSON.stringify(summary, null, 1));
console.log(JSON.stringify({ ...summary, onRocm: undefined }, null, 1));
