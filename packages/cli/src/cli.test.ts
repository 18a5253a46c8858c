/**
 * The built `switchyard` command in a real process (setup builds packages/cli/dist before tests).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseNpy } from './npy.js';
import { cli, hasBuiltCli, repo, tinyCnn as model } from './cli-process.test-util.js';

describe.skipIf(!hasBuiltCli)('switchyard CLI (built)', () => {
  it('inspect --ep rocm,cpu: rocm declined with its reason, every node on cpu', async () => {
    const { code, stdout } = await cli(['inspect', model, '--ep', 'rocm,cpu', '--json']);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as { placement: { skipped: Array<{ name: string; reason: string }>; nodes: Array<{ ep: string; declined: Array<{ ep: string }> }> } };
    const rocm = report.placement.skipped.find((s) => s.name === 'rocm');
    expect(rocm?.reason).toMatch(/\S{10,}/);
    expect(report.placement.nodes.length).toBeGreaterThan(5);
    expect(report.placement.nodes.every((n) => n.ep === 'cpu' && n.declined.some((d) => d.ep === 'rocm'))).toBe(true);
  });

  it('run prints placement, coverage, outputs and latency', async () => {
    const { code, stdout } = await cli(['run', model, '--ep', 'rocm,migraphx,cpu', '-n', '3', '--input', `input=${join(repo, 'examples/models/tiny-cnn.input.npy')}`]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/rocm\s+unavailable/);
    expect(stdout).toMatch(/migraphx\s+unavailable/);
    expect(stdout).toMatch(/Coverage: cpu \d+\/\d+ nodes \(100\.0%\)/);
    expect(stdout).toMatch(/probabilities: float32\[1, 10\]/);
    expect(stdout).toMatch(/p50 [\d.]+ ms/);
  });

  it('run --json gives outputs equal to the torch reference', async () => {
    const { stdout } = await cli(['run', model, '--ep', 'cpu', '-n', '1', '--json', '--input', `input=${join(repo, 'examples/models/tiny-cnn.input.npy')}`]);
    const out = JSON.parse(stdout) as { outputs: { probabilities: { data: number[] } } };
    const expected = parseNpy(readFileSync(join(repo, 'examples/models/tiny-cnn.expected.npy'))).data as Float32Array;
    out.outputs.probabilities.data.forEach((v, i) => expect(Math.abs(v - expected[i])).toBeLessThan(1e-5));
  });

  it('bad input gets a clear error and exit code 2, not a crash', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sy-cli-'));
    writeFileSync(join(dir, 'junk.onnx'), 'this is not a model');
    const cases: Array<[string[], RegExp]> = [
      [['run', join(dir, 'missing.onnx')], /missing\.onnx/],
      [['run', join(dir, 'junk.onnx')], /INVALID|not|model/i],
      [['run', model, '--input', 'nope=random'], /no input 'nope'/],
      [['run', model, '--input', `input=${join(dir, 'junk.onnx')}`], /not a \.npy file/],
      [['run', model, '-n', 'many'], /-n takes a non-negative integer/],
      [['frobnicate'], /unknown command/],
    ];
    for (const [args, pattern] of cases) {
      const r = await cli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(pattern);
      expect(r.stderr).not.toMatch(/unexpected error|    at /);
    }
  });
});
