/**
 * `switchyard inspect MODEL [--ep …] [--json]`: placement table, reasons, coverage and the memory plan —
 * without running, unless `--profile FILE` asks for one profiled run (then the ten slowest nodes are
 * listed). `--input name=file.npy` binds the symbolic dims of the memory plan to that file's shape.
 */
import { writeFileSync } from 'node:fs';
import { InferenceSession, type SessionMemoryPlan } from '@switchyard/core';
import { buildReportData } from '../html/report-data.js';
import { reportPage } from '../html/report-page.js';
import { feedsFor, givenInputs } from '../feeds.js';
import { formatMemoryPlan } from '../format/memory.js';
import { formatCoverage, formatPlacement, formatProviders, placementJson } from '../format/placement.js';
import { finishProfile, sessionOptionsFrom, slowestNodes, type SessionArgs } from '../session-args.js';

export interface InspectArgs extends SessionArgs {
  model: string;
  inputs: string[];
  json: boolean;
  /** `--html FILE`: the graph as one self-contained page. */
  html?: string;
}

/** Time per node over the profiled runs so far (a fused partition's time goes to each of its nodes' partition name). */
function msByNode(session: InferenceSession): Map<string, number> {
  const ms = new Map<string, number>();
  for (const e of session.profileEvents) if (e.op !== 'Session') ms.set(e.name, (ms.get(e.name) ?? 0) + e.end - e.start);
  return ms;
}

export async function inspectCommand(args: InspectArgs): Promise<void> {
  // The report states each EP's state and reason; the session's warnings would repeat it.
  const { options, names: eps } = sessionOptionsFrom(args, { logSeverityLevel: 3 });
  const session = await InferenceSession.create(args.model, options);
  try {
    if (args.profile) await session.run(feedsFor(session.inputMetadata, args.inputs));
    const slowest = args.profile ? slowestNodes(session) : [];
    const times = args.profile ? msByNode(session) : undefined;
    const profile = finishProfile(session, args.profile);
    const memoryPlan = memoryPlanOf(session, args.inputs);
    if (args.html) {
      const data = buildReportData(session, args.model, eps, profile && times ? { file: profile, runs: 1, msByNode: times } : undefined, memoryPlan);
      writeFileSync(args.html, reportPage(data));
    }
    if (args.json) {
      const extra = profile ? { profile: { file: profile, slowest } } : {};
      process.stdout.write(JSON.stringify({ ...placementJson(session, eps), memoryPlan, creationTimings: session.creationTimings, ...extra }, null, 2) + '\n');
      return;
    }
    const opt = session.optimization.report;
    const mem = session.optimization.memory;
    const lines = [
      `Switchyard inspect — ${args.model}`,
      `Inputs: ${session.inputMetadata.map((m) => `${m.name} ${m.type ?? ''}[${(m.shape ?? []).join(', ')}]`).join('; ')}`,
      `Outputs: ${session.outputMetadata.map((m) => `${m.name} ${m.type ?? ''}[${(m.shape ?? []).join(', ')}]`).join('; ')}`,
      `Optimizer (${opt.level}): ${opt.nodesBefore} → ${opt.nodesAfter} nodes; ${opt.passes.filter((p) => p.count).map((p) => `${p.name} ${p.count}`).join(', ') || 'no changes'}`,
      memoryLine(mem),
      '',
      formatMemoryPlan(memoryPlan),
      '',
      formatProviders(session.placement, eps),
      '',
      formatPlacement(session.placement),
      '',
      formatCoverage(session.placement),
      ...(args.saveOptimized ? [`Optimized model: ${args.saveOptimized}`] : []),
      ...(args.html ? [`HTML report: ${args.html}`] : []),
      ...(profile ? ['', `Slowest nodes of one profiled run (trace: ${profile})`, ...slowest.map((n) => `  ${n.ms.toFixed(3).padStart(9)} ms  ${n.name} (${n.op}, ${n.ep})`)] : []),
    ].filter((l, i, a) => l !== '' || a[i - 1] !== '');
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    await session.release();
  }
}

/** The session's memory plan, with symbolic dims bound to the shapes of the `--input` files given. */
function memoryPlanOf(session: InferenceSession, inputs: readonly string[]): SessionMemoryPlan {
  const given = givenInputs(inputs, session.inputNames);
  return Object.keys(given).length ? session.memoryPlanFor(given) : session.memoryPlan;
}

function memoryLine(mem: { peakBytes?: number; naiveBytes?: number }): string {
  if (mem.peakBytes === undefined) return 'Host memory plan: off (enableMemPattern: false)';
  if (!mem.naiveBytes) return 'Host memory plan: no intermediate value has a static size; buffers are allocated per run';
  return `Host memory plan: arena ${mem.peakBytes} bytes vs ${mem.naiveBytes} bytes without reuse (${((1 - mem.peakBytes / mem.naiveBytes) * 100).toFixed(0)}% saved)`;
}
