/**
 * The ONNX backend tests of every op the dtype-generic kernels serve (data movement, Cast, reductions,
 * Softmax family, normalizations), with the native kernels forced on for every size (smallOpsInTs: false:
 * the suite's tensors are tiny, so a default session runs them in TypeScript), once per build of the
 * vector loops this CPU runs. Outcomes must match conformance-expectations.json.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_BACKEND_TEST_ROOT, readExpectations, runBackendSuite } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { loadNative } from './load-native.js';

const native = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
const binding = native.ok && typeof native.binding.vectorIsa === 'function' ? native.binding : undefined;
const haveData = existsSync(DEFAULT_BACKEND_TEST_ROOT);
const EXPECTATIONS = fileURLToPath(new URL('../../conformance-expectations.json', import.meta.url));

const OPS = [
  'transpose', 'slice', 'concat', 'split', 'gather', 'gather_elements', 'pad', 'constant_pad', 'reflect_pad', 'edge_pad', 'wrap_pad', 'expand', 'tile',
  'depthtospace', 'spacetodepth', 'cast', 'reduce_[a-z0-9_]+', 'argmax', 'argmin', 'softmax', 'logsoftmax', 'hardmax', 'instancenorm',
  'batchnorm', 'layer_normalization', 'lpnormalization', 'mvn', 'group_normalization', 'lrn', 'scatter', 'scatter_elements', 'tril', 'triu',
  'reversesequence',
];
const FILTER = new RegExp(`^node/test_(${OPS.join('|')})(_.*)?$`);

function isas(): string[] {
  return ['generic', 'avx2', 'avx512'].filter((isa) => {
    try {
      binding!.vectorIsa!(isa as 'generic');
      return true;
    } catch {
      return false;
    }
  });
}

describe.skipIf(!binding || !haveData)('ONNX backend tests of the data-movement, reduction and normalization ops on the native kernels', () => {
  afterAll(() => binding?.vectorIsa?.('auto'));

  it('matches the expectation file on every build of the loops', { timeout: 10 * 60_000 }, async () => {
    const expectations = readExpectations(EXPECTATIONS);
    for (const isa of isas()) {
      binding!.vectorIsa!(isa as 'generic');
      const summary = await runBackendSuite({
        session: { executionProviders: [new CpuExecutionProvider({ smallOpsInTs: false })], logSeverityLevel: 3 },
        expectations,
        suites: ['node'],
        filter: FILTER,
      });
      expect(summary.total, isa).toBeGreaterThan(250);
      expect(summary.unexpectedFailures.map((r) => `${isa} ${r.id}: ${r.detail ?? r.outcome}`)).toEqual([]);
      expect(summary.unexpectedPasses.map((r) => r.id)).toEqual([]);
    }
  });
});
