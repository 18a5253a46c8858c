/**
 * A custom execution provider in plain TypeScript: it claims only Relu and Add (float32), and the
 * CPU EP takes the rest. Run: `npx tsx examples/custom-ep.ts [model.onnx]`.
 */
import { fileURLToPath } from 'node:url';
import { InferenceSession, Tensor, defineKernel, type ExecutionProvider, type KernelDef } from '@switchyard/core';

/** Elementwise float32 kernels; Add accepts equal shapes or a scalar second operand. */
function kernel(opType: string, f: (a: number, b: number) => number, arity: 1 | 2): KernelDef {
  return defineKernel({
    ep: 'tiny-js',
    domain: '',
    opType,
    sinceVersion: 1,
    typeConstraints: { T: ['float32'] },
    supports(node, graph) {
      if (arity === 1) return true;
      const [a, b] = node.inputs.map((n) => graph.typeOf(n));
      const shape = (t: typeof a) => (t?.kind === 'tensor' ? JSON.stringify(t.shape) : '?');
      const scalar = b?.kind === 'tensor' && b.shape?.length === 0;
      return shape(a) === shape(b) || scalar ? true : `no broadcasting (shapes ${shape(a)} and ${shape(b)})`;
    },
    create: () => ({
      implementation: 'js-loop',
      run(ctx) {
        const a = ctx.input(0);
        const x = a.data as Float32Array;
        const y = arity === 2 ? (ctx.input(1).data as Float32Array) : x;
        const out = ctx.output(0, 'float32', a.dims);
        for (let i = 0; i < x.length; i++) out.data[i] = f(x[i], y.length === 1 ? y[0] : y[i]);
        return [out];
      },
    }),
  });
}

export const tinyJsProvider: ExecutionProvider = {
  name: 'tiny-js',
  kernels: [kernel('Relu', (a) => (a > 0 ? a : 0), 1), kernel('Add', (a, b) => a + b, 2)],
  describe: () => 'Relu and Add in a JS loop',
};

export async function main(modelPath = fileURLToPath(new URL('./models/tiny-cnn.onnx', import.meta.url))) {
  const mixed = await InferenceSession.create(modelPath, { executionProviders: [tinyJsProvider] });
  const cpuOnly = await InferenceSession.create(modelPath, { executionProviders: ['cpu'] });
  const [name] = mixed.inputNames;
  const dims = (mixed.inputMetadata[0].shape ?? []).map((d) => (typeof d === 'number' && d > 0 ? d : 1));
  const x = new Tensor('float32', Float32Array.from({ length: dims.reduce((a, b) => a * b, 1) }, (_, i) => Math.sin(i)), dims);
  const [a, b] = [await mixed.run({ [name]: x }), await cpuOnly.run({ [name]: x })];
  for (const n of mixed.placement.nodes) console.log(`${n.opType.padEnd(20)} → ${n.ep} (${n.implementation})`);
  const out = mixed.outputNames[0];
  const [ya, yb] = [(a[out] as Tensor).data as Float32Array, (b[out] as Tensor).data as Float32Array];
  const maxDiff = ya.reduce((m, v, i) => Math.max(m, Math.abs(v - yb[i])), 0);
  console.log(`max |tiny-js+cpu − cpu| on '${out}': ${maxDiff}`);
  await Promise.all([mixed.release(), cpuOnly.release()]);
  return { placement: mixed.placement, maxDiff };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main(process.argv[2]);
