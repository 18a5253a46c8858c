/**
 * `node bench/fp16.mjs`: a float16 ResNet-18 (torchvision, seeded, converted to float16 the way
 * onnxconverter-common does with keep_io_types: models/float16.py) on Switchyard's CPU EP against
 * onnxruntime-node on the same file, and against the same model in float32, in one process with
 * interleaved blocks (bench/lib/timing.mjs). The models are written into a temporary folder.
 *
 *   node bench/fp16.mjs [--threads N] [--quick] [--out FILE]
 *
 * Before timing, Switchyard's float16 output is checked against ORT's (float16 steps, as the tests
 * count them); the float16 model is also run a few times at 'basic' (every float16 op in TypeScript,
 * what the CPU EP did before float16-in-float32) for the before/after ratio.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { createEngine, engineVersions } from './lib/engines.mjs';
import { ROOT } from './lib/models.mjs';
import { planSchedule, timeInterleaved, warmUp } from './lib/timing.mjs';

const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const threads = Number(flag('--threads', String(os.availableParallelism())));
const quick = args.includes('--quick');
const out = flag('--out', undefined);
if (!Number.isInteger(threads) || threads < 1) throw new Error(`--threads takes a positive integer, got ${flag('--threads')}`);

const core = await import('@switchyard/core');
const cpu = await import('@switchyard/ep-cpu');
const dir = mkdtempSync(join(os.tmpdir(), 'switchyard-fp16-bench-'));
try {
  const gen = spawnSync('/usr/bin/python3', [join(ROOT, 'models/float16.py'), dir, 'resnet18'], { encoding: 'utf8' });
  if (gen.status !== 0) throw new Error(`models/float16.py failed:\n${gen.stderr}`);
  const fp16 = join(dir, 'resnet18_fp16.onnx');
  const fp32 = join(dir, 'resnet18.onnx');

  const size = 224;
  const image = new Float32Array(3 * size * size);
  let s = 7;
  for (let i = 0; i < image.length; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    image[i] = (s / 2 ** 32) * 4 - 2;
  }
  const inputs = { input: { type: 'float32', data: image, dims: [1, 3, size, size] } };

  const engines = [
    { name: 'switchyard fp16', engine: await createEngine('switchyard', fp16, threads) },
    { name: 'ort fp16', engine: await createEngine('ort', fp16, threads) },
    { name: 'switchyard fp32', engine: await createEngine('switchyard', fp32, threads) },
    { name: 'ort fp32', engine: await createEngine('ort', fp32, threads) },
  ];
  const contestants = engines.map(({ name, engine }) => ({ name, run: engine.run, feeds: engine.makeFeeds(inputs) }));

  // Same answers first.
  const logits = async (c) => Float32Array.from((await c.run(c.feeds)).logits.data);
  const [syFp16, ortFp16, syFp32] = [await logits(contestants[0]), await logits(contestants[1]), await logits(contestants[2])];
  const steps = float16Steps(syFp16, ortFp16);
  console.log(`switchyard fp16 vs ort fp16: ${steps.toFixed(2)} float16 steps (max |diff| ${maxDiff(syFp16, ortFp16).toExponential(2)}); vs switchyard fp32: max |diff| ${maxDiff(syFp16, syFp32).toExponential(2)}`);
  console.log(`switchyard fp16 nodes by implementation: ${JSON.stringify(engines[0].engine.implementations)}`);

  // Before: the float16 model at 'basic' (every op float16 in TypeScript), a few plain runs.
  const basic = await core.InferenceSession.create(fp16, { executionProviders: [new cpu.CpuExecutionProvider()], graphOptimizationLevel: 'basic', intraOpNumThreads: threads });
  const basicFeeds = { input: new core.Tensor('float32', image, [1, 3, size, size]) };
  const basicTimes = await warmUp({ run: (f) => basic.run(f), feeds: basicFeeds }, quick ? 1 : 3);
  await basic.release();
  const basicMs = Math.min(...basicTimes);
  console.log(`switchyard fp16 at 'basic' (float16 ops in TypeScript): best of ${basicTimes.length} ${basicMs.toFixed(0)} ms`);

  let slowest = 0;
  for (const c of contestants) slowest = Math.max(slowest, Math.min(...(await warmUp(c, 3)).slice(1)));
  const timing = await timeInterleaved(contestants, planSchedule(slowest, quick));
  for (const c of contestants) console.log(`${c.name.padEnd(16)} p50 ${timing[c.name].p50Ms.toFixed(2)} ms  p90 ${timing[c.name].p90Ms.toFixed(2)} ms  (${timing[c.name].runs} runs)`);
  const p50 = (n) => timing[n].p50Ms;
  const ratios = {
    'switchyard fp16 / ort fp16': p50('switchyard fp16') / p50('ort fp16'),
    'switchyard fp16 / switchyard fp32': p50('switchyard fp16') / p50('switchyard fp32'),
    'ort fp16 / ort fp32': p50('ort fp16') / p50('ort fp32'),
    "switchyard fp16 'basic' / 'all'": basicMs / p50('switchyard fp16'),
  };
  for (const [k, v] of Object.entries(ratios)) console.log(`${k}: ${v.toFixed(3)}`);

  const report = {
    date: new Date().toISOString(),
    command: ['node bench/fp16.mjs', ...args].join(' '),
    model: `torchvision resnet18 (seeded), input [1, 3, ${size}, ${size}]; float16 by models/float16.py (keep_io_types)`,
    machine: { cpu: os.cpus()[0]?.model, cores: os.availableParallelism(), loadavg: os.loadavg(), shared: true },
    threads,
    versions: engineVersions(),
    check: { float16StepsFromOrt: steps, maxAbsDiffFromOrt: maxDiff(syFp16, ortFp16) },
    implementations: engines[0].engine.implementations,
    basicMs,
    timing,
    ratios,
  };
  if (out) {
    mkdirSync(join(out, '..'), { recursive: true });
    writeFileSync(out, JSON.stringify(report, null, 2) + '\n');
    console.log(`wrote ${out}`);
  }
  for (const { engine } of engines) await engine.release();
} finally {
  rmSync(dir, { recursive: true, force: true });
}

function maxDiff(a, b) {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i] - b[i]));
  return m;
}

/** max |a − b| / (2^-10 · (|b| + rms(b))), as packages/ep-cpu's float16 tests count. */
function float16Steps(a, b) {
  const rms = Math.sqrt(b.reduce((acc, v) => acc + v * v, 0) / b.length);
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]) / (2 ** -10 * (Math.abs(b[i]) + rms)));
  return worst;
}
