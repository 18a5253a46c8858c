// Per-op-type time: Switchyard (enableProfiling trace) vs onnxruntime-node (its profile), N runs each.
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { InferenceSession, Tensor } from '@switchyard/core';
import '@switchyard/ep-cpu';
import ort from 'onnxruntime-node';
const [dir, runsArg = '30', threads = '2'] = process.argv.slice(2);
const runs = Number(runsArg);
const script = 'import numpy as np, json, sys, base64\nz = np.load(sys.argv[1])\nprint(json.dumps({k: [str(v.dtype), list(v.shape), base64.b64encode(np.ascontiguousarray(v).tobytes()).decode()] for k, v in z.items()}))';
const npz = fs.existsSync(`${dir}/inputs.npz`);
const script1 = 'import numpy as np, json, sys, base64\nv = np.load(sys.argv[1])\nprint(json.dumps({"input": [str(v.dtype), list(v.shape), base64.b64encode(np.ascontiguousarray(v).tobytes()).decode()]}))';
const raw = JSON.parse(execFileSync('/usr/bin/python3', ['-c', npz ? script : script1, npz ? `${dir}/inputs.npz` : `${dir}/input.npy`], { maxBuffer: 1 << 30 }).toString());
if (!npz) { const probe = await ort.InferenceSession.create(`${dir}/model.onnx`); raw[probe.inputNames[0]] = raw.input; if (probe.inputNames[0] !== 'input') delete raw.input; }
const T = { float32: Float32Array, int64: BigInt64Array, int32: Int32Array };
const feeds = {}, ofeeds = {};
for (const [k, [dt, shape, b64]] of Object.entries(raw)) {
  const buf = Buffer.from(b64, 'base64');
  const arr = new T[dt](buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
  feeds[k] = new Tensor(dt, arr, shape); ofeeds[k] = new ort.Tensor(dt, arr, shape);
}
const s = await InferenceSession.create(`${dir}/model.onnx`, { executionProviders: ['cpu'], intraOpNumThreads: Number(threads), enableProfiling: true, profileFilePrefix: '/tmp/sy/syprof' });
for (let i = 0; i < 5; i++) await s.run(feeds);
const sy = {};
const tSy = performance.now();
for (let i = 0; i < runs; i++) await s.run(feeds);
const syWall = (performance.now() - tSy) / runs;
const trace = JSON.parse(fs.readFileSync(s.endProfiling(), 'utf8'));
const events = (trace.traceEvents ?? trace).filter((e) => e.cat === 'Node' || e.args?.op_name);
for (const e of events) { const op = e.args?.op_name ?? e.name; sy[op] = (sy[op] ?? 0) + e.dur; }
await new Promise((r) => setTimeout(r, 200));
const o = await ort.InferenceSession.create(`${dir}/model.onnx`, { intraOpNumThreads: Number(threads), enableProfiling: true, profileFilePrefix: '/tmp/sy/ortprof' });
for (let i = 0; i < 5; i++) await o.run(ofeeds);
await new Promise((r) => setTimeout(r, 200));
const tO = performance.now();
for (let i = 0; i < runs; i++) await o.run(ofeeds);
const oWall = (performance.now() - tO) / runs;
const ofile = o.endProfiling ? o.endProfiling() : undefined;
const f = fs.readdirSync('/tmp/sy').filter((x) => x.startsWith('ortprof')).map((x) => `/tmp/sy/${x}`).sort((a, b) => fs.statSync(b).mtimeMs - fs.statSync(a).mtimeMs)[0];
const oe = JSON.parse(fs.readFileSync(f, 'utf8')).filter((e) => e.cat === 'Node' && e.name.endsWith('_kernel_time'));
const ort_ = {};
for (const e of oe) { const op = e.args.op_name; ort_[op] = (ort_[op] ?? 0) + e.dur; }
const syN = Object.values(sy).reduce((a, b) => a + b, 0), oN = Object.values(ort_).reduce((a, b) => a + b, 0);
console.log(`wall per run: sy ${syWall.toFixed(2)} ms, ort ${oWall.toFixed(2)} ms (${(syWall / oWall).toFixed(2)}x); node sums/run: sy ${(syN / (runs + 5) / 1000).toFixed(2)} ms (${events.length / (runs + 5) | 0} ev/run) ort ${(oN / (runs + 5) / 1000).toFixed(2)} ms`);
const ops = [...new Set([...Object.keys(sy), ...Object.keys(ort_)])].sort((a, b) => (sy[b] ?? 0) - (sy[a] ?? 0));
for (const op of ops) console.log(`${op.padEnd(28)} sy ${((sy[op] ?? 0) / (runs + 5) / 1000).toFixed(3)}  ort ${((ort_[op] ?? 0) / (runs + 5) / 1000).toFixed(3)}`);
