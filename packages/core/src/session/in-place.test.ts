/**
 * Kernel.inPlace through a session: the host arena gives an in-place output its input's slot when the
 * input is not read afterwards, results stay right, and anything else keeps its own memory.
 */
import { describe, expect, it } from 'vitest';
import { InferenceSession } from './inference-session.js';
import { Tensor } from '../tensor/tensor.js';
import { buildModel, type NodeSpec } from '../testing/build-model.js';
import { defineKernel, type KernelDef } from '../registry/kernel-def.js';
import type { ExecutionProvider } from '../ep/execution-provider.js';

const f32 = (data: number[], dims: number[]) => new Tensor('float32', Float32Array.from(data), dims);

interface Write {
  node: string;
  /** Whether the output's memory was input 1's (the in-place input). */
  sharedInput: boolean;
}

/**
 * An EP with Relu and a residual Add (y = a + z) whose Add declares that y may take z's memory (input 1):
 * it reads each element of z before writing it, like a conv's fused sum. `writes` records whether each
 * Add's output landed on z's buffer.
 */
function inPlaceProvider(writes: Write[]): ExecutionProvider {
  const relu: KernelDef = defineKernel({
    ep: 'inplace',
    domain: '',
    opType: 'Relu',
    sinceVersion: 1,
    create: () => ({
      run: (ctx) => {
        const x = ctx.input(0);
        const out = ctx.output(0, 'float32', x.dims);
        const a = x.data as Float32Array;
        for (let i = 0; i < a.length; i++) out.data[i] = Math.max(0, a[i]);
        return [out];
      },
    }),
  });
  const add: KernelDef = defineKernel({
    ep: 'inplace',
    domain: '',
    opType: 'Add',
    sinceVersion: 1,
    create: (init) => ({
      inPlace: { input: 1, output: 0 },
      run: (ctx) => {
        const a = ctx.input(0).data as Float32Array;
        const z = ctx.input(1);
        const out = ctx.output(0, 'float32', z.dims, { uninitialized: true });
        const zd = z.data as Float32Array;
        const y = out.data as Float32Array;
        writes.push({ node: init.node.name, sharedInput: y.buffer === zd.buffer && y.byteOffset === zd.byteOffset });
        for (let i = 0; i < y.length; i++) y[i] = a[i] + zd[i];
        return [out];
      },
    }),
  });
  return { name: 'inplace', kernels: [relu, add] };
}

function model(nodes: NodeSpec[]) {
  return buildModel({ inputs: [['x', 'float32', [4]]], outputs: [['out', 'float32', [4]]], nodes });
}

const opts = (writes: Write[]) => ({ executionProviders: [inPlaceProvider(writes)], disableCpuFallback: true, graphOptimizationLevel: 'disabled' as const });
const values = (t: unknown) => Array.from((t as Tensor).data as Float32Array);
const x = f32([1, -2, 3, -4], [4]);

describe('in-place kernels in a session', () => {
  it("writes a residual sum into its last reader's input and computes it right", async () => {
    const writes: Write[] = [];
    // a = relu(x); b = relu(a); y = b + a (a read for the last time, in place); out = relu(y)
    const s = await InferenceSession.fromModel(
      model([
        { op: 'Relu', inputs: ['x'], outputs: ['a'], name: 'ra' },
        { op: 'Relu', inputs: ['a'], outputs: ['b'], name: 'rb' },
        { op: 'Add', inputs: ['b', 'a'], outputs: ['y'], name: 'sum' },
        { op: 'Relu', inputs: ['y'], outputs: ['out'], name: 'ro' },
      ]),
      opts(writes),
    );
    for (let run = 0; run < 2; run++) expect(values((await s.run({ x })).out)).toEqual([2, 0, 6, 0]);
    expect(writes).toEqual([
      { node: 'sum', sharedInput: true },
      { node: 'sum', sharedInput: true },
    ]);
    // a/y and b: two 16-byte values in 64-byte slots, where a third would be needed without the pair.
    expect(s.optimization.memory.arenaBytes).toBe(128);
  });

  it('keeps its own memory when the input is read later or is a graph input', async () => {
    const writes: Write[] = [];
    const s = await InferenceSession.fromModel(
      model([
        { op: 'Relu', inputs: ['x'], outputs: ['a'], name: 'ra' },
        { op: 'Add', inputs: ['a', 'x'], outputs: ['y'], name: 'fromInput' },
        { op: 'Add', inputs: ['y', 'a'], outputs: ['z'], name: 'readLater' },
        { op: 'Add', inputs: ['z', 'a'], outputs: ['out'], name: 'toOutput' },
      ]),
      opts(writes),
    );
    // a = [1,0,3,0]; y = a + x = [2,-2,6,-4]; z = y + a = [3,-2,9,-4]; out = z + a
    expect(values((await s.run({ x })).out)).toEqual([4, -2, 12, -4]);
    expect(writes).toEqual([
      { node: 'fromInput', sharedInput: false },
      { node: 'readLater', sharedInput: false },
      { node: 'toOutput', sharedInput: false },
    ]);
  });
});
