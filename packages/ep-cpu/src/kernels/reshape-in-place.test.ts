// Reshape, Flatten, Squeeze and Unsqueeze give a float input other dims in place (tensor-ops/elements.ts,
// sameElementsInPlace): the planner lets the output take the input's slot when nothing reads the input later,
// the result is right either way, and integer shape arithmetic keeps its own memory (so the shape memo keeps it).
import { describe, expect, it } from 'vitest';
import { AttributeReader, InferenceSession, Tensor, type KernelDef, type KernelInit, type Node } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { reshapeKernel } from './Reshape.js';
import { flattenKernel } from './Flatten.js';
import { squeezeKernel } from './Squeeze.js';
import { unsqueezeKernel } from './Unsqueeze.js';

const initFor = (elemType: 'float32' | 'int64', opType: string): KernelInit => {
  const node: Node = { id: 0, opType, domain: '', name: 'n', inputs: ['x'], outputs: ['y'], attributes: new Map() };
  return { node, attrs: new AttributeReader(node), inputTypes: [{ kind: 'tensor', elemType, shape: [2, 3] }], constantInputs: new Map(), threads: 1 } as unknown as KernelInit;
};

describe('view ops in place', () => {
  for (const [def, op] of [[reshapeKernel, 'Reshape'], [flattenKernel, 'Flatten'], [squeezeKernel, 'Squeeze'], [unsqueezeKernel, 'Unsqueeze']] as const) {
    it(`${op} declares in-place for a float input, not for integer shape arithmetic`, () => {
      expect((def as KernelDef).create(initFor('float32', op)).inPlace).toEqual({ input: 0, output: 0 });
      expect((def as KernelDef).create(initFor('int64', op)).inPlace).toBeUndefined();
    });
  }

  it('gives right results whether or not the input is read after the Reshape', async () => {
    // r = Relu(x); a = Reshape(r) → Neg (r not read again: in place); b = Flatten(q) where q = Relu(-x) is also read by the final Add.
    const model = buildModel({
      opset: 17,
      inputs: [['x', 'float32', [2, 3, 4]]],
      outputs: [['y', 'float32'], ['z', 'float32']],
      initializers: { shape: new Tensor('int64', BigInt64Array.of(6n, 4n), [2]) },
      nodes: [
        { op: 'Relu', inputs: ['x'], outputs: ['r'] },
        { op: 'Reshape', inputs: ['r', 'shape'], outputs: ['a'] },
        { op: 'Neg', inputs: ['a'], outputs: ['y'] },
        { op: 'Neg', inputs: ['x'], outputs: ['nx'] },
        { op: 'Relu', inputs: ['nx'], outputs: ['q'] },
        { op: 'Flatten', inputs: ['q'], outputs: ['f'], attributes: { axis: 1 } },
        { op: 'Reshape', inputs: ['f', 'shape'], outputs: ['g'] },
        { op: 'Neg', inputs: ['g'], outputs: ['h'] },
        { op: 'Reshape', inputs: ['q', 'shape'], outputs: ['q2'] },
        { op: 'Add', inputs: ['h', 'q2'], outputs: ['z'] },
      ],
    });
    const x = new Tensor('float32', Float32Array.from({ length: 24 }, (_, i) => i - 11.5), [2, 3, 4]);
    for (const level of ['disabled', 'all'] as const) {
      const session = await InferenceSession.fromModel(model, { executionProviders: [new CpuExecutionProvider()], graphOptimizationLevel: level });
      for (let run = 0; run < 3; run++) {
        const out = (await session.run({ x })) as Record<string, Tensor>;
        expect(out.y.dims).toEqual([6, 4]);
        expect(Array.from(out.y.data as Float32Array, (v) => v + 0)).toEqual(Array.from(x.data as Float32Array, (v) => -Math.max(0, v) + 0));
        // h + q2 = -q + q = 0 everywhere: q must survive the Flatten and Reshape that read it first.
        expect(Array.from(out.z.data as Float32Array).every((v) => v === 0)).toBe(true);
      }
      await session.release();
    }
  });
});
