/**
 * The same model under three provider priority lists, placements compared side by side.
 * Run: `npx tsx examples/provider-priority.ts [model.onnx]`.
 */
import { fileURLToPath } from 'node:url';
import { InferenceSession, type ExecutionProviderConfig, type Placement } from '@switchyard/core';
import { tinyJsProvider } from './custom-ep.js';

const LISTS: Record<string, ExecutionProviderConfig[]> = {
  'rocm, migraphx, cpu': ['rocm', 'migraphx', 'cpu'],
  'tiny-js, cpu': [tinyJsProvider, 'cpu'],
  'cpu, tiny-js': ['cpu', tinyJsProvider],
};

export async function main(modelPath = fileURLToPath(new URL('./models/tiny-cnn.onnx', import.meta.url))) {
  const placements: Record<string, Placement> = {};
  for (const [label, eps] of Object.entries(LISTS)) {
    const s = await InferenceSession.create(modelPath, { executionProviders: eps });
    placements[label] = s.placement;
    await s.release();
  }
  const labels = Object.keys(placements);
  const nodes = placements[labels[0]].nodes;
  console.log(['node'.padEnd(28), ...labels.map((l) => l.padEnd(22))].join(''));
  nodes.forEach((n, i) => console.log([`${n.opType} ${n.name}`.slice(0, 27).padEnd(28), ...labels.map((l) => placements[l].nodes[i].ep.padEnd(22))].join('')));
  for (const l of labels) {
    const p = placements[l];
    console.log(`${l}: ${p.providers.map((x) => `${x.name} ${x.nodes}`).join(', ')}${p.skipped.length ? `; skipped ${p.skipped.map((s) => s.name).join(', ')}` : ''}`);
  }
  return placements;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main(process.argv[2]);
