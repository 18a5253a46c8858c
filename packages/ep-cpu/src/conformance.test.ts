/**
 * The ONNX 1.12 backend suite (Debian libonnx-testdata) on the CPU EP, checked against
 * conformance-expectations.json: an unexpected failure and an unexpected pass both fail.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { registerExecutionProvider } from '@switchyard/core';
import { DEFAULT_BACKEND_TEST_ROOT, readExpectations, runBackendSuite } from '@switchyard/core/testing';
import { executionProviderFactory } from './index.js';

const EXPECTATIONS = fileURLToPath(new URL('../conformance-expectations.json', import.meta.url));
const haveData = existsSync(DEFAULT_BACKEND_TEST_ROOT);

describe.skipIf(!haveData)('ONNX backend conformance on ep-cpu', () => {
  it('matches the expectation file', { timeout: 30 * 60_000 }, async () => {
    registerExecutionProvider(executionProviderFactory);
    const expectations = readExpectations(EXPECTATIONS);
    const summary = await runBackendSuite({ session: { executionProviders: ['cpu'], logSeverityLevel: 3 }, expectations });
    console.log(`ONNX backend suite on cpu: ${summary.total} tests — ${summary.passed} passed, ${summary.failed} failed, ${summary.unsupported} unsupported`);
    expect(summary.total).toBe(1072);
    const describe = (r: { id: string; outcome: string; detail?: string }) => `${r.id} ${r.outcome}: ${r.detail ?? ''}`;
    expect(summary.unexpectedFailures.map(describe)).toEqual([]);
    expect(summary.unexpectedPasses.map((r) => r.id)).toEqual([]);
    expect(summary.staleEntries).toEqual([]);
    // Every listed test carries a reason.
    for (const [id, e] of Object.entries(expectations.tests)) expect(e.reason, id).not.toBe('');
  });
});
