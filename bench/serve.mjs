/**
 * Load test of `switchyard serve` on loopback: SqueezeNet 1.1 on the CPU EP, dynamic batching on and
 * off, each in a server process of its own (the built CLI, as users run it), loaded by autocannon in
 * this process in interleaved blocks (on, off, on, off, …) so drifts in machine load hit both alike.
 *
 *   node bench/serve.mjs [--seconds 30] [--rounds 2] [--connections 8] [--max-batch 8] [--delay-ms 5] [--warmup-seconds 5]
 *
 * --seconds is the load time per configuration, split over --rounds blocks, after an uncounted
 * warm-up block of load per server (so the batched server has met its batch sizes before RSS is read). Requests use the
 * binary-tensor extension both ways (a 588 KiB input, 4000-byte logits back). Reports requests/s,
 * latency p50/p99, errors (non-2xx, socket errors, timeouts), mean batch size from /metrics, and
 * the servers' RSS (VmRSS) after warm-up and after each block: flat means no growth with requests. Writes bench/results/serve-<date>.json.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { oneModelRepository, spawnServer } from './lib/serve-process.mjs';

const repo = fileURLToPath(new URL('../', import.meta.url));
const argv = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const v = Number(argv[i + 1]);
  if (!Number.isFinite(v) || v <= 0) throw new Error(`--${name} takes a positive number`);
  return v;
};
const seconds = arg('seconds', 30);
const rounds = arg('rounds', 2);
const connections = arg('connections', 8);
const maxBatchSize = arg('max-batch', 8);
const maxQueueDelayMs = arg('delay-ms', 5);
const warmupSeconds = arg('warmup-seconds', 5);
const log = (line) => process.stderr.write(`${line}\n`);

async function startServer(name, config) {
  const root = oneModelRepository('squeezenet', join(repo, 'models/squeezenet1_1/model.onnx'), config);
  const { child, url } = await spawnServer(name, [join(repo, 'packages/cli/dist/bin.js'), 'serve', '--repository', root, '--port', '0', '--ep', 'cpu']);
  return { name, config, child, url, rss: () => procKiB(child.pid) };
}

function procKiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (f) => Number(new RegExp(`^${f}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
  return { rssKiB: field('VmRSS'), hwmKiB: field('VmHWM') };
}

// One request body: JSON head, then the image as little-endian float32.
const image = new Float32Array(3 * 224 * 224);
for (let i = 0; i < image.length; i++) image[i] = Math.sin(i * 0.37) * 0.5;
const imageBytes = Buffer.from(image.buffer);
const head = Buffer.from(JSON.stringify({
  inputs: [{ name: 'input', shape: [1, 3, 224, 224], datatype: 'FP32', parameters: { binary_data_size: imageBytes.byteLength } }],
  outputs: [{ name: 'logits', parameters: { binary_data: true } }],
}));
const body = Buffer.concat([head, imageBytes]);
const headers = { 'content-type': 'application/octet-stream', 'inference-header-content-length': String(head.byteLength) };

async function checkOnce(server) {
  const res = await fetch(`${server.url}/v2/models/squeezenet/infer`, { method: 'POST', headers, body });
  const bytes = Buffer.from(await res.arrayBuffer());
  const n = Number(res.headers.get('inference-header-content-length'));
  const out = JSON.parse(bytes.subarray(0, n).toString()).outputs[0];
  if (res.status !== 200 || out.shape.join() !== '1,1000' || bytes.byteLength - n !== 4000) throw new Error(`${server.name}: bad answer ${res.status} ${bytes.subarray(0, 200)}`);
}

async function metricsOf(server) {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const num = (re) => Number(re.exec(text)?.[1] ?? NaN);
  return { runs: num(/^switchyard_batch_size_count\{[^}]*\} (\d+)/m), rows: num(/^switchyard_batch_size_sum\{[^}]*\} (\d+)/m) };
}

function load(server, duration) {
  return new Promise((resolve, reject) => {
    autocannon({ url: `${server.url}/v2/models/squeezenet/infer`, method: 'POST', headers, body, connections, duration, timeout: 30 }, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

const cpuModel = os.cpus()[0]?.model ?? 'unknown CPU';
log(`bench/serve: ${cpuModel}, ${os.availableParallelism()} cores, load ${os.loadavg().map((v) => v.toFixed(2)).join(' ')}`);
const servers = [
  await startServer('batching on', { dynamicBatching: { maxBatchSize, maxQueueDelayMs } }),
  await startServer('batching off', {}),
];
const results = new Map(servers.map((s) => [s.name, { blocks: [], rssAfterBlock: [], rssBefore: null, rssAfter: null, metricsBefore: null }]));
try {
  for (const s of servers) {
    // Warm-up: first runs plan and allocate, and under load the batched server meets its batch sizes.
    for (let i = 0; i < 3; i++) await checkOnce(s);
    await load(s, warmupSeconds);
    const r = results.get(s.name);
    r.rssBefore = s.rss();
    r.metricsBefore = await metricsOf(s);
  }
  const block = Math.max(1, Math.round(seconds / rounds));
  for (let round = 0; round < rounds; round++) {
    for (const s of round % 2 === 0 ? servers : [...servers].reverse()) {
      const res = await load(s, block);
      results.get(s.name).blocks.push(res);
      results.get(s.name).rssAfterBlock.push(s.rss().rssKiB / 1024);
      log(`${s.name}, block ${round + 1}/${rounds} (${block} s): ${res.requests.average.toFixed(1)} req/s, p50 ${res.latency.p50} ms, p99 ${res.latency.p99} ms, non-2xx ${res.non2xx}, errors ${res.errors}, timeouts ${res.timeouts} (load ${os.loadavg()[0].toFixed(2)})`);
    }
  }
  for (const s of servers) {
    const r = results.get(s.name);
    r.rssAfter = s.rss();
    const m = await metricsOf(s);
    r.meanBatch = (m.rows - r.metricsBefore.rows) / (m.runs - r.metricsBefore.runs);
  }
} finally {
  for (const s of servers) s.child.kill('SIGTERM');
}

const summary = servers.map((s) => {
  const r = results.get(s.name);
  const total = r.blocks.reduce((n, b) => n + b.requests.total, 0);
  const duration = r.blocks.reduce((n, b) => n + b.duration, 0);
  return {
    config: s.name,
    serverConfig: s.config,
    requests: total,
    reqPerSec: total / duration,
    // Per block: autocannon's histograms are per run; the table shows the worst block's p99.
    p50Ms: r.blocks.map((b) => b.latency.p50),
    p99Ms: r.blocks.map((b) => b.latency.p99),
    non2xx: r.blocks.reduce((n, b) => n + b.non2xx, 0),
    errors: r.blocks.reduce((n, b) => n + b.errors, 0),
    timeouts: r.blocks.reduce((n, b) => n + b.timeouts, 0),
    meanBatch: r.meanBatch,
    rssBeforeMiB: r.rssBefore.rssKiB / 1024,
    rssAfterMiB: r.rssAfter.rssKiB / 1024,
    rssAfterEachBlockMiB: r.rssAfterBlock,
    peakRssMiB: r.rssAfter.hwmKiB / 1024,
  };
});
const date = new Date().toISOString().slice(0, 10);
const out = join(repo, `bench/results/serve-${date}.json`);
writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), command: `node bench/serve.mjs ${argv.join(' ')}`.trim(), machine: { cpu: cpuModel, cores: os.availableParallelism(), loadavgEnd: os.loadavg(), node: process.version }, seconds, rounds, connections, summary }, null, 2) + '\n');
const f = (v, d = 1) => v.toFixed(d);
console.log('| server | req/s | p50 ms (per block) | p99 ms (per block) | mean batch | non-2xx / errors / timeouts | RSS after warm-up → after each block (peak), MiB |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const s of summary) {
  console.log(`| ${s.config} | ${f(s.reqPerSec)} | ${s.p50Ms.join(', ')} | ${s.p99Ms.join(', ')} | ${f(s.meanBatch, 2)} | ${s.non2xx} / ${s.errors} / ${s.timeouts} | ${f(s.rssBeforeMiB, 0)} → ${s.rssAfterEachBlockMiB.map((v) => f(v, 0)).join(' → ')} (${f(s.peakRssMiB, 0)}) |`);
}
log(`wrote ${out}`);
