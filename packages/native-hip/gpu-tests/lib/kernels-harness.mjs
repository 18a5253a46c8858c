// Shared harness of the kernel GPU tests (gpu-tests/kernels-*.mjs): loads the built test addon
// (switchyard_hip_test.node: the addon plus kernelsJs; found as src/load-test-addon.ts finds it), decides
// whether a device is there (skip otherwise, or fail when SWITCHYARD_GPU_REQUIRED=1), turns number
// arrays into the typed arrays kernelsJs.run takes and back, and runs one kernel against a reference.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compare, f16BitsToF32, f32ToF16Bits, roundF16 } from './kernels-reference.mjs';

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function testAddonPath(env = process.env) {
  if (env.SWITCHYARD_HIP_TEST_ADDON) return env.SWITCHYARD_HIP_TEST_ADDON;
  const addon = env.SWITCHYARD_HIP_ADDON || join(packageRoot, 'build', 'Release', 'switchyard_hip.node');
  return join(dirname(addon), 'switchyard_hip_test.node');
}

function loadKernels() {
  const path = testAddonPath();
  if (!existsSync(path)) return { skip: `no test addon at ${path} (pnpm --filter @switchyard/native-hip run build:native builds it beside the addon)` };
  let binding;
  try {
    binding = createRequire(import.meta.url)(path);
  } catch (error) {
    return { skip: `loading ${path} failed: ${error.message}` };
  }
  if (typeof binding.kernelsJs?.run !== 'function') return { skip: `${path} has no kernelsJs (a stale build?)` };
  const devices = binding.deviceCount();
  if (devices.count < 1) return { skip: `no GPU (${devices.status}: ${devices.message})` };
  const props = binding.deviceProperties(0);
  return { binding, run: binding.kernelsJs.run, device: `${props.name} (${props.arch}, warp ${props.warpSize})` };
}

export const kernels = loadKernels();

// node:test's `skip` option: a reason string, or false when the GPU tests should run. With
// SWITCHYARD_GPU_REQUIRED=1 a missing device is a failure instead, so a GPU host cannot pass by skipping.
export const skip = kernels.skip ?? false;
if (skip && process.env.SWITCHYARD_GPU_REQUIRED === '1') throw new Error(`SWITCHYARD_GPU_REQUIRED=1 but ${skip}`);
if (!skip) console.log(`# kernels on ${kernels.device}`);

// ---- typed data

/** Values as the dtype stores them (float16 rounded), so references see what the GPU sees. */
export function quantize(dtype, values) {
  if (dtype === 'float16') return values.map(roundF16);
  if (dtype === 'float32') return values.map(Math.fround);
  return values;
}

export function typedArray(dtype, values) {
  switch (dtype) {
    case 'float32': return Float32Array.from(values);
    case 'float16': return Uint16Array.from(values, f32ToF16Bits);
    case 'int32': return Int32Array.from(values);
    case 'int64': return BigInt64Array.from(values, (v) => BigInt(v));
    case 'int8': return Int8Array.from(values);
    case 'bool': case 'uint8': return Uint8Array.from(values, (v) => (dtype === 'bool' ? (v ? 1 : 0) : v));
  }
  throw new Error(`unknown dtype ${dtype}`);
}

export function numbers(dtype, array) {
  if (dtype === 'float16') return Array.from(array, f16BitsToF32);
  if (dtype === 'int64') return Array.from(array, Number);
  return Array.from(array);
}

/** An input for kernelsJs.run plus the quantized values for the reference. */
export function tensor(dtype, dims, values) {
  const q = quantize(dtype, values);
  return { spec: { dtype, dims, data: typedArray(dtype, q) }, values: q };
}

// Tolerances: float32 results against float64 references; float16 results carry one rounding of the
// output (2^-11 relative) on top of float32 arithmetic inside.
export const TOLERANCE = {
  float32: { atol: 1e-5, rtol: 1e-5 },
  float16: { atol: 2e-3, rtol: 2e-3 },
};

/**
 * Runs kernel `name` and checks every requested output against `expected` (arrays of numbers, one
 * per output; null for outputs not asked for). Returns the outputs as numbers.
 */
export function check(name, { inputs, outputs, attrs }, expected, tolerance) {
  const result = kernels.run(name, { inputs: inputs.map((t) => t?.spec ?? null), outputs, attrs });
  const got = result.outputs.map((array, i) => (array === null ? null : numbers(outputs[i].dtype, array)));
  got.forEach((values, i) => {
    if (values === null || expected[i] === null || expected[i] === undefined) return;
    const tol = tolerance ?? TOLERANCE[outputs[i].dtype] ?? { atol: 0, rtol: 0 };
    const problem = compare(values, expected[i], tol);
    assert.equal(problem, null, `${name} ${JSON.stringify(attrs ?? {})} output ${i} ${JSON.stringify(outputs[i].dims)} ${outputs[i].dtype}: ${problem}`);
  });
  return got;
}

export const FLOAT_TYPES = ['float32', 'float16'];
