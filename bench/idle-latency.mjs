// Latency after idle: the demo model (examples/models/tiny-cnn.onnx) warmed, then 40 rounds of a 100 ms
// sleep followed by 5 timed runs; prints the p50 of the 1st..5th run after the sleep -- what a server
// with sporadic requests sees, unlike a warm loop.
//   node bench/idle-latency.mjs [threads] [ts] [prof]   ts: TS kernels only; prof: also the last per-node profile
// Uses the built packages (run scripts/setup.sh first).
import { InferenceSession, Tensor } from '@switchyard/core';
import { CpuExecutionProvider } from '@switchyard/ep-cpu';
const threads = Number(process.argv[2] ?? 1);
const useNative = process.argv[3] !== 'ts';
const s = await InferenceSession.create(new URL('../examples/models/tiny-cnn.onnx', import.meta.url).pathname, { executionProviders: [new CpuExecutionProvider({ useNative })], intraOpNumThreads: threads, graphOptimizationLevel: 'all', enableProfiling: process.argv[4] === 'prof' });
const name = s.inputNames[0];
const feeds = { [name]: new Tensor('float32', new Float32Array(3 * 32 * 32).fill(0.1), [1, 3, 32, 32]) };
for (let i = 0; i < 300; i++) await s.run(feeds);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const byIndex = [[], [], [], [], []];
for (let round = 0; round < 40; round++) {
  await sleep(100);
  for (let i = 0; i < 5; i++) { const a = performance.now(); await s.run(feeds); byIndex[i].push(performance.now() - a); }
}
const p50 = (t) => (t.sort((a, b) => a - b)[t.length >> 1] * 1000).toFixed(0);
console.log(`threads ${threads} ${useNative ? 'native' : 'ts-only'}: run k after 100 ms idle, p50 us:`, byIndex.map(p50).join(' '));
if (process.argv[4] === 'prof') {
  const { readFileSync } = await import('node:fs');
  const ev = JSON.parse(readFileSync(s.endProfiling(), 'utf8'));
  console.log(ev.slice(-12).map((e) => `${e.name}:${e.dur}`).join(' '));
}
