// Spot check of the CPU EP against onnxruntime-node on models it was not tuned on (export_models.py) or one-op
// models (export_ops.py): per model, p50 of both in interleaved blocks (2 threads by default), the ratio, the
// largest difference of the first output (from torch's out.npy when there is one, else from onnxruntime's),
// and what ran each node. Ratios above 2x are flagged. Not part of `pnpm bench`: a quick look for whole
// classes of ops or patterns that fall off the fast paths.
// Usage: node bench/spot/run.mjs DIR [name,name...] [--threads N]
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createEngine } from '../lib/engines.mjs';
import { warmUp, planSchedule, timeInterleaved } from '../lib/timing.mjs';
import { readNpy } from '../lib/npy.mjs';

const args = process.argv.slice(2);
const threadsAt = args.indexOf('--threads');
const threads = threadsAt >= 0 ? Number(args.splice(threadsAt, 2)[1]) : 2;
const [dir, list] = args;
if (!dir) throw new Error('usage: node bench/spot/run.mjs DIR [name,name...] [--threads N]');
const names = list ? list.split(',') : fs.readdirSync(dir).filter((n) => fs.existsSync(`${dir}/${n}/model.onnx`)).sort();

/** inputs.npz through numpy (every array, with its dtype and shape). */
function readNpz(path) {
  const script = 'import numpy as np, json, sys, base64\nz = np.load(sys.argv[1])\nprint(json.dumps({k: [str(v.dtype), list(v.shape), base64.b64encode(np.ascontiguousarray(v).tobytes()).decode()] for k, v in z.items()}))';
  const json = execFileSync('/usr/bin/python3', ['-c', script, path], { maxBuffer: 1 << 30 }).toString();
  const arrays = { float32: Float32Array, int64: BigInt64Array, int32: Int32Array, bool: Uint8Array };
  return Object.fromEntries(Object.entries(JSON.parse(json)).map(([k, [dtype, dims, b64]]) => {
    const buf = Buffer.from(b64, 'base64');
    const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
    return [k, { type: dtype, data: new arrays[dtype](ab), dims }];
  }));
}

function inputsOf(modelDir, inputNames) {
  if (fs.existsSync(`${modelDir}/inputs.npz`)) return readNpz(`${modelDir}/inputs.npz`);
  return { [inputNames[0]]: readNpy(`${modelDir}/input.npy`) };
}

function maxDiff(a, b) {
  const x = Array.from(a, Number), y = Array.from(b, Number);
  if (x.length !== y.length) return Infinity;
  let d = 0;
  for (let i = 0; i < x.length; i++) d = Math.max(d, Math.abs(x[i] - y[i]));
  return d;
}

for (const name of names) {
  const modelDir = `${dir}/${name}`;
  try {
    const sy = await createEngine('switchyard', `${modelDir}/model.onnx`, threads);
    const ort = await createEngine('ort', `${modelDir}/model.onnx`, threads);
    const inputs = inputsOf(modelDir, sy.inputNames);
    const contestants = [sy, ort].map((e) => ({ name: e.name, run: e.run, feeds: e.makeFeeds(inputs) }));
    const ours = (await sy.run(contestants[0].feeds))[sy.outputNames[0]].data;
    const reference = fs.existsSync(`${modelDir}/out.npy`) ? readNpy(`${modelDir}/out.npy`).data : (await ort.run(contestants[1].feeds))[ort.outputNames[0]].data;
    const slowest = [];
    for (const c of contestants) slowest.push(Math.min(...(await warmUp(c, 3, 120_000, 300)).slice(1)));
    const t = await timeInterleaved(contestants, { ...planSchedule(Math.max(...slowest), true), rounds: 4 });
    const ratio = t.switchyard.p50Ms / t.ort.p50Ms;
    const impl = Object.entries(sy.implementations).map(([k, v]) => `${v} ${k}`).join(', ');
    console.log(`${ratio > 2 ? '!!' : '  '} ${name.padEnd(20)} switchyard ${t.switchyard.p50Ms.toFixed(3).padStart(9)} ms  ort ${t.ort.p50Ms.toFixed(3).padStart(9)} ms  ${ratio.toFixed(2)}x  diff ${maxDiff(ours, reference).toExponential(1)}  [${impl}]`);
    await sy.release();
    await ort.release();
  } catch (error) {
    console.log(`   ${name.padEnd(20)} ERROR ${String(error.message).split('\n')[0].slice(0, 200)}`);
  }
}
