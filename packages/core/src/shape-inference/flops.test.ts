import { describe, expect, it } from 'vitest';
import type { Graph } from '../ir/graph.js';
import type { DataType } from '../tensor/data-type.js';
import type { Dim } from '../ir/graph.js';
import type { PlainAttribute } from '../testing/kernel-harness.js';
import { addNode, makeGraph } from './build-graph.test-helper.js';
import { estimateFlops, estimateFlopsOrUnknown } from './flops.js';
import { inferShapes } from './infer.js';
import { boundShapes } from '../session/realized-flops.js';

function flopsOf(op: string, inputs: Record<string, [DataType, Dim[] | undefined]>, attrs: Record<string, PlainAttribute> = {}): number {
  const g: Graph = makeGraph({ inputs });
  addNode(g, op, Object.keys(inputs), ['y'], attrs);
  inferShapes(g);
  return estimateFlops(g.nodes[0], g);
}

describe('estimateFlops', () => {
  it('counts Attention as its two products, 2·B·Hq·Sq·Skv·(D + Dv), in both layouts', () => {
    const four = makeGraph({ opset: 23, inputs: { q: ['float32', [2, 4, 5, 8]], k: ['float32', [2, 2, 7, 8]], v: ['float32', [2, 2, 7, 16]] } });
    addNode(four, 'Attention', ['q', 'k', 'v'], ['y']);
    inferShapes(four);
    expect(estimateFlops(four.nodes[0], four)).toBe(2 * 2 * 4 * 5 * 7 * (8 + 16));
    const three = makeGraph({ opset: 23, inputs: { q: ['float32', [2, 5, 32]], k: ['float32', [2, 7, 16]], v: ['float32', [2, 7, 16]] } });
    addNode(three, 'Attention', ['q', 'k', 'v'], ['y'], { q_num_heads: 4, kv_num_heads: 2 });
    inferShapes(three);
    expect(estimateFlops(three.nodes[0], three)).toBe(2 * 2 * 4 * 5 * 7 * (8 + 8));
  });

  it('says unknown for symbolic shapes, and counts them once the symbols are bound', () => {
    const g = makeGraph({ inputs: { a: ['float32', ['batch', 3, 4]], b: ['float32', [4, 5]] } });
    addNode(g, 'MatMul', ['a', 'b'], ['y']);
    inferShapes(g);
    expect(estimateFlopsOrUnknown(g.nodes[0], g)).toBeUndefined();
    expect(estimateFlops(g.nodes[0], g)).toBe(0);
    expect(estimateFlopsOrUnknown(g.nodes[0], boundShapes(g, new Map([['batch', 6]])))).toBe(2 * 6 * 3 * 5 * 4);
    expect(estimateFlopsOrUnknown(g.nodes[0], boundShapes(g, new Map([['other', 6]])))).toBeUndefined();
  });

  it('counts Conv as 2·N·Cout·spatial·(Cin/group)·kernel', () => {
    // out [1, 16, 32, 32]: 2 · 16 · 1024 · 3 · 9
    expect(flopsOf('Conv', { x: ['float32', [1, 3, 32, 32]], w: ['float32', [16, 3, 3, 3]] }, { pads: [1, 1, 1, 1] })).toBe(884_736);
    // depthwise: Cin/group = 1 → 2 · 8 · 64 · 9
    expect(flopsOf('Conv', { x: ['float32', [1, 8, 10, 10]], w: ['float32', [8, 1, 3, 3]] }, { group: 8 })).toBe(2 * 8 * 64 * 9);
  });

  it('counts ConvTranspose from the input side', () => {
    // every one of 1·4·5·5 inputs scatters into 2 channels × 9 taps
    expect(flopsOf('ConvTranspose', { x: ['float32', [1, 4, 5, 5]], w: ['float32', [4, 2, 3, 3]] })).toBe(2 * 100 * 18);
  });

  it('counts MatMul and Gemm as 2·M·N·K per batch', () => {
    expect(flopsOf('MatMul', { a: ['float32', [2, 3, 4]], b: ['float32', [4, 5]] })).toBe(2 * 2 * 3 * 5 * 4);
    expect(flopsOf('Gemm', { a: ['float32', [4, 3]], b: ['float32', [4, 5]] }, { transA: 1 })).toBe(2 * 3 * 5 * 4);
  });

  it('counts elementwise ops per output element and reductions per input element', () => {
    expect(flopsOf('Add', { a: ['float32', [2, 3]], b: ['float32', [3]] })).toBe(6);
    expect(flopsOf('ReduceSum', { a: ['float32', [2, 3, 4]] }, { keepdims: 0 })).toBe(24);
  });

  it('counts pooling as output elements × kernel', () => {
    expect(flopsOf('MaxPool', { x: ['float32', [1, 1, 4, 4]] }, { kernel_shape: [2, 2], strides: [2, 2] })).toBe(4 * 4);
  });

  it('counts LSTM per step, gate and direction', () => {
    const n = flopsOf('LSTM', { x: ['float32', [5, 2, 10]], w: ['float32', [1, 80, 10]], r: ['float32', [1, 80, 20]] }, { hidden_size: 20 });
    expect(n).toBe(2 * 5 * 1 * 2 * 80 * (10 + 20));
  });

  it('is 0 for data movement and for unknown shapes', () => {
    expect(flopsOf('Transpose', { a: ['float32', [2, 3]] })).toBe(0);
    expect(flopsOf('Relu', { a: ['float32', ['N', 3]] })).toBe(0);
    expect(flopsOf('MatMul', { a: ['float32', undefined], b: ['float32', [4, 5]] })).toBe(0);
  });
});
