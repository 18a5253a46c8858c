// Start-up cost in a fresh process, after an earlier process ran the same model (so the on-disk
// cuDNN algorithm cache is warm): what a service pays on restart.
//   node scripts/gpu-host/startup.mjs OUT_DIR MODEL CASE [variant: plain|graph|fp16]
// Reports importMs (loading the packages and registering EPs), createMs (InferenceSession.create:
// parse, optimize, place, EP init), firstRunMs (plan build, constant upload, algorithm lookup),
// secondRunMs, and the process time at the end.
const t0 = performance.now();
const { InferenceSession, Tensor, registerExecutionProvider } = await import('@switchyard/core');
const { executionProviderFactory: cpuFactory } = await import('@switchyard/ep-cpu');
const { executionProviderFactory: rocmFactory } = await import('@switchyard/ep-rocm');
const { readNpy } = await import('../../bench/lib/npy.mjs');
const { appendFileSync, readFileSync } = await import('node:fs');
const { join } = await import('node:path');
registerExecutionProvider(cpuFactory);
registerExecutionProvider(rocmFactory);
const importMs = performance.now() - t0;

const [out = '.', name, caseName, variant = 'plain'] = process.argv.slice(2);
const root = new URL('../../models/', import.meta.url).pathname;
const manifest = JSON.parse(readFileSync(join(root, 'manifest.json'), 'utf8'));
const m = manifest.models.find((x) => x.name === name);
const dir = join(root, m.folder);
const c = m.cases[caseName];
const feeds = {};
for (const [input, file] of Object.entries(c.inputs)) {
  const a = readNpy(join(dir, file));
  feeds[input] = new Tensor(a.type, a.data, a.dims);
}
const rocm = { name: 'rocm', ...(variant === 'graph' ? { enableHipGraph: true } : variant === 'fp16' ? { fp16: true } : {}) };
const t1 = performance.now();
const s = await InferenceSession.create(join(dir, m.model), { executionProviders: [rocm, 'cpu'], logSeverityLevel: 3 });
const createMs = performance.now() - t1;
const t2 = performance.now();
await s.run(feeds);
const firstRunMs = performance.now() - t2;
const t3 = performance.now();
await s.run(feeds);
const secondRunMs = performance.now() - t3;
await s.release();
const r = { name, case: caseName, variant, importMs, createMs, firstRunMs, secondRunMs, processMs: process.uptime() * 1000 };
console.log(JSON.stringify(r));
appendFileSync(join(out, 'startup.jsonl'), JSON.stringify(r) + '\n');
