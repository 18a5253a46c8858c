/** `inspect` prints the memory plan (text, --json, --html); `--partitioning cost` through the built CLI. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InferenceSession, type SessionMemoryPlan, type Placement } from '@switchyard/core';
import { CpuExecutionProvider } from '@switchyard/ep-cpu';
import { readNpy } from '../npy.js';
import { cli, hasBuiltCli, mockDeviceEp, repo, squeezenet, tinyCnn, tinyCnnExpected, tinyCnnInput } from '../cli-process.test-util.js';

const dir = mkdtempSync(join(tmpdir(), 'sy-cli-memory-'));
const b3 = join(repo, 'models/squeezenet1_1/b3.in.input.npy');

interface InspectJson {
  memoryPlan: SessionMemoryPlan;
  placement: Placement;
}

describe.skipIf(!hasBuiltCli)('inspect: memory plan (built CLI)', () => {
  it('--json: symbolic batch unresolved until --free-dim or --input binds it; the figures are the API\'s', async () => {
    const free = JSON.parse((await cli(['inspect', squeezenet, '--ep', 'cpu', '--json'])).stdout) as InspectJson;
    expect(free.memoryPlan.unresolvedDims).toEqual(['batch']);
    const fixed = JSON.parse((await cli(['inspect', squeezenet, '--ep', 'cpu', '--json', '--free-dim', 'batch=2'])).stdout) as InspectJson;
    expect(fixed.memoryPlan.dims).toEqual({ batch: 2 });
    expect(fixed.memoryPlan.unresolvedDims).toEqual([]);
    const fromInput = JSON.parse((await cli(['inspect', squeezenet, '--ep', 'cpu', '--json', '--input', `input=${b3}`])).stdout) as InspectJson;
    expect(fromInput.memoryPlan.dims).toEqual({ batch: 3 });
    const session = await InferenceSession.create(squeezenet, { executionProviders: [new CpuExecutionProvider()], disableCpuFallback: true });
    const api = session.memoryPlanFor({ input: [3, 3, 224, 224] });
    expect(fromInput.memoryPlan.devices).toEqual(api.devices);
    const two = session.memoryPlanFor({ input: [2, 3, 224, 224] }).devices[0];
    expect(fixed.memoryPlan.devices[0]).toMatchObject({ weightsBytes: two.weightsBytes, activationBytes: two.activationBytes, perRunBytes: two.perRunBytes });
    await session.release();
  });

  it('text and --html show the plan per device', async () => {
    const html = join(dir, 'report.html');
    const r = await cli(['inspect', tinyCnn, '--load-ep', mockDeviceEp, '--ep', 'mockdev,cpu', '--level', 'disabled', '--html', html]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Memory plan before running: .* in all\n\s+device\s+weights\s+peak activations\s+per run\s+workspace\s+total\n\s+cpu\s+.*\(arena\)/);
    expect(r.stdout).toMatch(/\n\s+mockdev:0\s+.*\(estimate\)/);
    expect(r.stdout).toMatch(/Note: mockdev:0: activations estimated by the lifetime planner/);
    const page = readFileSync(html, 'utf8');
    const data = JSON.parse(/<script type="application\/json" id="switchyard-data">(.*?)<\/script>/s.exec(page)![1].replace(/\\u003c/g, '<')) as { memoryPlan: SessionMemoryPlan };
    expect(data.memoryPlan.devices.map((d) => d.device)).toEqual(['cpu', 'mockdev:0']);
    expect(page).toContain('Memory before running');
  });
});

describe.skipIf(!hasBuiltCli)('--partitioning cost (built CLI)', () => {
  const base = [tinyCnn, '--load-ep', mockDeviceEp, '--ep', 'mockdev,cpu', '--level', 'disabled'];

  it('keeps the Relus between host convolutions on the host: no copies, each says why, same outputs', async () => {
    const first = JSON.parse((await cli(['inspect', ...base, '--json'])).stdout) as InspectJson;
    const cost = JSON.parse((await cli(['inspect', ...base, '--json', '--partitioning', 'cost'])).stdout) as InspectJson;
    expect(first.placement.nodes.filter((n) => n.ep === 'mockdev').map((n) => n.opType)).toEqual(['Relu', 'Relu']);
    expect(first.placement.copies.length).toBe(4);
    expect(cost.placement.copies).toEqual([]);
    const relus = cost.placement.nodes.filter((n) => n.opType === 'Relu');
    expect(relus.map((n) => n.ep)).toEqual(['cpu', 'cpu']);
    for (const n of relus) expect(n.reason).toMatch(/^moved from mockdev to cpu: on mockdev:0 this node would need 2 copies of [\d.]+ kB/);
    const expected = readNpy(tinyCnnExpected).data as Float32Array;
    for (const partitioning of ['first-capable', 'cost']) {
      const r = await cli(['run', ...base, '--partitioning', partitioning, '-n', '0', '--json', '--input', `input=${tinyCnnInput}`]);
      const out = (JSON.parse(r.stdout) as { outputs: { probabilities: { data: number[] } } }).outputs.probabilities.data;
      out.forEach((v, i) => expect(Math.abs(v - expected[i])).toBeLessThan(1e-5));
    }
    const explained = await cli(['explain', ...base, '--partitioning', 'cost', '--node', '/Relu']);
    expect(explained.stdout).toMatch(/mockdev came earlier in the priority list but declined it \(cost: moved from mockdev to cpu/);
  });

  it('refuses an unknown mode', async () => {
    const r = await cli(['inspect', tinyCnn, '--partitioning', 'cheapest']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--partitioning takes first-capable\|cost/);
  });
});
