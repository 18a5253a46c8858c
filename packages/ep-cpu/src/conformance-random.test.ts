/**
 * Backend tests whose expected values are random draws: listed as `random`, they compare dtypes and shapes and
 * not values (which would pass or fail by chance); not listed, the values are compared and they fail.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Tensor, encodeModel, encodeTensor, registerExecutionProvider } from '@switchyard/core';
import { buildModel, runBackendSuite, type Expectations } from '@switchyard/core/testing';
import { executionProviderFactory } from './index.js';

const root = mkdtempSync(join(tmpdir(), 'sy-random-suite-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A one-node Bernoulli test folder; `expectedDims` lets a test give the wrong expected shape. */
function bernoulliTest(name: string, expectedDims: number[]): void {
  const n = 64;
  const dir = join(root, 'node', name);
  mkdirSync(join(dir, 'test_data_set_0'), { recursive: true });
  const model = buildModel({ inputs: [['x', 'float32', [n]]], outputs: [['y', 'float32', [n]]], nodes: [{ op: 'Bernoulli', inputs: ['x'], outputs: ['y'] }], opset: 15 });
  writeFileSync(join(dir, 'model.onnx'), encodeModel(model));
  writeFileSync(join(dir, 'test_data_set_0', 'input_0.pb'), encodeTensor(new Tensor('float32', new Float32Array(n).fill(0.5), [n]), 'x'));
  // Alternating draws: any generator matches all 64 with probability 2^-64.
  const count = expectedDims.reduce((a, b) => a * b, 1);
  const draws = Float32Array.from({ length: count }, (_, i) => i % 2);
  writeFileSync(join(dir, 'test_data_set_0', 'output_0.pb'), encodeTensor(new Tensor('float32', draws, expectedDims), 'y'));
}

bernoulliTest('test_draws', [64]);
bernoulliTest('test_draws_wrong_shape', [8, 8]);

describe('backend tests of random draws', () => {
  it('a test listed as random compares dtype and shape only; unlisted, its values are compared', async () => {
    registerExecutionProvider(executionProviderFactory);
    const random = { outcome: 'random' as const, reason: 'numpy draws' };
    const expectations: Expectations = { ep: 'cpu', suite: 'test', tests: { 'node/test_draws': random, 'node/test_draws_wrong_shape': random } };
    const session = { executionProviders: ['cpu'], logSeverityLevel: 3 as const };

    const listed = await runBackendSuite({ root, suites: ['node'], session, expectations });
    const byId = Object.fromEntries(listed.results.map((r) => [r.id, r]));
    expect(byId['node/test_draws'].outcome).toBe('random');
    expect(byId['node/test_draws_wrong_shape']).toMatchObject({ outcome: 'failed', detail: expect.stringContaining('shape [64], expected [8,8]') });
    expect(listed.random).toBe(1);
    expect(listed.unexpectedFailures.map((r) => r.id)).toEqual(['node/test_draws_wrong_shape']);

    const unlisted = await runBackendSuite({ root, suites: ['node'], session });
    expect(unlisted.results.map((r) => r.outcome)).toEqual(['failed', 'failed']);
    expect(unlisted.results[0].detail).toMatch(/element \d+: [01], expected [01]/);
  });
});
