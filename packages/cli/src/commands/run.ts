/** `switchyard run MODEL [--ep rocm,cpu] [--input name=file.npy|random] [-n N] [--json]` */
import { InferenceSession, Tensor, type ValueMetadata } from '@switchyard/core';
import { readNpy } from '../npy.js';
import { randomTensor, seededRandom } from '../random-input.js';
import { formatCoverage, formatPlacement, formatProviders, placementJson } from '../format/placement.js';
import { parseEpList } from '../providers.js';
import { CliError } from '../cli-error.js';

export interface RunArgs {
  model: string;
  ep?: string;
  inputs: string[];
  iterations: number;
  json: boolean;
  threads?: number;
  level?: 'disabled' | 'basic' | 'extended' | 'all';
}

function feedsFor(session: InferenceSession, specs: string[]): Record<string, Tensor> {
  const given = new Map<string, string>();
  for (const spec of specs) {
    const eq = spec.indexOf('=');
    if (eq <= 0) throw new CliError(`--input takes name=file.npy or name=random, got '${spec}'`);
    given.set(spec.slice(0, eq), spec.slice(eq + 1));
  }
  for (const name of given.keys()) {
    if (!session.inputNames.includes(name)) throw new CliError(`--input: the model has no input '${name}' (inputs: ${session.inputNames.join(', ')})`);
  }
  const rand = seededRandom(42);
  const feeds: Record<string, Tensor> = {};
  for (const meta of session.inputMetadata as ValueMetadata[]) {
    const source = given.get(meta.name) ?? 'random';
    feeds[meta.name] = source === 'random' ? randomTensor(meta, rand) : readNpy(source);
  }
  return feeds;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function describeOutput(name: string, value: unknown): string[] {
  if (!(value instanceof Tensor)) return [`  ${name}: ${Array.isArray(value) ? `sequence of ${value.length}` : 'empty optional'}`];
  const head = `  ${name}: ${value.type}[${value.dims.join(', ')}]`;
  if (value.type === 'string' || value.location !== 'cpu') return [head];
  const data = Array.from(value.data as ArrayLike<number | bigint>, Number);
  const top = data.map((v, i) => [v, i] as const).sort((a, b) => b[0] - a[0]).slice(0, 5);
  return [head, `    top ${top.length}: ${top.map(([v, i]) => `#${i} ${v.toPrecision(4)}`).join(', ')}`];
}

export async function runCommand(args: RunArgs): Promise<void> {
  const eps = parseEpList(args.ep);
  const session = await InferenceSession.create(args.model, {
    executionProviders: eps,
    intraOpNumThreads: args.threads,
    graphOptimizationLevel: args.level,
    // The provider table below states each EP's state and reason; the session's warnings would repeat it.
    logSeverityLevel: 3,
  });
  try {
    const feeds = feedsFor(session, args.inputs);
    // First run separately: it includes lazy work (e.g. algorithm choice) and is reported as such.
    const t0 = performance.now();
    const outputs = await session.run(feeds);
    const first = performance.now() - t0;
    const times: number[] = [];
    for (let i = 0; i < args.iterations; i++) {
      const s = performance.now();
      await session.run(feeds);
      times.push(performance.now() - s);
    }
    times.sort((a, b) => a - b);
    const p50 = times.length ? percentile(times, 50) : first;
    const p90 = times.length ? percentile(times, 90) : first;
    if (args.json) {
      const outs: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(outputs)) {
        outs[k] = v instanceof Tensor && v.location === 'cpu' ? { type: v.type, dims: v.dims, data: Array.from(v.data as ArrayLike<number | bigint>, (x) => (typeof x === 'bigint' ? x.toString() : x)) } : null;
      }
      process.stdout.write(JSON.stringify({ model: args.model, ...placementJson(session, eps), outputs: outs, latencyMs: { first, p50, p90, runs: times.length } }, null, 2) + '\n');
      return;
    }
    const lines = [
      `Switchyard — ${args.model}`,
      '',
      formatProviders(session.placement, eps),
      '',
      formatPlacement(session.placement, { maxNodes: 60 }),
      '',
      formatCoverage(session.placement),
      '',
      'Outputs',
      ...Object.entries(outputs).flatMap(([k, v]) => describeOutput(k, v)),
      '',
      `Latency: first run ${first.toFixed(2)} ms; p50 ${p50.toFixed(3)} ms, p90 ${p90.toFixed(3)} ms over ${times.length} runs`,
    ];
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    await session.release();
  }
}
