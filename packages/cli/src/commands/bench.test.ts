/** `switchyard bench` in a real process, and the knee rule. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findKnee, type BenchReport } from './bench.js';
import { cli, hasBuiltCli, resnet50, squeezenet, tinyCnn } from '../cli-process.test-util.js';

describe('findKnee', () => {
  it('marks the last batch before throughput grows less than 10% per doubling', () => {
    const pts = (xs: Array<[number, number]>) => xs.map(([batch, throughput]) => ({ batch, throughput }));
    expect(findKnee(pts([[1, 100], [2, 190], [4, 200], [8, 205]]))).toBe(2);
    expect(findKnee(pts([[1, 100], [2, 200], [4, 390]]))).toBeUndefined();
    // Growth is per doubling: 1 → 8 is three doublings, 1.2× over them is ~6% each.
    expect(findKnee(pts([[1, 100], [8, 120]]))).toBe(1);
    expect(findKnee(pts([[1, 100], [8, 200]]))).toBeUndefined();
  });
});

describe.skipIf(!hasBuiltCli)('switchyard bench (built)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sy-bench-'));

  it('--json: creation phases, per-batch latency split, throughput, speedup; T_exec agrees with the profile', async () => {
    const trace = join(dir, 'trace.json');
    const r = await cli(['bench', squeezenet, '--ep', 'cpu', '--compare', 'cpu', '--batch', '1,2', '--iterations', '3', '--warmup', '0', '--json', '--profile', trace]);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as BenchReport;
    expect(report.eps).toEqual(['cpu']);
    expect(report.compareEps).toEqual(['cpu']);
    const c = report.creationMs;
    for (const k of ['parseMs', 'providersMs', 'optimizeMs', 'prepareMs'] as const) expect(c[k]).toBeGreaterThanOrEqual(0);
    expect(c.parseMs).toBeGreaterThan(0);
    expect(report.batches.map((b) => b.batch)).toEqual([1, 2]);
    for (const b of report.batches) {
      const l = b.latencyMs;
      expect(l.p50).toBeLessThanOrEqual(l.p90);
      expect(l.exec).toBeGreaterThan(0);
      expect(l.copy).toBe(0); // one host EP: nothing crosses devices
      expect(l.exec + l.copy + l.other).toBeCloseTo(l.mean, 6);
      expect(b.throughput).toBeCloseTo((b.batch * 1000) / l.p50, 6);
      expect(b.compare!.speedup).toBeCloseTo(b.compare!.latencyMs.p50 / l.p50, 6);
    }
    // The profile saw the same 6 runs: its node time per run and the bench's mean T_exec agree within 10%.
    const events = JSON.parse(readFileSync(trace, 'utf8')) as Array<{ cat: string; name: string; dur: number }>;
    expect(events.filter((e) => e.cat === 'Session' && e.name === 'run')).toHaveLength(6);
    const profiledExecMs = events.filter((e) => e.cat === 'Node').reduce((a, e) => a + e.dur, 0) / 1000;
    const benchExecMs = report.batches.reduce((a, b) => a + b.latencyMs.exec * 3, 0);
    expect(Math.abs(benchExecMs - profiledExecMs) / profiledExecMs).toBeLessThan(0.1);
  });

  it('ResNet-50 --batch 1,2,4,8: the breakdown and the sweep; T_exec agrees with the profile within 10%', async () => {
    const trace = join(dir, 'rn-trace.json');
    const r = await cli(['bench', resnet50(), '--ep', 'cpu', '--batch', '1,2,4,8', '--iterations', '2', '--warmup', '0', '--json', '--profile', trace]);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as BenchReport;
    expect(report.batches.map((b) => b.batch)).toEqual([1, 2, 4, 8]);
    for (const b of report.batches) expect(b.latencyMs.exec + b.latencyMs.copy + b.latencyMs.other).toBeCloseTo(b.latencyMs.mean, 6);
    const events = JSON.parse(readFileSync(trace, 'utf8')) as Array<{ cat: string; name: string; dur: number }>;
    expect(events.filter((e) => e.cat === 'Session' && e.name === 'run')).toHaveLength(8);
    const profiledExecMs = events.filter((e) => e.cat === 'Node').reduce((a, e) => a + e.dur, 0) / 1000;
    const benchExecMs = report.batches.reduce((a, b) => a + b.latencyMs.exec * 2, 0);
    expect(Math.abs(benchExecMs - profiledExecMs) / profiledExecMs).toBeLessThan(0.1);
    // The text form of the same sweep: the breakdown line, one row per batch, the knee.
    const text = await cli(['bench', resnet50(), '--ep', 'cpu', '--batch', '1,2,4,8', '--iterations', '1', '--warmup', '0']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/Session creation: T_parse [\d.]+ ms/);
    expect(text.stdout.match(/^\s+[1248]\s+[\d.]+\s+[\d.]+/gm)).toHaveLength(4);
    expect(text.stdout).toMatch(/Knee: batch \d+ — beyond it|No knee: throughput grew/);
  }, 300_000);

  it('text: the breakdown, the sweep table and the knee line', async () => {
    const r = await cli(['bench', squeezenet, '--ep', 'cpu', '--batch', '1,2,4', '--iterations', '2', '--warmup', '1']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Session creation: T_parse [\d.]+ ms \+ T_providers [\d.]+ ms \+ T_optimize [\d.]+ ms \+ T_prepare [\d.]+ ms/);
    expect(r.stdout).toMatch(/batch\s+p50 ms\s+p90 ms\s+mean ms\s+T_exec\s+T_copy\s+T_other\s+copies\s+samples\/s/);
    expect(r.stdout.match(/^\s+[124]\s+[\d.]+\s+[\d.]+/gm)).toHaveLength(3);
    expect(r.stdout).toMatch(/Knee: batch \d+ — beyond it|No knee: throughput grew/);
  });

  it('a batch sweep on a model with a fixed batch dim, or a bad --batch list, is a clear error', async () => {
    const fixed = await cli(['bench', tinyCnn, '--batch', '1,2']);
    expect(fixed.code).toBe(2);
    expect(fixed.stderr).toMatch(/input 'input' has a fixed leading dim 1/);
    const bad = await cli(['bench', squeezenet, '--batch', '4,2']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/ascending/);
  });
});
