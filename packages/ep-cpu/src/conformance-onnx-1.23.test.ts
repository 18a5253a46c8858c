/**
 * The ONNX 1.23.1 backend node suite (opsets to 28, IR version 14), written by scripts/setup.sh from the
 * pinned onnx wheel's generators into .cache/onnx-1.23.1/data, on the CPU EP, checked against
 * conformance-expectations-onnx-1.23.json: an unexpected failure and an unexpected pass both fail.
 * Skipped (with the reason printed by setup) where the wheel could not be installed.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { registerExecutionProvider } from '@switchyard/core';
import { readExpectations, runBackendSuite } from '@switchyard/core/testing';
import { executionProviderFactory } from './index.js';

const EXPECTATIONS = fileURLToPath(new URL('../conformance-expectations-onnx-1.23.json', import.meta.url));
const SUITE_ROOT = fileURLToPath(new URL('../../../.cache/onnx-1.23.1/data', import.meta.url));
const haveData = existsSync(`${SUITE_ROOT}/node`);

describe.skipIf(!haveData)('ONNX 1.23.1 backend node suite on ep-cpu', () => {
  it('matches the expectation file', { timeout: 30 * 60_000 }, async () => {
    registerExecutionProvider(executionProviderFactory);
    const expectations = readExpectations(EXPECTATIONS);
    const summary = await runBackendSuite({
      root: SUITE_ROOT,
      suites: ['node'],
      session: { executionProviders: ['cpu'], logSeverityLevel: 3 },
      expectations,
    });
    console.log(`ONNX 1.23.1 node suite on cpu: ${summary.total} tests — ${summary.passed} passed, ${summary.failed} failed, ${summary.unsupported} unsupported`);
    expect(summary.total).toBe(1884);
    const describe = (r: { id: string; outcome: string; detail?: string }) => `${r.id} ${r.outcome}: ${r.detail ?? ''}`;
    expect(summary.unexpectedFailures.map(describe)).toEqual([]);
    expect(summary.unexpectedPasses.map((r) => r.id)).toEqual([]);
    expect(summary.staleEntries).toEqual([]);
    for (const [id, e] of Object.entries(expectations.tests)) expect(e.reason, id).not.toBe('');
  });
});
