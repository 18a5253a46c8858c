// gpuMemLimit on the GPU: a session whose plan does not fit is refused at creation with the
// budget's message and takes no device memory; one that fits runs, and what the EP counts (plan
// arena with the weights, the library workspaces its build took) is what the plan and the driver
// say it took. scripts/gpu-host/run.sh's `tests` stage runs this file alone (it reads the device's free
// memory, which other test processes would move).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { InferenceSession, Tensor } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { RocmExecutionProvider } from '@switchyard/ep-rocm';
import { assertClose, loaded, reference, seeded, skip } from './lib/harness.mjs';

const MiB = 2 ** 20;
const IN = 2048;
const HIDDEN = 4096;
const OUT = 1024;
const WEIGHT_BYTES = (IN * HIDDEN + HIDDEN * OUT) * 4; // 48 MiB

// x[8,2048] → MatMul W1 → Relu → MatMul W2: 48 MiB of weights, static shapes (reserved at compile).
function mlp() {
  return buildModel({
    inputs: [['x', 'float32', [8, IN]]],
    outputs: [['y', 'float32', [8, OUT]]],
    initializers: { w1: new Tensor('float32', seeded(IN * HIDDEN, 3), [IN, HIDDEN]), w2: new Tensor('float32', seeded(HIDDEN * OUT, 5), [HIDDEN, OUT]) },
    nodes: [
      { op: 'MatMul', inputs: ['x', 'w1'], outputs: ['h'], name: 'fc1' },
      { op: 'Relu', inputs: ['h'], outputs: ['r'], name: 'relu' },
      { op: 'MatMul', inputs: ['r', 'w2'], outputs: ['y'], name: 'fc2' },
    ],
    opset: 17,
  });
}

const freeBytes = () => loaded.binding.planDeviceMemory(0).free;

describe('rocm gpuMemLimit', { skip }, () => {
  it('refuses a session whose plan passes the limit when it is created, saying what, the limit and what is in use', async () => {
    const before = freeBytes();
    const ep = new RocmExecutionProvider({ gpuMemLimit: 16 * MiB });
    const error = await InferenceSession.fromModel(mlp(), { executionProviders: [ep] }).catch((e) => e);
    assert.equal(error?.code, 'OUT_OF_MEMORY', String(error));
    assert.match(error.message, /rocm:0: the plan of '.+' \(float32\[8, 2048\]\) needs \d+ bytes \(\d+\.\d MiB\), which would pass gpuMemLimit \(16777216 bytes \(16\.0 MiB\); nothing in use\)/);
    assert.equal(ep.memoryUsage.inUseBytes, 0);
    // Refused before the plan's arena or weights were allocated.
    assert.ok(before - freeBytes() < 8 * MiB, `free went from ${before} to ${freeBytes()}`);
  });

  it('runs under a limit that fits and counts what the plan and its libraries took, as the driver sees it', async () => {
    const x = new Tensor('float32', seeded(8 * IN, 11), [8, IN]);
    const expected = (await reference(mlp(), { x })).y;
    // A session run and released first loads the libraries' kernels and leaves its stream, with the
    // libraries' handles and workspaces, in native-hip's pool: the measured session reuses them, so
    // the driver sees what this session's plan takes (the handles' own state is not the EP's count).
    const warm = await InferenceSession.fromModel(mlp(), { executionProviders: [new RocmExecutionProvider()] });
    await warm.run({ x });
    await warm.release();
    const before = freeBytes();
    const ep = new RocmExecutionProvider({ gpuMemLimit: 512 * MiB });
    const session = await InferenceSession.fromModel(mlp(), { executionProviders: [ep] });
    const y = (await session.run({ x })).y;
    assertClose(y.data, expected.data, 1e-3, 1e-3, 'y');
    const afterRun = freeBytes();
    const taken = before - afterRun;

    const [partition] = ep.partitions;
    const plan = partition.stats.lastPlan;
    const usage = ep.memoryUsage;
    assert.equal(usage.byKind.plans, plan.arenaBytes, 'the plan arena charged is the native plan\'s');
    assert.equal(partition.stats.lastFootprint.weightsBytes, WEIGHT_BYTES);
    assert.ok(plan.arenaBytes >= WEIGHT_BYTES + 8 * (IN + HIDDEN + OUT) * 4, `arena ${plan.arenaBytes}`);
    const counted = usage.inUseBytes;
    console.log(`# counted ${(counted / MiB).toFixed(1)} MiB (plans ${(usage.byKind.plans / MiB).toFixed(1)}, libraries ${(usage.byKind.libraries / MiB).toFixed(1)}), driver ${(taken / MiB).toFixed(1)} MiB`);
    // The driver rounds each allocation up to 2 MiB and the libraries keep a little handle state of
    // their own: it may see a few MiB more than the EP counts, never much less.
    assert.ok(taken >= counted - 4 * MiB, `driver saw ${taken} bytes taken, the EP counted ${counted}`);
    assert.ok(taken <= counted + Math.max(24 * MiB, 0.1 * counted), `driver saw ${taken} bytes taken, the EP counted ${counted}`);

    // memoryPlan: the same plan described (not built), with what a new plan stream gets on cuBLAS: the
    // 32 MiB workspace and the handle's own state (as the last handle made measured it).
    const rocm = session.memoryPlan.devices.find((d) => d.device === 'rocm:0');
    const cublas = loaded.binding.blasInfo().backend === 'cuBLAS';
    const blas = cublas ? 32 * MiB + loaded.binding.libraryHandleBytes(0).blas : 0;
    if (cublas) assert.ok(loaded.binding.libraryHandleBytes(0).created > 0, 'the warm-up made a cuBLAS handle and measured it');
    assert.equal(rocm.weightsBytes, WEIGHT_BYTES);
    assert.equal(rocm.weightsBytes + rocm.activationBytes + rocm.workspaceBytes, plan.arenaBytes + blas);

    await session.release();
    assert.equal(ep.memoryUsage.inUseBytes, 0);
    // The plan's arena went back to the driver (the library workspaces stay with the stream's handles).
    assert.ok(freeBytes() - afterRun >= plan.arenaBytes - 2 * MiB, `released: free ${afterRun} -> ${freeBytes()}, arena ${plan.arenaBytes}`);
  });
});
