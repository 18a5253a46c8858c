// Shared pieces of the ROCm EP's GPU tests: both EPs registered, whether a usable GPU is here (the
// tests skip with the reason when not), seeded data, a tolerance check and a CPU EP reference run.
import assert from 'node:assert/strict';
import { InferenceSession, registerExecutionProvider } from '@switchyard/core';
import { executionProviderFactory as cpuFactory } from '@switchyard/ep-cpu';
import { executionProviderFactory } from '@switchyard/ep-rocm';
import { nativeHipBinding, probeDevices } from '@switchyard/native-hip';

registerExecutionProvider(cpuFactory);
registerExecutionProvider(executionProviderFactory);

export const loaded = nativeHipBinding();
const probe = loaded.ok ? probeDevices({ binding: loaded.binding }) : { ok: false, reason: loaded.reason };
export const usable = probe.ok && probe.devices.some((d) => d.usable);
export const skip = usable ? false : `no usable GPU: ${probe.reason ?? 'no device is usable'}`;

export function seeded(n, seed = 1) {
  let s = seed >>> 0;
  return Float32Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32 - 0.5;
  });
}

export function assertClose(actual, expected, atol = 1e-4, rtol = 1e-4, what = '') {
  assert.equal(actual.length, expected.length, `${what}: length`);
  for (let i = 0; i < actual.length; i++) {
    const a = Number(actual[i]);
    const e = Number(expected[i]);
    if (!(Math.abs(a - e) <= atol + rtol * Math.abs(e))) assert.fail(`${what}[${i}] = ${a}, expected ${e}`);
  }
}

export async function reference(model, feeds) {
  const s = await InferenceSession.fromModel(model, { executionProviders: ['cpu'] });
  const out = await s.run(feeds);
  await s.release();
  return out;
}
