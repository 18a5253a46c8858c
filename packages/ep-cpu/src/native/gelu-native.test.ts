/** The native com.microsoft Gelu (oneDNN gelu_erf) against the TS kernel, through the Gelu fusion. */
import { describe, expect, it } from 'vitest';
import { InferenceSession, Tensor } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { loadNative } from './load-native.js';

const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const hasNative = native.ok && typeof native.binding.geluErf === 'function' && new CpuExecutionProvider().nativeUnavailable === undefined;

/** PyTorch's nn.GELU() export: x · 0.5 · (1 + erf(x / √2)); the CPU EP's fusion turns it into one Gelu. */
function geluModel(dims: number[]) {
  return buildModel({
    inputs: [['x', 'float32', dims]],
    outputs: [['y', 'float32']],
    initializers: {
      sqrt2: new Tensor('float32', new Float32Array([Math.SQRT2]), []),
      one: new Tensor('float32', new Float32Array([1]), []),
      half: new Tensor('float32', new Float32Array([0.5]), []),
    },
    nodes: [
      { op: 'Div', inputs: ['x', 'sqrt2'], outputs: ['d'] },
      { op: 'Erf', inputs: ['d'], outputs: ['e'] },
      { op: 'Add', inputs: ['e', 'one'], outputs: ['a'] },
      { op: 'Mul', inputs: ['x', 'a'], outputs: ['m'] },
      { op: 'Mul', inputs: ['m', 'half'], outputs: ['y'] },
    ],
  });
}

async function run(x: Tensor, useNative: boolean) {
  const s = await InferenceSession.fromModel(geluModel([...x.dims]), { executionProviders: [new CpuExecutionProvider({ useNative })], graphOptimizationLevel: 'all' });
  const node = s.placement.nodes.find((n) => n.opType === 'Gelu');
  const y = (await s.run({ x })).y as Tensor;
  await s.release();
  return { implementation: node?.implementation, y };
}

describe.skipIf(!hasNative)('native Gelu vs the TS kernel', () => {
  it('agrees over a wide range of inputs, tails included', async () => {
    const n = 20001;
    const data = new Float32Array(n);
    for (let i = 0; i < n; i++) data[i] = -12 + (24 * i) / (n - 1); // -12 … 12, 0 included
    const x = new Tensor('float32', data, [3, n / 3]);
    const fast = await run(x, true);
    const slow = await run(x, false);
    expect(fast.implementation).toBe('onednn');
    expect(slow.implementation).toBe('ts');
    expect(fast.y.dims).toEqual([3, n / 3]);
    const a = fast.y.data as Float32Array;
    const b = slow.y.data as Float32Array;
    for (let i = 0; i < n; i++) {
      if (!(Math.abs(a[i] - b[i]) <= 1e-6 * (1 + Math.abs(b[i])))) throw new Error(`x = ${data[i]}: onednn ${a[i]}, ts ${b[i]}`);
    }
  });
});
