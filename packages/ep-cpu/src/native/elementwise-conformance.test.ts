/**
 * The ONNX backend tests of every op the elementwise engine serves, with the engine forced on for every
 * size (smallOpsInTs: false: the suite's tensors are tiny, so the default session runs them in
 * TypeScript), once per instruction set this CPU has. Outcomes must match conformance-expectations.json.
 */
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_BACKEND_TEST_ROOT, readExpectations, runBackendSuite } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { loadNative } from './load-native.js';

const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const Primitive = native.ok ? native.binding.ElementwisePrimitive : undefined;
const haveData = existsSync(DEFAULT_BACKEND_TEST_ROOT);
const EXPECTATIONS = fileURLToPath(new URL('../../conformance-expectations.json', import.meta.url));

const OPS = [
  'relu', 'leakyrelu', 'clip', 'sigmoid', 'hardsigmoid', 'hardswish', 'tanh', 'erf', 'exp', 'log', 'sqrt', 'abs', 'neg', 'reciprocal',
  'floor', 'ceil', 'round', 'sign', 'elu', 'selu', 'celu', 'softplus', 'softsign', 'mish', 'thresholdedrelu', 'sin', 'cos', 'add', 'sub',
  'mul', 'div', 'pow', 'max', 'min', 'sum', 'mean', 'prelu', 'where', 'equal', 'less', 'greater', 'less_equal', 'greater_equal',
];
// node/test_<op>[_variant] (not test_logsoftmax, test_sinh, test_maxpool, ...: a variant starts with '_').
const FILTER = new RegExp(`^node/test_(${OPS.join('|')})(_.*)?$`);

function isas(): string[] {
  return ['generic', 'avx2', 'avx512'].filter((isa) => {
    try {
      new Primitive!({ inputs: [{ dims: [1] }], program: [{ op: 'neg', args: [0] }], isa: isa as 'generic' }).dispose();
      return true;
    } catch {
      return false;
    }
  });
}

describe.skipIf(!Primitive || !haveData)('ONNX backend tests of the elementwise ops on the native engine', () => {
  const saved = process.env.SWITCHYARD_CPU_VECTOR_ISA;
  afterAll(() => {
    if (saved === undefined) delete process.env.SWITCHYARD_CPU_VECTOR_ISA;
    else process.env.SWITCHYARD_CPU_VECTOR_ISA = saved;
  });

  it('matches the expectation file on every instruction set', { timeout: 10 * 60_000 }, async () => {
    const expectations = readExpectations(EXPECTATIONS);
    for (const isa of isas()) {
      process.env.SWITCHYARD_CPU_VECTOR_ISA = isa;
      const summary = await runBackendSuite({
        session: { executionProviders: [new CpuExecutionProvider({ smallOpsInTs: false })], logSeverityLevel: 3 },
        expectations,
        suites: ['node'],
        filter: FILTER,
      });
      expect(summary.total, isa).toBeGreaterThan(130);
      expect(summary.unexpectedFailures.map((r) => `${isa} ${r.id}: ${r.detail ?? r.outcome}`)).toEqual([]);
      expect(summary.unexpectedPasses.map((r) => r.id)).toEqual([]);
    }
  });
});
