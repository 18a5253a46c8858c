/** `switchyard run MODEL [--ep rocm,cpu] [--input name=file.npy|random] [-n N] [--json]` */
import { InferenceSession, Tensor } from '@switchyard/core';
import { feedsFor } from '../feeds.js';
import { formatCoverage, formatPlacement, formatProviders, placementJson } from '../format/placement.js';
import { finishProfile, sessionOptionsFrom, type SessionArgs } from '../session-args.js';

export interface RunArgs extends SessionArgs {
  model: string;
  inputs: string[];
  iterations: number;
  json: boolean;
}

export function percentile(sorted: readonly number[], p: number): number {
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
  // The provider table below states each EP's state and reason; the session's warnings would repeat it.
  const { options, names: eps } = sessionOptionsFrom(args, { logSeverityLevel: 3 });
  const session = await InferenceSession.create(args.model, options);
  try {
    const feeds = feedsFor(session.inputMetadata, args.inputs);
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
    const profile = finishProfile(session, args.profile);
    if (args.json) {
      const outs: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(outputs)) {
        outs[k] = v instanceof Tensor && v.location === 'cpu' ? { type: v.type, dims: v.dims, data: Array.from(v.data as ArrayLike<number | bigint>, (x) => (typeof x === 'bigint' ? x.toString() : x)) } : null;
      }
      const files = { optimizedModel: args.saveOptimized, profile };
      process.stdout.write(JSON.stringify({ model: args.model, ...placementJson(session, eps), outputs: outs, latencyMs: { first, p50, p90, runs: times.length }, files }, null, 2) + '\n');
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
      ...(args.saveOptimized ? [`Optimized model: ${args.saveOptimized}`] : []),
      ...(profile ? [`Profile (Chrome trace, ${times.length + 1} runs): ${profile}`] : []),
    ];
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    await session.release();
  }
}
