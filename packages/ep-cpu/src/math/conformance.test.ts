/**
 * ONNX backend conformance for the math kernels: every single-node folder of the ONNX 1.12 node
 * tests whose op is in `mathKernels` is loaded with core's loader, its node run through our kernel
 * by the kernel harness, and every output compared with the stored one (ONNX's rtol 1e-3, atol 1e-7).
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Tensor, decodeTensor, loadModel, resolveSchema, type AttributeValue, type KernelDef, type ValueType } from '@switchyard/core';
import { compareValues, runKernel, type PlainAttribute } from '@switchyard/core/testing';
import { mathKernels } from '../kernels/math-kernels.js';

const ROOT = '/usr/share/libonnx-testdata/data/node';
const OPS = new Set(mathKernels.map((d) => d.opType));

/**
 * Tests whose expected data we deliberately do not match, with the reason. They must keep failing,
 * so this list stays true.
 */
const KNOWN_FAILURES: Record<string, string> = {
  test_cast_FLOAT_to_BFLOAT16: 'ONNX 1.12 expects truncation to bfloat16; we round to nearest even, as ONNX Runtime and later ONNX do',
  test_castlike_FLOAT_to_BFLOAT16: 'ONNX 1.12 expects truncation to bfloat16; we round to nearest even, as ONNX Runtime and later ONNX do',
};

function toPlain(a: AttributeValue): PlainAttribute {
  switch (a.type) {
    case 'int':
    case 'string':
    case 'ints':
    case 'strings':
    case 'tensor':
      return a.value;
    case 'float':
      return { float: a.value };
    case 'floats':
      return { floats: a.value };
    default:
      throw new Error(`attribute type ${a.type} is not supported by the harness`);
  }
}

/** The kernel the registry would pick: matched on the schema version in force, as the registry does. */
function findDef(opType: string, opset: number): KernelDef | undefined {
  const version = resolveSchema('', opType, opset)?.sinceVersion ?? opset;
  return mathKernels.find((d) => d.opType === opType && d.sinceVersion <= version && version <= (d.endVersion ?? Infinity));
}

/**
 * ONNX 1.12's generator stored bfloat16 test values as uint16 tensors of the same bits; reading them
 * as the type the model declares restores what the test means.
 */
function asDeclared(t: Tensor, declared: ValueType | undefined): Tensor {
  if (declared?.kind === 'tensor' && declared.elemType === 'bfloat16' && t.type === 'uint16') {
    return new Tensor('bfloat16', t.data as Uint16Array, t.dims);
  }
  return t;
}

function readPbs(dir: string, prefix: string): Tensor[] {
  return readdirSync(dir)
    .filter((f) => f.startsWith(prefix) && f.endsWith('.pb'))
    .sort((a, b) => Number(a.slice(prefix.length, -3)) - Number(b.slice(prefix.length, -3)))
    .map((f) => decodeTensor(readFileSync(join(dir, f)), f));
}

/** Folder-name prefixes of the math ops' tests (cheap filter before loading any model). */
const PREFIXES =
  /^test_(abs|neg|reciprocal|floor|ceil|round|sqrt|exp|log|sin|cos|tan|asin|acos|atan|sinh|cosh|asinh|acosh|atanh|erf|sign|isnan|isinf|not|relu|leakyrelu|elu|selu|celu|sigmoid|hardsigmoid|hardswish|softplus|softsign|tanh|thresholdedrelu|prelu|mish|clip|add|sub|mul|div|pow|mod|max|min|sum|mean|bitshift|and|or|xor|bitwise|equal|greater|less|where|cast|castlike|reduce|argmax|argmin|cumsum)/;

const folders = existsSync(ROOT) ? readdirSync(ROOT).filter((n) => PREFIXES.test(n) && !n.endsWith('_expanded')).sort() : [];

describe.skipIf(!existsSync(ROOT))('math kernels on the ONNX backend node tests', () => {
  it('finds the math tests', () => {
    expect(folders.length).toBeGreaterThan(300);
  });

  for (const name of folders) {
    it(name, async (ctx) => {
      const dir = join(ROOT, name);
      const model = await loadModel(join(dir, 'model.onnx'));
      const g = model.graph;
      const node = g.nodes[0];
      if (g.nodes.length !== 1 || node.domain !== '' || !OPS.has(node.opType)) return ctx.skip();
      const opset = model.opsetImports.get('') ?? 1;
      const def = findDef(node.opType, opset);
      expect(def, `kernel for ${node.opType} at opset ${opset}`).toBeDefined();
      const data = join(dir, 'test_data_set_0');
      const feeds = new Map<string, Tensor>(g.initializers);
      readPbs(data, 'input_').forEach((t, i) => feeds.set(g.inputs[i].name, asDeclared(t, g.inputs[i].type)));
      const outputs = await runKernel(
        def!,
        node.inputs.map((n) => (n ? feeds.get(n) : undefined)),
        {
          attributes: Object.fromEntries([...node.attributes].map(([k, v]) => [k, toPlain(v)])),
          opset,
          outputs: node.outputs.length,
        },
      );
      const expected = readPbs(data, 'output_');
      const mismatches = g.outputs.map((o, i) => compareValues(outputs[node.outputs.indexOf(o.name)], asDeclared(expected[i], o.type)));
      if (KNOWN_FAILURES[name]) expect(mismatches.some((m) => m !== undefined), `${name} is listed as failing but passes`).toBe(true);
      else expect(mismatches, name).toEqual(mismatches.map(() => undefined));
    });
  }
});
