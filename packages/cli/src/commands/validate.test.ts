/** `validateProviders` (core's API) with real EPs and real models, and `switchyard validate` in a real process. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Tensor, validateProviders, type ExecutionProvider, type KernelDef } from '@switchyard/core';
import { registerBundledProviders } from '../providers.js';
import { readNpy } from '../npy.js';
import { backendNode, cli, hasBuiltCli, squeezenet, tinyCnn, tinyCnnInput, wrongReluEp } from '../cli-process.test-util.js';

registerBundledProviders();

/** A custom EP whose Relu is off by `bias` (0: correct). */
function reluEp(name: string, bias: number): ExecutionProvider {
  const relu: KernelDef = {
    ep: name,
    domain: '',
    opType: 'Relu',
    sinceVersion: 1,
    typeConstraints: { T: ['float32'] },
    create: () => ({
      run(ctx) {
        const x = ctx.input(0);
        const src = x.data as Float32Array;
        const y = new Float32Array(src.length);
        for (let i = 0; i < y.length; i++) y[i] = Math.max(src[i], 0) + bias;
        return [new Tensor('float32', y, x.dims)];
      },
    }),
  };
  return { name, device: 'cpu', kernels: [relu] };
}

describe('validateProviders', () => {
  it('the CPU EP at level all against itself at level disabled passes on SqueezeNet (real weights and input)', async () => {
    const input = readNpy(squeezenet.replace('model.onnx', 'b1.in.input.npy'));
    const report = await validateProviders(squeezenet, {
      executionProviders: ['cpu'],
      sessionOptions: { graphOptimizationLevel: 'all' },
      referenceSessionOptions: { graphOptimizationLevel: 'disabled' },
      feeds: { input },
    });
    expect(report.passed).toBe(true);
    expect(report.outputs).toHaveLength(1);
    const d = report.outputs[0];
    expect(d).toMatchObject({ name: 'logits', type: 'float32', dims: [1, 1000], precision: 'fp32', mismatches: 0, elements: 1000 });
    // Fused, blocked oneDNN kernels against the plain ones: close, not bit-identical.
    expect(d.maxAbs).toBeGreaterThan(0);
    expect(d.maxAbs).toBeLessThan(1e-3);
    expect(report.feeds).toEqual([{ name: 'input', type: 'float32', dims: [1, 3, 224, 224], random: false }]);
    expect(report.tested.providers).toEqual([{ name: 'cpu', nodes: expect.any(Number) }]);
  });

  it('catches a deliberately wrong custom EP, names the worst element, and passes the same EP when it is right', async () => {
    const wrong = await validateProviders(tinyCnn, { executionProviders: [reluEp('biased', 0.01)] });
    expect(wrong.passed).toBe(false);
    expect(wrong.tested.providers.find((p) => p.name === 'biased')?.nodes).toBe(2);
    const d = wrong.outputs[0];
    expect(d.passed).toBe(false);
    expect(d.mismatches).toBeGreaterThan(0);
    expect(d.worst!.coords).toHaveLength(2);
    expect(Math.abs((d.worst!.actual as number) - (d.worst!.reference as number))).toBeCloseTo(d.maxAbs, 6);
    const right = await validateProviders(tinyCnn, { executionProviders: [reluEp('exact', 0)] });
    expect(right.passed).toBe(true);
  });

  it('the same inputs reach both sides: random feeds are seeded, given ones kept', async () => {
    const seen: number[][] = [];
    const spy = (name: string): ExecutionProvider => {
      const ep = reluEp(name, 0);
      const k = ep.kernels![0];
      return { ...ep, kernels: [{ ...k, create: (init) => { const inner = k.create(init); return { run: (ctx) => { seen.push(Array.from((ctx.input(0).data as Float32Array).slice(0, 4))); return inner.run(ctx); } }; } }] };
    };
    await validateProviders(backendNode('test_relu'), { executionProviders: [spy('a')], reference: [spy('b'), 'cpu'] });
    expect(seen).toHaveLength(2);
    expect(seen[0]).toEqual(seen[1]);
  });

  it('the tolerance follows the precision asked for: an fp16 compute mode allows what fp32 does not', async () => {
    const report = await validateProviders(backendNode('test_relu'), { executionProviders: [reluEp('biased', 0.004)], precision: 'fp16' });
    expect(report.outputs[0]).toMatchObject({ precision: 'fp16', passed: true });
    const strict = await validateProviders(backendNode('test_relu'), { executionProviders: [reluEp('biased', 0.004)] });
    expect(strict.outputs[0]).toMatchObject({ precision: 'fp32', passed: false });
  });

  it('bad arguments are coded errors', async () => {
    await expect(validateProviders(tinyCnn, { executionProviders: [] })).rejects.toThrow(/executionProviders must list/);
    await expect(validateProviders(tinyCnn, { executionProviders: ['cpu'], feeds: { nope: readNpy(tinyCnnInput) } })).rejects.toThrow(/no input 'nope'/);
  });
});

