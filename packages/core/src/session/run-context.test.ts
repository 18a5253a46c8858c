import { describe, expect, it } from 'vitest';
import type { Node } from '../ir/graph.js';
import { NodeRunContext } from './run-context.js';

const node: Node = { id: 0, name: 'n', opType: 'Relu', domain: '', inputs: ['x'], outputs: ['y', 'z'], attributes: new Map() };

/** A context whose arena has two 16-byte slots full of leftovers from earlier values. */
function dirtyContext(): { ctx: NodeRunContext; arena: ArrayBuffer } {
  const arena = new ArrayBuffer(32);
  new Uint8Array(arena).fill(0xff);
  const slots = new Map([
    ['y', { offset: 0, bytes: 16 }],
    ['z', { offset: 16, bytes: 16 }],
  ]);
  return { ctx: new NodeRunContext({ node, inputs: [], arena, slots, threads: 1 }), arena };
}

describe('NodeRunContext.output', () => {
  it('hands out arena memory zeroed, like a fresh typed array', () => {
    const { ctx, arena } = dirtyContext();
    const y = ctx.output(0, 'float32', [4]);
    expect(y.data.buffer).toBe(arena);
    expect(Array.from(y.data as Float32Array)).toEqual([0, 0, 0, 0]);
  });

  it('skips the zeroing when the kernel says it writes every element', () => {
    const { ctx, arena } = dirtyContext();
    const z = ctx.output(1, 'int32', [4], { uninitialized: true });
    expect(z.data.buffer).toBe(arena);
    expect(Array.from(z.data as Int32Array)).toEqual([-1, -1, -1, -1]);
    // The other slot is untouched by this call.
    expect(new Uint8Array(arena, 0, 16).every((b) => b === 0xff)).toBe(true);
  });

  it('allocates a fresh zeroed array when no slot matches', () => {
    const { ctx, arena } = dirtyContext();
    const y = ctx.output(0, 'float32', [2, 3], { uninitialized: true });
    expect(y.data.buffer).not.toBe(arena);
    expect(Array.from(y.data as Float32Array)).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it('reports bad output dims with the node and output named', () => {
    const { ctx } = dirtyContext();
    expect(() => ctx.output(0, 'float32', [2, -1])).toThrow(/Relu 'n' output 0: dimension -1/);
    expect(() => ctx.output(1, 'float32', [1.5])).toThrow(/output 1: dimension 1.5/);
    expect(() => ctx.output(0, 'float32', [65536, 65536])).toThrow(/more than/);
  });

  it('keeps frozen dims as they are and copies others', () => {
    const { ctx } = dirtyContext();
    const frozen = Object.freeze([4]);
    expect(ctx.output(0, 'float32', frozen).dims).toBe(frozen);
    const loose = [4];
    const z = ctx.output(1, 'float32', loose);
    loose[0] = 9;
    expect(z.dims).toEqual([4]);
  });
});
