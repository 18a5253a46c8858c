/** The flags every command takes, through the built CLI: EP options, --save-optimized, --profile, --load-ep. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { loadModel } from '@switchyard/core';
import { readNpy } from './npy.js';
import { cli, hasBuiltCli, tinyCnn, tinyCnnExpected, tinyCnnInput, wrongReluEp } from './cli-process.test-util.js';

const dir = mkdtempSync(join(tmpdir(), 'sy-cli-flags-'));
const expected = readNpy(tinyCnnExpected).data as Float32Array;

interface RunJson {
  placement: { nodes: Array<{ name: string; opType: string; ep: string; implementation: string }> };
  outputs: { probabilities: { data: number[] } };
}

describe.skipIf(!hasBuiltCli)('session flags (built CLI)', () => {
  it('--ep options reach the EP: cpu:useNative=0 runs every node in TypeScript; a bad option is a clear error', async () => {
    const native = JSON.parse((await cli(['run', tinyCnn, '--ep', 'cpu', '-n', '0', '--json'])).stdout) as RunJson;
    expect(native.placement.nodes.some((n) => n.implementation === 'onednn')).toBe(true);
    const ts = JSON.parse((await cli(['run', tinyCnn, '--ep', 'cpu:useNative=0', '-n', '0', '--json', '--input', `input=${tinyCnnInput}`])).stdout) as RunJson;
    expect(ts.placement.nodes.every((n) => n.implementation === 'ts')).toBe(true);
    ts.outputs.probabilities.data.forEach((v, i) => expect(Math.abs(v - expected[i])).toBeLessThan(1e-5));
    const bad = await cli(['run', tinyCnn, '--ep', 'cpu:bogus=1', '--ep-options', join(dir, 'none.json')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/none\.json/);
    // No usable EP at all: the EP's own complaint is in the error.
    const unknown = await cli(['run', tinyCnn, '--ep', 'cpu:bogus=1']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown option\(s\) bogus/);
  });

  it('--ep-options FILE gives the same options as --ep', async () => {
    const file = join(dir, 'cpu.json');
    writeFileSync(file, JSON.stringify({ cpu: { useNative: false } }));
    const r = JSON.parse((await cli(['run', tinyCnn, '--ep-options', file, '-n', '0', '--json'])).stdout) as RunJson;
    expect(r.placement.nodes.every((n) => n.implementation === 'ts')).toBe(true);
  });

  it('--save-optimized at level basic writes plain ONNX that onnxruntime-node runs to the same outputs', async () => {
    const file = join(dir, 'basic.onnx');
    const r = await cli(['run', tinyCnn, '--ep', 'cpu', '--level', 'basic', '-n', '0', '--save-optimized', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`Optimized model: ${file}`);
    const session = await ort.InferenceSession.create(file);
    const x = readNpy(tinyCnnInput);
    const out = await session.run({ input: new ort.Tensor('float32', x.data as Float32Array, x.dims) });
    const y = out.probabilities.data as Float32Array;
    expect(y.length).toBe(expected.length);
    y.forEach((v, i) => expect(Math.abs(v - expected[i])).toBeLessThan(1e-5));
    await session.release();
  });

  it('--save-optimized at level all keeps the fused CPU ops; the loader reads them back and they run to the same outputs', async () => {
    const file = join(dir, 'all.onnx');
    expect((await cli(['run', tinyCnn, '--ep', 'cpu', '-n', '0', '--save-optimized', file])).code).toBe(0);
    const saved = await loadModel(file);
    const ops = saved.graph.nodes.map((n) => n.opType);
    expect(ops).not.toContain('Relu'); // fused into the convolutions
    expect(ops.length).toBeLessThan((await loadModel(tinyCnn)).graph.nodes.length);
    const again = JSON.parse((await cli(['run', file, '--ep', 'cpu', '-n', '0', '--json', '--input', `input=${tinyCnnInput}`])).stdout) as RunJson;
    again.outputs.probabilities.data.forEach((v, i) => expect(Math.abs(v - expected[i])).toBeLessThan(1e-5));
  });

  it('--profile writes a Chrome trace: one event per node per run, named as the placement names them', async () => {
    const file = join(dir, 'trace.json');
    const r = await cli(['run', tinyCnn, '--ep', 'cpu', '-n', '2', '--json', '--profile', file]);
    const placement = (JSON.parse(r.stdout) as RunJson).placement;
    const trace = JSON.parse(readFileSync(file, 'utf8')) as Array<{ name: string; ph: string; dur: number; cat: string; args: { provider: string } }>;
    expect(trace.every((e) => e.ph === 'X' && e.dur >= 0)).toBe(true);
    expect(trace.filter((e) => e.cat === 'Session' && e.name === 'run').length).toBe(3);
    for (const n of placement.nodes) expect(trace.filter((e) => e.name === n.name && e.args.provider === n.ep).length).toBe(3);
  });

  it('inspect --profile runs once and lists the slowest nodes', async () => {
    const file = join(dir, 'inspect-trace.json');
    const r = await cli(['inspect', tinyCnn, '--ep', 'cpu', '--profile', file]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/Slowest nodes of one profiled run/);
    expect(r.stdout).toMatch(/ms {2}\/conv1\/Conv_fused_blocked \(BlockedConv, cpu\)/);
  });

  it('--load-ep registers a custom EP, which then takes its nodes', async () => {
    const r = await cli(['inspect', tinyCnn, '--load-ep', wrongReluEp, '--ep', 'wrongrelu,cpu', '--json']);
    const nodes = (JSON.parse(r.stdout) as RunJson).placement.nodes;
    expect(nodes.filter((n) => n.ep === 'wrongrelu').map((n) => n.opType)).toEqual(['Relu', 'Relu']);
    const missing = await cli(['inspect', tinyCnn, '--load-ep', join(dir, 'nope.mjs')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--load-ep .*nope\.mjs/);
  });
});
