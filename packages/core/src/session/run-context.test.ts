import { describe, expect, it } from 'vitest';
import type { Node } from '../ir/graph.js';
import { NodeRunContext } from './run-context.js';

const node: Node = { id: 0, name: 'n', opType: 'Relu', domain: '', inputs: ['x'], outputs: ['y', 'z'], attributes: new Map() };

/** A context whose arena has two 16-byte slots full of leftovers from earlier values. */
function dirtyContext(): { ctx: NodeRunContext; arena: ArrayBuffer } {
  const arena = new ArrayBuffer(32);
  new Uint8Array(arena).fill(0xff);
  // A plan's layout with this node's outputs at 1 and 2; 0 and 3 belong to other steps (3 has a slot).
  const layout = { offset: Float64Array.of(-1, 0, 16, 0), bytes: Float64Array.of(0, 16, 16, 16), frozenDims: [] };
  return { ctx: new NodeRunContext(node, [], 1, { layout, arena, views: { data: [], type: [], size: [] }, maxTensorBytes: 1024 }, 1, 2), arena };
}

/** Two node contexts of consecutive runs sharing one arena, layout and view cache. */
function twoRuns(): [NodeRunContext, NodeRunContext] {
  const arena = new ArrayBuffer(32);
  const outputs = { layout: { offset: Float64Array.of(0, 16), bytes: Float64Array.of(16, 16), frozenDims: [] }, arena, views: { data: [], type: [], size: [] }, maxTensorBytes: 1024 };
  return [new NodeRunContext(node, [], 1, outputs, 0, 2), new NodeRunContext(node, [], 1, outputs, 0, 2)];
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

  it('never takes the slot of an entry past the node\'s own outputs', () => {
    const { ctx, arena } = dirtyContext();
    const extra = ctx.output(2, 'float32', [4], { uninitialized: true });
    expect(extra.data.buffer).not.toBe(arena);
    expect(ctx.arenaOutput(2)).toBeUndefined();
    expect(ctx.arenaOutput(1)).toBeUndefined();
    const z = ctx.output(1, 'float32', [4]);
    expect(ctx.arenaOutput(1)).toBe(z);
  });

  it('reuses the view over a slot in later runs while the type and size match', () => {
    const [first, second] = twoRuns();
    const a = first.output(0, 'float32', [4]);
    const b = second.output(0, 'float32', [4]);
    expect(b).not.toBe(a);
    expect(b.data).toBe(a.data);
    // Same bytes, another element type: a view of its own.
    const c = second.output(1, 'int32', [4]);
    const d = first.output(1, 'float32', [4]);
    expect(d.data).not.toBe(c.data);
    expect(d.data).toBeInstanceOf(Float32Array);
    expect((d.data as Float32Array).byteOffset).toBe(16);
  });

  it('remembers frozen dims per output but still copies loose ones', () => {
    const [first, second] = twoRuns();
    const frozen = Object.freeze([4]);
    expect(first.output(0, 'float32', frozen).dims).toBe(frozen);
    expect(second.output(0, 'float32', frozen).dims).toBe(frozen);
    const loose = [4];
    const t = second.output(1, 'float32', loose);
    loose[0] = 9;
    expect(t.dims).toEqual([4]);
    expect(Object.isFrozen(t.dims)).toBe(true);
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