describe.skipIf(!hasBuiltCli)('switchyard validate (built)', () => {
  it('passes the CPU EP against itself at another level and prints the per-output table', async () => {
    const r = await cli(['validate', tinyCnn, '--ep', 'cpu', '--level', 'all', '--reference', 'cpu', '--reference-level', 'disabled', '--input', `input=${tinyCnnInput}`]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/probabilities\s+float32\[1, 10\]\s+fp32\s+1\.00e-4 \/ 0\.001000\s+\S+\s+\S+\s+.*\s+pass/);
    expect(r.stdout).toMatch(/PASS: all 1 outputs within tolerance/);
  });

  it('fails (exit 1) a wrong custom EP loaded with --load-ep, on a real model and on ONNX backend test data', async () => {
    for (const model of [tinyCnn, backendNode('test_relu')]) {
      const r = await cli(['validate', model, '--load-ep', wrongReluEp, '--ep', 'wrongrelu', '--json']);
      expect(r.code, r.stderr).toBe(1);
      const report = JSON.parse(r.stdout) as { passed: boolean; outputs: Array<{ passed: boolean; maxAbs: number; worst: { actual: number; reference: number } }> };
      expect(report.passed).toBe(false);
      expect(report.outputs[0].passed).toBe(false);
      expect(report.outputs[0].maxAbs).toBeGreaterThan(1e-3);
    }
    const text = await cli(['validate', backendNode('test_relu'), '--load-ep', wrongReluEp, '--ep', 'wrongrelu']);
    expect(text.stdout).toMatch(/Tested\s+\[wrongrelu\]: wrongrelu 1 nodes/);
    expect(text.stdout).toMatch(/y\s+float32\[3, 4, 5\].*\[\d+, \d+, \d+\] \S+ vs \S+\s+FAIL \(60 of 60\)/);
    expect(text.stdout).toMatch(/FAIL: 1 of 1 outputs beyond tolerance/);
    // A looser tolerance from the command line lets the 0.01 error through.
    const loose = await cli(['validate', backendNode('test_relu'), '--load-ep', wrongReluEp, '--ep', 'wrongrelu', '--atol', '0.02']);
    expect(loose.code, loose.stdout).toBe(0);
  });

  it('writes the tested side’s profile and optimized model; rejects a bad precision', async () => {
    const dir = (await import('node:fs')).mkdtempSync('/tmp/sy-validate-');
    const r = await cli(['validate', tinyCnn, '--ep', 'cpu', '--profile', `${dir}/t.json`, '--save-optimized', `${dir}/m.onnx`]);
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(readFileSync(`${dir}/t.json`, 'utf8')) as unknown[]).length).toBeGreaterThan(3);
    expect(readFileSync(`${dir}/m.onnx`).length).toBeGreaterThan(1000);
    const bad = await cli(['validate', tinyCnn, '--precision', 'fp8']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--precision takes/);
  });
});
