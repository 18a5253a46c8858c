/**
 * `switchyard serve` with one instance against a pool of two on the same device: throughput and latency
 * under the same closed-loop load (N clients, each sending its next request when the last is answered).
 *
 *   node scripts/gpu-host/serve-pool.mjs OUT_DIR [--ep rocm] [--model mobilenet_v2] [--seconds 20] [--clients 16] [--rounds 2]
 *
 * Each configuration is a server process of its own (the server's JS thread is not shared with the load);
 * the load alternates between them in blocks. Requests use the binary-tensor extension both ways. The
 * server side imports @switchyard/serve from SWITCHYARD_SERVE_MODULE when set: the GPU host has no
 * node_modules, so scripts/gpu-host/run.sh carries one bundled file (`.gpu/serve.bundle.mjs`).
 * Writes OUT_DIR/serve-pool.json and prints a markdown table.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import { oneModelRepository, spawnServer } from '../../bench/lib/serve-process.mjs';
import { readNpy } from '../../bench/lib/npy.mjs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const repo = fileURLToPath(new URL('../../', import.meta.url));

if (process.argv[2] === '--server') {
  // Child: start the server on a free port and print its URL.
  const [, , , repository, ep] = process.argv;
  const serve = await import(process.env.SWITCHYARD_SERVE_MODULE ? pathToFileURL(process.env.SWITCHYARD_SERVE_MODULE).href : '@switchyard/serve');
  if (ep === 'rocm') await import('@switchyard/ep-rocm');
  const server = await serve.startServer({ repository, port: 0, defaultExecutionProviders: [ep], processMetrics: false });
  console.log(`listening on ${server.url}`);
  process.on('SIGTERM', () => server.close().then(() => process.exit(0)));
} else {
  await main();
}

async function main() {
  const argv = process.argv.slice(2);
  const outDir = argv[0];
  if (!outDir || outDir.startsWith('--')) throw new Error('usage: serve-pool.mjs OUT_DIR [--ep rocm] [--model mobilenet_v2] [--seconds 20] [--clients 16] [--rounds 2]');
  const opt = (name, fallback) => {
    const i = argv.indexOf(`--${name}`);
    return i < 0 ? fallback : argv[i + 1];
  };
  const ep = opt('ep', 'rocm');
  const model = opt('model', 'mobilenet_v2');
  const seconds = Number(opt('seconds', 20));
  const clients = Number(opt('clients', 16));
  const rounds = Number(opt('rounds', 2));
  const log = (line) => process.stderr.write(`${line}\n`);

  // The model's first input case (`b1.in.<name>.npy`), as the committed models ship it.
  const dir = join(repo, 'models', model);
  const { inputName, data, dims } = readFirstInput(dir);
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const head = Buffer.from(JSON.stringify({
    inputs: [{ name: inputName, shape: dims, datatype: 'FP32', parameters: { binary_data_size: bytes.byteLength } }],
    parameters: { binary_data_output: true },
  }));
  const body = Buffer.concat([head, bytes]);
  const headers = { 'content-type': 'application/octet-stream', 'inference-header-content-length': String(head.byteLength) };

  const configs = [
    { name: '1 instance', config: { instances: { count: 1, deviceIds: [0] } } },
    { name: '2 instances, one device', config: { instances: { count: 2, deviceIds: [0, 0] } } },
  ];
  const servers = [];
  for (const c of configs) servers.push(await startServer(c, dir, ep));
  const results = new Map(servers.map((s) => [s.name, { latencies: [], requests: 0, seconds: 0, errors: 0 }]));
  try {
    for (const s of servers) await load(s, 3, { latencies: [], requests: 0, seconds: 0, errors: 0 });  // warm-up: plans, HIP graphs
    for (let r = 0; r < rounds; r++) {
      for (const s of r % 2 === 0 ? servers : [...servers].reverse()) {
        const res = results.get(s.name);
        const before = res.requests;
        await load(s, seconds / rounds, res);
        log(`${s.name}, block ${r + 1}/${rounds}: ${((res.requests - before) / (seconds / rounds)).toFixed(1)} req/s`);
      }
    }
    // Where the nodes ran, as each server reports it: proof that the instances ran on the device.
    for (const s of servers) {
      const text = await (await fetch(`${s.url}/metrics`)).text();
      s.placement = text.split('\n').filter((l) => l.startsWith('switchyard_placement_nodes{'));
    }
  } finally {
    for (const s of servers) s.child.kill('SIGTERM');
  }

  const summary = servers.map((s) => {
    const r = results.get(s.name);
    const sorted = r.latencies.sort((a, b) => a - b);
    const q = (p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
    return { config: s.name, serverConfig: s.config, placement: s.placement, requests: r.requests, reqPerSec: r.requests / r.seconds, p50Ms: q(0.5), p99Ms: q(0.99), errors: r.errors };
  });
  const gpu = process.env.SWITCHYARD_GPU_NAME ?? '';
  const result = { date: new Date().toISOString(), command: `node scripts/gpu-host/serve-pool.mjs OUT ${argv.slice(1).join(' ')}`.trim(), ep, model, dims, clients, seconds, rounds, machine: { cpu: os.cpus()[0]?.model, cores: os.availableParallelism(), gpu }, summary };
  writeFileSync(join(outDir, 'serve-pool.json'), JSON.stringify(result, null, 2) + '\n');
  console.log(`| server (${model} ${dims.join('x')}, ${ep}, ${clients} clients) | req/s | p50 ms | p99 ms | errors |`);
  console.log('| --- | ---: | ---: | ---: | ---: |');
  for (const s of summary) console.log(`| ${s.config} | ${s.reqPerSec.toFixed(1)} | ${s.p50Ms.toFixed(2)} | ${s.p99Ms.toFixed(2)} | ${s.errors} |`);
  console.log(`pool / one: ${(summary[1].reqPerSec / summary[0].reqPerSec).toFixed(2)}x`);
  for (const s of summary) console.log(`${s.config}: ${s.placement.join('; ')}`);

  /** `clients` closed loops for `secs` seconds; latencies and counts go into `into`. */
  async function load(server, secs, into) {
    const url = `${server.url}/v2/models/${model}/infer`;
    const end = performance.now() + secs * 1000;
    const t0 = performance.now();
    await Promise.all(Array.from({ length: clients }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        try {
          const res = await fetch(url, { method: 'POST', headers, body });
          await res.arrayBuffer();
          if (res.status !== 200) into.errors++;
          else into.latencies.push(performance.now() - t);
        } catch {
          into.errors++;
        }
        into.requests++;
      }
    }));
    into.seconds += (performance.now() - t0) / 1000;
  }
}

/** The model's one b1 input (`b1.in.<input>.npy`), float32. */
function readFirstInput(dir) {
  const files = readdirSync(dir).filter((f) => /^b1\.in\..+\.npy$/.test(f));
  if (files.length !== 1) throw new Error(`${dir}: expected one b1.in.*.npy, found ${files.join(', ') || 'none'}`);
  const { type, data, dims } = readNpy(join(dir, files[0]));
  if (type !== 'float32') throw new Error(`${files[0]}: ${type}, expected float32`);
  return { inputName: files[0].slice('b1.in.'.length, -'.npy'.length), data, dims };
}

async function startServer({ name, config }, modelDir, ep) {
  const root = oneModelRepository(modelDir.split('/').pop(), join(modelDir, 'model.onnx'), { executionProviders: [ep], ...config });
  const { child, url } = await spawnServer(name, [fileURLToPath(import.meta.url), '--server', root, ep]);
  return { name, config, child, url };
}
