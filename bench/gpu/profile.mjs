// Per-step device time of a model's plan (eager runs with SWITCHYARD_PLAN_PROFILE=1: an event after
// every step), summed by step op and listed for the costliest steps: where a model's GPU time goes.
//   node bench/gpu/profile.mjs OUT_DIR name:case:precision...   (precision fp32 | fp16; run.sh stage `profile`)
// SWITCHYARD_PROFILE_ROCM_OPTIONS (JSON) adds rocm options to every case, e.g. '{"fp16ConvLayout":"NHWC"}'.
// Writes OUT_DIR/profile.json. Eager timing includes launch gaps: read it for GPU-bound cases (batch 32).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { percentile } from '../lib/timing.mjs';

process.env.SWITCHYARD_PLAN_PROFILE = '1'; // read by the addon when a plan is built
const core = await import('@switchyard/core');
const { registerExecutionProvider } = core;
const { executionProviderFactory: cpuFactory } = await import('@switchyard/ep-cpu');
const { executionProviderFactory: rocmFactory } = await import('@switchyard/ep-rocm');
const { readManifest, rocmSessions } = await import('./cases.mjs');
registerExecutionProvider(cpuFactory);
registerExecutionProvider(rocmFactory);

const [out = '.', ...specs] = process.argv.slice(2);
const manifest = readManifest();
const results = [];
const rocmOptions = JSON.parse(process.env.SWITCHYARD_PROFILE_ROCM_OPTIONS ?? '{}');
for await (const { spec, feeds, session: s, parts } of rocmSessions(manifest, specs, core, rocmOptions)) {
  await s.run(feeds);
  const runs = [];
  const copies = [];
  for (let i = 0; i < 10; i++) {
    await s.run(feeds);
    runs.push(parts.flatMap((p) => p.stats.lastPlan?.lastStepMs ?? []));
    copies.push(parts.map((p) => p.stats.lastPlan?.lastCopyMs));
  }
  const steps = parts.flatMap((p) => p.stats.lastDescription?.steps ?? []);
  // What each step's check chose (a Conv: the DNN library or im2col + GEMM, with both timings).
  const notes = parts.flatMap((p) => (p.stats.lastDescription?.steps ?? []).map((_, i) => p.stats.lastStepNotes?.[i] ?? ''));
  const median = steps.map((_, i) => percentile(runs.map((r) => r[i]), 0.5));
  const byOp = {};
  steps.forEach((st, i) => {
    const o = (byOp[st.op] ??= { op: st.op, count: 0, ms: 0 });
    o.count++;
    o.ms += median[i];
  });
  const total = median.reduce((a, b) => a + b, 0);
  const ops = Object.values(byOp).sort((a, b) => b.ms - a.ms);
  const top = steps.map((st, i) => ({ op: st.op, node: st.node, ms: median[i], note: notes[i] })).sort((a, b) => b.ms - a.ms).slice(0, 12);
  const choices = steps.map((st, i) => ({ op: st.op, node: st.node, ms: median[i], note: notes[i] })).filter((c) => c.note !== '' && /^Conv/.test(c.op));
  const gemmConvs = choices.filter((c) => /^(im2col \+ )?GEMM/.test(c.note)).length;
  console.log(`${spec}: ${steps.length} steps, ${total.toFixed(2)} ms; copies ${JSON.stringify(copies[copies.length - 1])}`);
  console.log(`  by op: ${ops.map((o) => `${o.op}×${o.count} ${o.ms.toFixed(2)}`).join(', ')}`);
  console.log(`  top: ${top.map((t) => `${t.op}(${t.node.slice(0, 40)}) ${t.ms.toFixed(3)}`).join('; ')}`);
  if (choices.length > 0) console.log(`  choices: ${gemmConvs} of ${choices.length} noted steps run as GEMM`);
  results.push({ spec, rocmOptions, totalMs: total, byOp: ops, top, choices, steps: steps.map((st, i) => ({ op: st.op, ms: median[i], note: notes[i] })), copies: copies[copies.length - 1] });
  await s.release();
}
writeFileSync(join(out, 'profile.json'), JSON.stringify(results, null, 1));
