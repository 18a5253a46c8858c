// Where a warm run's wall time goes besides the GPU: for each `name:case:precision` (precision fp32 |
// fp16; enableHipGraph on), the session's p50 against the plan's own numbers, the same plan called
// directly (with the arguments the session last gave it: the native call's cost without the
// session's JS) both ways a run can end (the worker, or start/poll on the event loop), the session
// in each of its three completion modes, and an empty plan (the worker-thread hop and one stream
// sync alone).
//   node bench/gpu/overhead.mjs OUT_DIR [iterations] name:case:precision...     (run.sh stage `overhead`)
// Writes OUT_DIR/overhead.json.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as core from '@switchyard/core';
import { executionProviderFactory as cpuFactory } from '@switchyard/ep-cpu';
import { executionProviderFactory as rocmFactory } from '@switchyard/ep-rocm';
import { nativeHipBinding } from '@switchyard/native-hip';
import { Session as InspectorSession } from 'node:inspector/promises';
import { readManifest, rocmSessions } from './cases.mjs';
import { percentile } from '../lib/timing.mjs';

core.registerExecutionProvider(cpuFactory);
core.registerExecutionProvider(rocmFactory);
const [out = '.', iterArg = '50', ...specs] = process.argv.slice(2);
const iterations = Number(iterArg);
const manifest = readManifest();
/** Self time per JS function over `fn`'s runs (V8's sampling profiler, 25 µs interval): where the session's JS goes. */
async function jsProfile(fn) {
  const inspector = new InspectorSession();
  inspector.connect();
  await inspector.post('Profiler.enable');
  await inspector.post('Profiler.setSamplingInterval', { interval: 25 });
  await inspector.post('Profiler.start');
  await fn();
  const { profile } = await inspector.post('Profiler.stop');
  inspector.disconnect();
  const dt = profile.timeDeltas.reduce((a, b) => a + b, 0) / Math.max(1, profile.samples.length) / 1000;
  const hits = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = {};
  for (const id of profile.samples) {
    const f = hits.get(id).callFrame;
    const key = `${f.functionName || '(anon)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}`;
    self[key] = (self[key] ?? 0) + dt;
  }
  return Object.entries(self).sort((a, b) => b[1] - a[1]).slice(0, 15);
}

const p50 = (xs) => percentile(xs, 0.5);

async function timed(fn) {
  const xs = [];
  for (let i = 0; i < iterations; i++) {
    const t = performance.now();
    await fn();
    xs.push(performance.now() - t);
  }
  return p50(xs);
}

const results = [];
const binding = nativeHipBinding().binding;
const empty = new binding.ExecutionPlan({ deviceId: 0, arenaBytes: 0, captureGraph: false, buffers: [], constants: [], inputs: [], outputs: [], steps: [] });
await empty.run([], []);
results.push({ spec: 'empty plan', p50Ms: await timed(() => empty.run([], [])) });
console.log(`empty plan: ${results[0].p50Ms.toFixed(3)} ms`);

