// memLimit: the estimate of what a program holds (program-memory.ts), the EP-wide account
// (memory-budget.ts), and what a user sees: a partition whose weights cannot fit is left to the next
// EP with the reason; a program that would pass the limit is refused with OUT_OF_MEMORY before it is
// compiled, after the partition's other programs made what room they could. Each test here passes
// only if memLimit is read: without it every compile is accepted.
import { describe, expect, it } from 'vitest';
import { InferenceSession, SwitchyardError, Tensor, registerExecutionProvider } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { executionProviderFactory as cpuFactory } from '@switchyard/ep-cpu';
import { MigraphxExecutionProvider } from '../migraphx-provider.js';
import type { MigraphxProviderOptions } from '../migraphx-options.js';
import { CpuProgramCompiler } from '../testing/cpu-program-compiler.js';
import { DeviceMemoryBudget } from './memory-budget.js';
import { programMemory } from './program-memory.js';

registerExecutionProvider(cpuFactory);

// x[n,4] · W[4,8] -> h -> Relu -> r -> Neg -> y[n,8]; W is 32 float32s (128 bytes).
const model = () =>
  buildModel({
    inputs: [['x', 'float32', ['n', 4]]],
    outputs: [['y', 'float32', ['n', 8]]],
    initializers: { w: new Tensor('float32', Float32Array.from({ length: 32 }, (_, i) => (i % 7) - 3), [4, 8]) },
    nodes: [
      { op: 'MatMul', inputs: ['x', 'w'], outputs: ['h'] },
      { op: 'Relu', inputs: ['h'], outputs: ['r'] },
      { op: 'Neg', inputs: ['r'], outputs: ['y'] },
    ],
  });
const rows = (n: number) => new Tensor('float32', Float32Array.from({ length: n * 4 }, (_, i) => i / 3 - 1), [n, 4]);

describe('programMemory', () => {
  it('counts weights, device copies of inputs and outputs, and the planned peak of the values inside', () => {
    const g = model().graph;
    // n = 2: W 128; x 32 + y 64; h and r (64 each) are live together at Relu.
    expect(programMemory(g, new Map([['x', [2, 4]]]), 'none')).toEqual({ weightsBytes: 128, ioBytes: 96, activationBytes: 128, totalBytes: 352, unsized: [] });
    // n = 4: the symbolic dim follows the input shape through inference.
    expect(programMemory(g, new Map([['x', [4, 4]]]), 'none')).toMatchObject({ ioBytes: 192, activationBytes: 256, totalBytes: 576 });
    // fp16 halves float32 weights and values inside (each 32-byte value takes a 64-byte aligned slot); the edges stay float32.
    expect(programMemory(g, new Map([['x', [2, 4]]]), 'fp16')).toMatchObject({ weightsBytes: 64, ioBytes: 96, activationBytes: 128 });
  });
});

describe('DeviceMemoryBudget', () => {
  it('holds reservations up to the limit and gives them back once', () => {
    const budget = new DeviceMemoryBudget(1000);
    const a = budget.reserve(600, 'a');
    expect(() => budget.reserve(500, 'b')).toThrow(expect.objectContaining({ code: 'OUT_OF_MEMORY', message: 'migraphx EP: b needs about 500 bytes of device memory, past memLimit (1000 bytes); 1 other program(s) of this EP hold about 600 bytes' }));
    a();
    a();
    expect(budget.heldBytes).toBe(0);
    budget.reserve(1000, 'c');
    expect(budget.programs).toBe(1);
  });
});

describe('the EP with memLimit', () => {
  const open = async (options: MigraphxProviderOptions, compiler = new CpuProgramCompiler()) => {
    const ep = new MigraphxExecutionProvider({ target: 'ref', cacheDir: false, ...options }, { compiler });
    // Optimization off: it would fuse Relu and Neg into a node MIGraphX cannot parse once the CPU EP has them.
    const session = await InferenceSession.fromModel(model(), { executionProviders: [ep, 'cpu'], graphOptimizationLevel: 'disabled' });
    return { ep, session, compiler };
  };

  it('leaves a partition whose weights cannot fit to the next EP, saying why', async () => {
    const { session } = await open({ memLimit: 100 });
    expect(session.placement.nodes.map((n) => n.ep)).toEqual(['cpu', 'cpu', 'cpu']);
    for (const node of session.placement.nodes) {
      expect(node.declined).toContainEqual({ ep: 'migraphx', reason: { kind: 'partition', message: "partition's weights need 128 bytes of device memory, past memLimit (100 bytes)" } });
    }
    await session.release();
  });

  it('refuses a program that would pass the limit with OUT_OF_MEMORY, before compiling it; the session stays usable', async () => {
    // n = 2 needs 352 bytes; n = 8 needs 128 (W) + 128 (x) + 256 (y) + 2·256 (h, r) = 1024.
    const { ep, session, compiler } = await open({ memLimit: 1000 });
    expect(session.placement.nodes.every((n) => n.ep === 'migraphx')).toBe(true);
    await session.run({ x: rows(2) });
    const error = await session.run({ x: rows(8) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SwitchyardError);
    expect(error).toMatchObject({ code: 'OUT_OF_MEMORY' });
    expect((error as Error).message).toContain("partition 'migraphx_partition_0' for x[8x4] needs about 1024 bytes of device memory, past memLimit (1000 bytes)");
    expect(compiler.compiles).toBe(1);
    expect(ep.memory.heldBytes).toBe(0); // n = 2's program made room and left; n = 8 never came
    await session.run({ x: rows(2) });
    expect(ep.memory.heldBytes).toBe(352);
    await session.release();
  });

  it("makes room from the partition's least recently used programs, however many maxCompiledPrograms allows", async () => {
    // n = 2 (352) and n = 3 (128 + 48 + 96 + 2·128 = 528) fit in 1200; n = 4 (576) does not fit beside
    // both, so n = 2, the least recently used, leaves and n = 3 stays.
    const { ep, session } = await open({ memLimit: 1200, maxCompiledPrograms: 8 });
    await session.run({ x: rows(2) });
    await session.run({ x: rows(3) });
    expect(ep.memory.heldBytes).toBe(352 + 528);
    await session.run({ x: rows(4) });
    expect(ep.partitions[0].programSignatures).toEqual(['x:3x4', 'x:4x4']);
    expect(ep.memory.heldBytes).toBe(528 + 576);
    await session.release();
    expect(ep.memory.heldBytes).toBe(0);
  });
});
