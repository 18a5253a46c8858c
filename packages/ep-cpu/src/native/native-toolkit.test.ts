// The shared native toolkit (@switchyard/native-toolkit) as ep-cpu's addon exposes it: its argument
// readers' coded TypeErrors, the rank limit it shares with oneDNN, and the way ep-cpu turns a coded
// native error into a SwitchyardError with the same code.
import { describe, expect, it } from 'vitest';
import { SwitchyardError, type Node } from '@switchyard/core';
import { loadNative } from './load-native.js';
import { withNativeErrors, withNodeErrors } from './native-errors.js';

const native = loadNative({ env: {} });
const node = { name: 'mm0', opType: 'MatMul' } as Node;

describe.skipIf(!native.ok)('native toolkit in switchyard_cpu.node', () => {
  const binding = native.ok ? native.binding : undefined!;
  const invalid = (message: RegExp) => expect.objectContaining({ code: 'INVALID_ARGUMENT', name: 'TypeError', message: expect.stringMatching(message) });

  it("reads dims with the toolkit's checks: rank up to oneDNN's 12, non-negative safe integers", () => {
    const make = (aDims: unknown) => new binding.MatMulPrimitive({ aDims: aDims as number[], bDims: [3, 4] });
    expect(() => make(Array(13).fill(1))).toThrow(invalid(/options\.aDims has more than 12 entries/));
    expect(() => make([-1, 3])).toThrow(invalid(/options\.aDims\[0\] must be >= 0/));
    expect(() => make([2 ** 53, 3])).toThrow(invalid(/options\.aDims\[0\] must be an integer/));
    expect(() => make('2,3')).toThrow(invalid(/options\.aDims must be an array of integers, got a string/));
    expect(() => make(Array(12).fill(1).concat([]))).toThrow(/inner dimensions differ/); // 12 is allowed: the shape check comes next
  });

  it('turns a coded native error into a SwitchyardError with the same code, naming the node, keeping the cause', async () => {
    const mm = new binding.MatMulPrimitive({ aDims: [2, 3], bDims: [3, 4] });
    const sync = (() => {
      try {
        withNodeErrors(node, () => mm.runSync(new Float32Array(5), new Float32Array(12), new Float32Array(8)));
      } catch (error) {
        return error;
      }
    })();
    expect(sync).toBeInstanceOf(SwitchyardError);
    expect(sync).toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringMatching(/^node 'mm0' \(MatMul, onednn\): .*must have 6 elements, got 5/) });
    expect((sync as SwitchyardError).cause).toBeInstanceOf(TypeError);
    mm.dispose();
    await expect(withNativeErrors(node, () => mm.run(new Float32Array(6), new Float32Array(12), new Float32Array(8)))).rejects.toMatchObject({
      name: 'SwitchyardError',
      code: 'RELEASED',
    });
  });

  it('runs work on the native queue and settles its promise (the PromiseWorker of the toolkit)', async () => {
    const mm = new binding.MatMulPrimitive({ aDims: [2, 3], bDims: [3, 2] });
    const a = Float32Array.from([1, 2, 3, 4, 5, 6]);
    const b = Float32Array.from([1, 0, 0, 1, 1, 1]);
    const y = new Float32Array(4);
    await expect(mm.run(a, b, y)).resolves.toBeUndefined();
    expect(Array.from(y)).toEqual([4, 5, 10, 11]);
  });
});