for await (const { spec, feeds, session: s, parts } of rocmSessions(manifest, specs, core, { enableHipGraph: true })) {
  for (let i = 0; i < 3; i++) await s.run(feeds);
  const gpu = [];
  const copyIn = [];
  const copyOut = [];
  const wall = [];
  for (let i = 0; i < iterations; i++) {
    const t = performance.now();
    await s.run(feeds);
    wall.push(performance.now() - t);
    gpu.push(parts.reduce((a, p) => a + p.stats.lastPlan.lastGpuMs, 0));
    copyIn.push(parts.reduce((a, p) => a + p.stats.lastPlan.lastCopyMs.in, 0));
    copyOut.push(parts.reduce((a, p) => a + p.stats.lastPlan.lastCopyMs.out, 0));
  }
  // The same plans called directly with the arguments of the session's last run.
  const calls = [];
  for (const p of parts) {
    const plan = p.stats.lastPlan;
    // The EP begins runs with `start` (`run` in older builds).
    const method = typeof plan.start === 'function' ? 'start' : 'run';
    const original = plan[method];
    let args;
    // The addon's methods are read-only on the prototype: shadow the method on the instance for one call.
    Object.defineProperty(plan, method, { value: (i, o) => ((args = [i, o]), original.call(plan, i, o)), configurable: true });
    await s.run(feeds);
    delete plan[method];
    calls.push({ plan, args });
  }
  // The direct calls' wall time against the native Execute's phases (summed over partitions): what
  // is left is the worker-thread hop and the promise's resolution.
  // (A second pass reads the phases, so that reading them is not timed.)
  const direct = await timed(async () => {
    for (const c of calls) await c.plan.run(...c.args);
  });
  // Begun on the JS thread and polled from the event loop, as the EP's runPlan does.
  const untilPolled = (plan) => new Promise((resolve, reject) => {
    const turn = () => {
      try {
        if (plan.poll()) resolve();
        else setImmediate(turn);
      } catch (e) {
        reject(e);
      }
    };
    setImmediate(turn);
  });
  const directPolled = typeof calls[0]?.plan.start === 'function' ? await timed(async () => {
    for (const c of calls) {
      const started = c.plan.start(...c.args);
      await (started === true ? untilPolled(c.plan) : started);
    }
  }) : null;
  // The same, with fresh host output arrays each call as the session allocates them (Buffer's
  // allocUnsafeSlow: new pages, faulted in by the plan's TouchPages): does the session's extra time
  // come from its JS or from new memory?
  const fresh = (a) => (ArrayBuffer.isView(a) ? new a.constructor(Buffer.allocUnsafeSlow(a.byteLength).buffer, 0, a.length) : a);
  const directFresh = await timed(async () => {
    for (const c of calls) await c.plan.run(c.args[0], c.args[1].map(fresh));
  });
  const phaseRuns = [];
  for (let i = 0; i < iterations; i++) {
    const sum = {};
    for (const c of calls) {
      await c.plan.run(...c.args);
      for (const [k, v] of Object.entries(c.plan.lastRunPhasesMs ?? {})) sum[k] = (sum[k] ?? 0) + v;
    }
    phaseRuns.push(sum);
  }
  const phases = {};
  for (const k of Object.keys(phaseRuns[0] ?? {})) phases[k] = +p50(phaseRuns.map((r) => r[k])).toFixed(4);
  // The session's wall time in its three completion modes (both variables are read per run), in
  // interleaved blocks: a graph replay begun on the JS thread and polled there (the default), begun
  // there and waited for by the worker (SWITCHYARD_PLAN_WAIT=worker), all on the worker
  // (SWITCHYARD_PLAN_LAUNCH=worker).
  const modes = { polled: {}, caller: { SWITCHYARD_PLAN_WAIT: 'worker' }, worker: { SWITCHYARD_PLAN_LAUNCH: 'worker' } };
  const modeWall = { polled: [], caller: [], worker: [] };
  for (let block = 0; block < 6; block++) {
    for (const [mode, env] of Object.entries(modes)) {
      delete process.env.SWITCHYARD_PLAN_WAIT;
      delete process.env.SWITCHYARD_PLAN_LAUNCH;
      Object.assign(process.env, env);
      for (let i = 0; i < 3; i++) await s.run(feeds);
      for (let i = 0; i < Math.ceil(iterations / 3); i++) {
        const t = performance.now();
        await s.run(feeds);
        modeWall[mode].push(performance.now() - t);
      }
    }
  }
  delete process.env.SWITCHYARD_PLAN_WAIT;
  delete process.env.SWITCHYARD_PLAN_LAUNCH;
  // A polled session run cut in three (one partition only): the session's JS before the plan's
  // start, start to the poll that saw the end, and from there until the session's promise settles.
  let split = null;
  if (parts.length === 1 && typeof parts[0].stats.lastPlan.start === 'function') {
    const plan = parts[0].stats.lastPlan;
    const { start, poll } = plan;
    let tStart = 0;
    let tDone = 0;
    Object.defineProperty(plan, 'start', { value: (i, o) => ((tStart = performance.now()), start.call(plan, i, o)), configurable: true });
    Object.defineProperty(plan, 'poll', { value: () => (poll.call(plan) ? ((tDone = performance.now()), true) : false), configurable: true });
    const cuts = { before: [], plan: [], after: [] };
    for (let i = 0; i < iterations; i++) {
      tStart = tDone = Number.NaN;
      const t0 = performance.now();
      await s.run(feeds);
      const t1 = performance.now();
      if (Number.isNaN(tDone)) continue; // not polled (large host outputs, an eager plan): no cut
      cuts.before.push(tStart - t0);
      cuts.plan.push(tDone - tStart);
      cuts.after.push(t1 - tDone);
    }
    delete plan.start;
    delete plan.poll;
    if (cuts.plan.length > 0) split = Object.fromEntries(Object.entries(cuts).map(([k, v]) => [k, +p50(v).toFixed(4)]));
  }
  const profiled = process.env.SWITCHYARD_OVERHEAD_PROFILE === '1' ? await jsProfile(async () => {
    for (let i = 0; i < iterations; i++) await s.run(feeds);
  }) : [];
  const off = s.placement.nodes.filter((n) => n.ep !== 'rocm').map((n) => n.opType);
  const r = {
    spec,
    p50Ms: p50(wall),
    gpuP50Ms: p50(gpu),
    copyInP50Ms: p50(copyIn),
    copyOutP50Ms: p50(copyOut),
    directPlanP50Ms: direct,
    directPolledP50Ms: directPolled,
    directFreshOutputsP50Ms: directFresh,
    directPhasesP50Ms: phases,
    polledP50Ms: +p50(modeWall.polled).toFixed(4),
    polledSplitP50Ms: split,
    launchOnCallerP50Ms: +p50(modeWall.caller).toFixed(4),
    launchOnWorkerP50Ms: +p50(modeWall.worker).toFixed(4),
    partitions: parts.length,
    partitionInputs: parts.map((p) => p.partition.inputNames.length),
    outputPlacement: parts.map((p) => p.outputPlacement?.join(',')),
    offRocm: off.reduce((a, op) => ({ ...a, [op]: (a[op] ?? 0) + 1 }), {}),
  };
  r.jsSelfMsPerRun = profiled.map(([k, ms]) => [k, +(ms / iterations).toFixed(4)]);
  results.push(r);
  if (profiled.length) console.log(`  JS self ms/run: ${r.jsSelfMsPerRun.map(([k, ms]) => `${k} ${ms}`).join('; ')}`);
  console.log(
    `${spec}: p50 ${r.p50Ms.toFixed(3)} | plan direct ${direct.toFixed(3)} | gpu ${r.gpuP50Ms.toFixed(3)} | copy in ${r.copyInP50Ms.toFixed(3)} out ${r.copyOutP50Ms.toFixed(3)} | ` +
      `direct polled ${directPolled?.toFixed(3)} | phases ${JSON.stringify(phases)} | session polled ${r.polledP50Ms} (split ${JSON.stringify(split)}), launch on caller ${r.launchOnCallerP50Ms}, worker ${r.launchOnWorkerP50Ms} | ${r.partitions} partition(s), inputs ${r.partitionInputs}, outputs ${r.outputPlacement} | off rocm ${JSON.stringify(r.offRocm)}`,
  );
  await s.release();
}
empty.dispose();
writeFileSync(join(out, 'overhead.json'), JSON.stringify(results, null, 1));
