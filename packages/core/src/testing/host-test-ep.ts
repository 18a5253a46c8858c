/**
 * A tiny host EP for core's own tests: float32 Relu/Neg/Add/Mul/Sigmoid/Identity without broadcasting
 * (a one-element second operand aside), and 2-D MatMul when asked for by name in `ops`.
 */
import type { ExecutionProvider } from '../ep/execution-provider.js';
import { defineKernel, type KernelDef } from '../registry/kernel-def.js';

const UNARY: Record<string, (x: number) => number> = {
  Relu: (x) => (x > 0 ? x : 0),
  Neg: (x) => -x,
  Sigmoid: (x) => 1 / (1 + Math.exp(-x)),
  Identity: (x) => x,
};
const BINARY: Record<string, (a: number, b: number) => number> = { Add: (a, b) => a + b, Mul: (a, b) => a * b };

function matMul(name: string): KernelDef {
  return defineKernel({
    ep: name,
    domain: '',
    opType: 'MatMul',
    sinceVersion: 1,
    typeConstraints: { T: ['float32'] },
    supports: (node, graph) => node.inputs.every((n) => { const t = graph.typeOf(n); return t?.kind === 'tensor' && t.shape?.length === 2; }) || 'operands must be 2-D',
    create: () => ({
      run: (ctx) => {
        const [a, b] = [ctx.input(0), ctx.input(1)];
        const [x, y] = [a.data as Float32Array, b.data as Float32Array];
        const [m, k, n] = [a.dims[0], a.dims[1], b.dims[1]];
        const out = ctx.output(0, 'float32', [m, n]);
        const o = out.data;
        for (let i = 0; i < m; i++) for (let p = 0; p < k; p++) for (let j = 0; j < n; j++) o[i * n + j] += x[i * k + p] * y[p * n + j];
        return [out];
      },
    }),
  });
}

function kernel(name: string, op: string): KernelDef {
  if (op === 'MatMul') return matMul(name);
  return defineKernel({
    ep: name,
    domain: '',
    opType: op,
    sinceVersion: 1,
    typeConstraints: { T: ['float32'] },
    create: () => ({
      run: (ctx) => {
        const a = ctx.input(0);
        const x = a.data as Float32Array;
        const out = ctx.output(0, 'float32', a.dims);
        const o = out.data;
        const u = UNARY[op];
        if (u) for (let i = 0; i < x.length; i++) o[i] = u(x[i]);
        else {
          const y = ctx.input(1).data as Float32Array;
          const f = BINARY[op];
          for (let i = 0; i < x.length; i++) o[i] = f(x[i], y.length === 1 ? y[0] : y[i]);
        }
        return [out];
      },
    }),
  });
}

export function hostTestProvider(name = 'hosttest', ops: readonly string[] = [...Object.keys(UNARY), ...Object.keys(BINARY)]): ExecutionProvider {
  return { name, kernels: ops.map((op) => kernel(name, op)) };
}
