/** `switchyard explain` in a real process: fusions followed, each earlier EP's reason, basic passes in words. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Tensor, encodeModel } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { cli, hasBuiltCli, tinyCnn, wrongReluEp } from '../cli-process.test-util.js';

/** `scale` folds to a constant, `add2` repeats `add1`, `unused` feeds nothing. */
function passesModel(): Uint8Array {
  const f32 = (v: number[]) => new Tensor('float32', Float32Array.from(v), [v.length]);
  return encodeModel(buildModel({
    inputs: [['x', 'float32', [2]]],
    outputs: [['out', 'float32', [2]]],
    initializers: { a: f32([1, 2]), b: f32([3, 4]) },
    nodes: [
      { op: 'Mul', name: 'scale', inputs: ['a', 'b'], outputs: ['s'] },
      { op: 'Add', name: 'add1', inputs: ['x', 's'], outputs: ['y1'] },
      { op: 'Add', name: 'add2', inputs: ['x', 's'], outputs: ['y2'] },
      { op: 'Neg', name: 'unused', inputs: ['x'], outputs: ['z'] },
      { op: 'Add', name: 'sum', inputs: ['y1', 'y2'], outputs: ['out'] },
    ],
  }));
}

describe.skipIf(!hasBuiltCli)('switchyard explain (built)', () => {
  it('follows a Conv through Conv+Relu fusion and the blocked layout to the node that runs', async () => {
    const r = await cli(['explain', tinyCnn, '--ep', 'cpu', '--node', '/conv1/Conv']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/'\/conv1\/Conv' is a Conv node of the model/);
    expect(r.stdout).toMatch(/cpu:conv-activation-fusion \(extended\) replaced '\/conv1\/Conv' together with '\/Relu' by '\/conv1\/Conv_fused'/);
    expect(r.stdout).toMatch(/cpu:blocked-layout \(all\) replaced '\/conv1\/Conv_fused' by '\/conv1\/Conv_fused_blocked'/);
    expect(r.stdout).toMatch(/'\/conv1\/Conv_fused_blocked' \(BlockedConv\) runs on cpu \(implementation: onednn\)/);
  });

  it('gives each earlier EP’s reason: unavailable, declined by op; later EPs were not asked', async () => {
    const gemm = await cli(['explain', tinyCnn, '--load-ep', wrongReluEp, '--ep', 'rocm,wrongrelu,cpu', '--node', '/fc/Gemm', '--json']);
    expect(gemm.code, gemm.stderr).toBe(0);
    const g = JSON.parse(gemm.stdout) as { providers: Array<{ ep: string; verdict: string; reason?: string }>; sentences: string[] };
    expect(g.providers.map((p) => [p.ep, p.verdict])).toEqual([['rocm', 'unavailable'], ['wrongrelu', 'declined'], ['cpu', 'took it']]);
    expect(g.providers[1].reason).toMatch(/^op: .*Gemm/);
    expect(g.sentences.join('\n')).toMatch(/wrongrelu came earlier in the priority list but declined it \(op: /);
    // With the custom EP first, the Relu is its own and the CPU fusion leaves it alone.
    const relu = await cli(['explain', tinyCnn, '--load-ep', wrongReluEp, '--ep', 'wrongrelu,cpu', '--node', '/Relu', '--json']);
    const rl = JSON.parse(relu.stdout) as { optimizer: unknown[]; providers: Array<{ ep: string; verdict: string }> };
    expect(rl.optimizer).toEqual([]);
    expect(rl.providers.map((p) => [p.ep, p.verdict])).toEqual([['wrongrelu', 'took it'], ['cpu', 'not asked']]);
  });

  it('says in words what the basic passes did: folded, duplicate, unused', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sy-explain-')), 'passes.onnx');
    writeFileSync(file, passesModel());
    const say = async (node: string) => (await cli(['explain', file, '--ep', 'cpu', '--node', node])).stdout;
    expect(await say('scale')).toMatch(/constant-folding \(basic\) removed 'scale': its outputs depend only on constants[\s\S]*does not run on any EP/);
    expect(await say('unused')).toMatch(/dead-code-elimination \(basic\) removed 'unused': no graph output depends on it/);
    const dup = (await say('add1')) + (await say('add2'));
    expect(dup).toMatch(/common-subexpression-elimination \(basic\) removed 'add[12]': it repeated the computation of an identical node/);
    // The survivor runs (at level all, inside an elementwise fusion).
    expect(dup).toMatch(/cpu:elementwise-fusion \(all\) replaced 'add1' together with 'sum' by 'sum_fused'[\s\S]*'sum_fused' \(FusedElementwise\) runs on cpu/);
  });

  it('an unknown node is a clear error with similar names', async () => {
    const r = await cli(['explain', tinyCnn, '--node', 'conv2']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no node 'conv2' .*; similar: \/conv2\/Conv/);
    expect((await cli(['explain', tinyCnn])).stderr).toMatch(/explain needs --node NAME/);
  });
});
