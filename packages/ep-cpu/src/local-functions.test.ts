/**
 * Models calling model-local functions (ModelProto.functions) run: each call is expanded into the
 * function's body. The fixture (packages/core/src/onnx/fixtures/local-functions, written by its make.py
 * with the onnx package) has attribute references with and without defaults, a nested call, an overload,
 * an unnamed output and two calls of one function with different attributes; its expected outputs are
 * numpy's, and onnxruntime runs the same file.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as ort from 'onnxruntime-node';
import { InferenceSession, Tensor, encodeModel, loadModel } from '@switchyard/core';
import { CpuExecutionProvider } from './cpu-provider.js';

const dir = fileURLToPath(new URL('../../core/src/onnx/fixtures/local-functions/', import.meta.url));
const expected = JSON.parse(readFileSync(`${dir}expected.json`, 'utf8')) as { inputs: Record<string, number[][] | number[]>; outputs: Record<string, number[][]> };
const flat = (v: number[][] | number[]): number[] => (v as unknown[]).flat() as number[];
const feeds = { x: new Tensor('float32', Float32Array.from(flat(expected.inputs.x)), [2, 3]), b: new Tensor('float32', Float32Array.from(flat(expected.inputs.b)), [3]) };

function expectClose(got: Tensor, want: number[], label: string): void {
  expect(got.dims, label).toEqual([2, 3]);
  Array.from(got.data as Float32Array).forEach((v, i) => expect(Math.abs(v - want[i]), `${label}[${i}]: ${v} vs ${want[i]}`).toBeLessThan(1e-6));
}

describe('model-local functions', () => {
  for (const level of ['disabled', 'all'] as const) {
    it(`expands every call and matches the reference (optimization ${level})`, async () => {
      const session = await InferenceSession.create(`${dir}model.onnx`, { executionProviders: [new CpuExecutionProvider()], graphOptimizationLevel: level });
      const out = await session.run(feeds);
      expectClose(out.y3 as Tensor, flat(expected.outputs.y3), 'y3');
      expectClose(out.m1 as Tensor, flat(expected.outputs.m1), 'm1');
      // No node is left calling a function: every one placed is an ordinary op.
      expect(session.placement.nodes.every((n) => n.domain !== 'custom')).toBe(true);
      await session.release();
    });
  }

  it('agrees with onnxruntime on the same file', async () => {
    const theirs = await ort.InferenceSession.create(`${dir}model.onnx`);
    const o = await theirs.run({ x: new ort.Tensor('float32', feeds.x.data as Float32Array, [2, 3]), b: new ort.Tensor('float32', feeds.b.data as Float32Array, [3]) });
    const ours = await InferenceSession.create(`${dir}model.onnx`, { executionProviders: [new CpuExecutionProvider()] });
    const s = await ours.run(feeds);
    for (const name of ['y3', 'm1']) expectClose(s[name] as Tensor, Array.from(o[name].data as Float32Array), `${name} vs onnxruntime`);
    await ours.release();
  });

  it('loading keeps the calls and the function bodies (a round trip re-encodes them)', async () => {
    const model = await loadModel(`${dir}model.onnx`);
    expect(model.graph.nodes.map((n) => n.opType)).toEqual(['Block', 'Block', 'ScaledAct']);
    expect(model.functionNames).toEqual(['ScaledAct', 'ScaledAct', 'Block']);
    const again = await InferenceSession.create(encodeModel(model), { executionProviders: [new CpuExecutionProvider()] });
    expectClose((await again.run(feeds)).y3 as Tensor, flat(expected.outputs.y3), 'y3 after a round trip');
    await again.release();
  });

  it('refuses a function that calls itself, and a call with more inputs than the function takes', async () => {
    await expect(InferenceSession.create(`${dir}recursive.onnx`, { executionProviders: [new CpuExecutionProvider()] })).rejects.toThrow(/'custom.Loop1' calls itself/);
    const tooMany = await loadModel(`${dir}model.onnx`);
    tooMany.graph.nodes[2].inputs.push('x');
    await expect(InferenceSession.create(encodeModel(tooMany), { executionProviders: [new CpuExecutionProvider()] })).rejects.toThrow(/3 inputs given, the function takes 2/);
  });
});
