// Shared harness of the runtime/BLAS/DNN GPU tests: loads the built addon and decides whether a
// device is there (skip otherwise; SWITCHYARD_GPU_REQUIRED=1 makes that a failure). Plain ESM for
// hosts without node_modules:  node --test packages/native-hip/gpu-tests/
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const addonPath = process.env.SWITCHYARD_HIP_ADDON ?? join(packageRoot, 'build', 'Release', 'switchyard_hip.node');

function load() {
  if (!existsSync(addonPath)) return { skip: `no addon at ${addonPath} (pnpm --filter @switchyard/native-hip run build:native)` };
  let binding;
  try {
    binding = createRequire(import.meta.url)(addonPath);
  } catch (error) {
    return { skip: `loading ${addonPath} failed: ${error.message}` };
  }
  if (typeof binding.DeviceArena !== 'function') return { skip: `${addonPath} has no DeviceArena (a stale build?)` };
  const devices = binding.deviceCount();
  if (devices.count < 1) return { skip: `no GPU (${devices.status}: ${devices.message})` };
  return { binding, props: binding.deviceProperties(0) };
}

export const gpu = load();
export const skip = gpu.skip ?? false;
if (skip && process.env.SWITCHYARD_GPU_REQUIRED === '1') throw new Error(`SWITCHYARD_GPU_REQUIRED=1 but ${skip}`);

/** A deterministic generator in [-1, 1). */
export function rng(seed) {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 31 - 1;
  };
}

export function randomF32(n, rand) {
  const out = new Float32Array(n);
  for (let i = 0; i < n; ++i) out[i] = rand();
  return out;
}

/** Uploads a typed array into a new DeviceBuffer on device 0. */
export function upload(array) {
  const buffer = new gpu.binding.DeviceBuffer(0, Math.max(array.byteLength, 4));
  buffer.upload(array);
  return buffer;
}

export function downloadF32(buffer, length) {
  const out = new Float32Array(length);
  buffer.download(out);
  return out;
}

/** Largest |a-b| / (atol + rtol*|b|) over the arrays; <= 1 passes. */
export function assertClose(actual, expected, { atol = 1e-4, rtol = 1e-4, what = 'values' } = {}) {
  if (actual.length !== expected.length) throw new Error(`${what}: length ${actual.length} != ${expected.length}`);
  for (let i = 0; i < actual.length; ++i) {
    const a = actual[i];
    const e = expected[i];
    if (!(Math.abs(a - e) <= atol + rtol * Math.abs(e))) {
      throw new Error(`${what}: element ${i}: got ${a}, expected ${e} (atol ${atol}, rtol ${rtol})`);
    }
  }
}
