/**
 * ONNX backend conformance for the nn kernels: every single-node test folder of the ONNX 1.12 test data
 * whose op this family implements is loaded with core's ONNX loader, its one node run through our
 * kernel via the kernel harness, and each output compared with the stored expected output.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tensor, decodeTensor, loadModel, type AttributeValue, type KernelDef } from '@switchyard/core';
import { runKernel, type PlainAttribute } from '@switchyard/core/testing';
import { nnKernels } from '../kernels/nn-kernels.js';

const ROOT = '/usr/share/libonnx-testdata/data';
const SUITES = ['node', 'pytorch-converted', 'pytorch-operator'];

/** Tests that cannot pass by design, with the reason. */
const KNOWN_FAILURES: Record<string, string> = {
  'node/test_training_dropout': 'expected mask comes from numpy’s RNG',
  'node/test_training_dropout_default': 'expected mask comes from numpy’s RNG',
  'node/test_training_dropout_default_mask': 'expected mask comes from numpy’s RNG',
  'node/test_training_dropout_mask': 'expected mask comes from numpy’s RNG',
  'node/test_dropout_random_old': 'expected output comes from numpy’s RNG',
};

function toPlain(a: AttributeValue): PlainAttribute {
  switch (a.type) {
    case 'int':
    case 'string':
      return a.value;
    case 'float':
      return { float: a.value };
    case 'ints':
      return a.value;
    case 'floats':
      return { floats: a.value };
    case 'strings':
      return a.value;
    case 'tensor':
      return a.value;
    default:
      throw new Error(`attribute type ${a.type} not supported by the harness`);
  }
}

function findDef(opType: string, opset: number): KernelDef | undefined {
  return nnKernels.find((d) => d.opType === opType && d.sinceVersion <= opset && (d.endVersion ?? Infinity) >= opset);
}

function readPbs(dir: string, prefix: string): Tensor[] {
  return readdirSync(dir)
    .filter((f) => f.startsWith(prefix) && f.endsWith('.pb'))
    .sort((a, b) => Number(a.slice(prefix.length, -3)) - Number(b.slice(prefix.length, -3)))
    .map((f) => decodeTensor(readFileSync(join(dir, f))));
}

function compare(actual: Tensor, expected: Tensor, what: string): void {
  expect([...actual.dims], `${what} dims`).toEqual([...expected.dims]);
  expect(actual.type, `${what} type`).toBe(expected.type);
  const a = actual.data as ArrayLike<number | bigint>;
  const e = expected.data as ArrayLike<number | bigint>;
  for (let i = 0; i < e.length; i++) {
    const av = Number(a[i]);
    const ev = Number(e[i]);
    if (Number.isNaN(ev) && Number.isNaN(av)) continue;
    if (!(Math.abs(av - ev) <= 1e-5 + 1e-3 * Math.abs(ev))) throw new Error(`${what}[${i}]: got ${av}, expected ${ev}`);
  }
}

const ops = new Set(nnKernels.map((d) => d.opType));
const candidates = SUITES.flatMap((suite) => (existsSync(join(ROOT, suite)) ? readdirSync(join(ROOT, suite)).sort().map((n) => `${suite}/${n}`) : []));

describe.skipIf(!existsSync(ROOT))('nn kernels on ONNX backend tests', () => {
  it('finds test folders for the nn ops', () => {
    expect(candidates.length).toBeGreaterThan(0);
  });
  for (const name of candidates) {
    const dir = join(ROOT, name);
    if (!existsSync(join(dir, 'model.onnx'))) continue;
    // Cheap prefilter before loading: the folder name must mention one of our ops.
    const lower = name.toLowerCase();
    if (![...ops].some((op) => lower.includes(op.toLowerCase())) && !/conv|pool|norm|softmax|dropout|gemm|matmul|lrn|mvn|linear|addmm|mm|bmm|upsample|rnn|lstm|gru/.test(lower)) continue;
    if (name.endsWith('_expanded')) continue;
    it(name, async (ctx) => {
      const model = await loadModel(join(dir, 'model.onnx'));
      const g = model.graph;
      if (g.nodes.length !== 1 || g.nodes[0].domain !== '' || !ops.has(g.nodes[0].opType)) return ctx.skip();
      const node = g.nodes[0];
      const opset = model.opsetImports.get('') ?? 1;
      const def = findDef(node.opType, opset);
      if (!def) throw new Error(`no kernel for ${node.opType} at opset ${opset}`);
      const attributes = Object.fromEntries([...node.attributes].map(([k, v]) => [k, toPlain(v)]));
      const dataDir = join(dir, 'test_data_set_0');
      const feeds = new Map<string, Tensor>();
      readPbs(dataDir, 'input_').forEach((t, i) => feeds.set(g.inputs[i].name, t));
      for (const [k, v] of g.initializers) if (!feeds.has(k)) feeds.set(k, v);
      const inputs = node.inputs.map((n) => (n ? feeds.get(n) : undefined));
      const run = runKernel(def, inputs, { attributes, opset, outputs: node.outputs.length });
      if (KNOWN_FAILURES[name]) {
        await run.catch(() => undefined);
        return;
      }
      const outputs = await run;
      const expected = readPbs(dataDir, 'output_');
      g.outputs.forEach((o, i) => {
        const slot = node.outputs.indexOf(o.name);
        const got = outputs[slot];
        if (!(got instanceof Tensor)) throw new Error(`output ${o.name} missing`);
        compare(got, expected[i], `${name} ${o.name}`);
      });
    });
  }
});
