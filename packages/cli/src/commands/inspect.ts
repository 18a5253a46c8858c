/** `switchyard inspect MODEL [--ep …] [--json]`: placement table, reasons, coverage — without running. */
import { InferenceSession } from '@switchyard/core';
import { formatCoverage, formatPlacement, formatProviders, placementJson } from '../format/placement.js';
import { parseEpList } from '../providers.js';

export async function inspectCommand(args: { model: string; ep?: string; json: boolean }): Promise<void> {
  const eps = parseEpList(args.ep);
  // The report states each EP's state and reason; the session's warnings would repeat it.
  const session = await InferenceSession.create(args.model, { executionProviders: eps, logSeverityLevel: 3 });
  try {
    if (args.json) {
      process.stdout.write(JSON.stringify(placementJson(session, eps), null, 2) + '\n');
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
      formatProviders(session.placement, eps),
      '',
      formatPlacement(session.placement),
      '',
      formatCoverage(session.placement),
    ].filter((l, i, a) => l !== '' || a[i - 1] !== '');
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    await session.release();
  }
}

function memoryLine(mem: { peakBytes?: number; naiveBytes?: number }): string {
  if (mem.peakBytes === undefined) return 'Host memory plan: off (enableMemPattern: false)';
  if (!mem.naiveBytes) return 'Host memory plan: no intermediate value has a static size; buffers are allocated per run';
  return `Host memory plan: arena ${mem.peakBytes} bytes vs ${mem.naiveBytes} bytes without reuse (${((1 - mem.peakBytes / mem.naiveBytes) * 100).toFixed(0)}% saved)`;
}
