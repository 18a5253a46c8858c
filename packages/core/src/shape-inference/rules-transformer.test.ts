/** Shape rules of the opset 23–28 transformer ops, on hand-built single-node graphs. */
import { describe, expect, it } from 'vitest';
import type { Dim } from '../ir/graph.js';
import type { DataType } from '../tensor/data-type.js';
import type { PlainAttribute } from '../testing/kernel-harness.js';
import { addNode, makeGraph, shapeOf, typeOf } from './build-graph.test-helper.js';
import { inferShapes } from './infer.js';

function one(op: string, opset: number, inputs: Record<string, [DataType, Dim[] | undefined]>, order: string[], outputs: number, attrs?: Record<string, PlainAttribute>) {
  const g = makeGraph({ opset, inputs });
  addNode(g, op, order, Array.from({ length: outputs }, (_, i) => `y${i}`), attrs);
  inferShapes(g);
  return g;
}

describe('transformer ops', () => {
  it('Attention, 3-D GQA with a cache: Y packed, present grown by the past, qk over all keys', () => {
    const g = one(
      'Attention',
      23,
      { q: ['float16', ['B', 5, 32]], k: ['float16', ['B', 5, 16]], v: ['float16', ['B', 5, 10]], pk: ['float16', ['B', 2, 3, 8]], pv: ['float16', ['B', 2, 3, 5]] },
      ['q', 'k', 'v', '', 'pk', 'pv'],
      4,
      { q_num_heads: 4, kv_num_heads: 2 },
    );
    expect(typeOf(g, 'y0')).toEqual({ kind: 'tensor', elemType: 'float16', shape: ['B', 5, 20] });
    expect(shapeOf(g, 'y1')).toEqual(['B', 2, 8, 8]);
    expect(shapeOf(g, 'y2')).toEqual(['B', 2, 8, 5]);
    expect(shapeOf(g, 'y3')).toEqual(['B', 4, 5, 8]);
  });

  it('Attention 4-D; RMSNormalization takes Scale’s type; CausalConvWithState carries k − 1; LinearAttention unpacks heads', () => {
    const a = one('Attention', 24, { q: ['float32', [1, 8, 'S', 16]], k: ['float32', [1, 2, 'T', 16]], v: ['float32', [1, 2, 'T', 12]] }, ['q', 'k', 'v'], 1);
    expect(shapeOf(a, 'y0')).toEqual([1, 8, 'S', 12]);
    const r = one('RMSNormalization', 23, { x: ['float16', [2, 7]], s: ['float32', [7]] }, ['x', 's'], 1);
    expect(typeOf(r, 'y0')).toEqual({ kind: 'tensor', elemType: 'float32', shape: [2, 7] });
    const c = one('CausalConvWithState', 27, { x: ['float32', ['B', 6, 9]], w: ['float32', [6, 1, 4]] }, ['x', 'w'], 2);
    expect(shapeOf(c, 'y1')).toEqual(['B', 6, 3]);
    const l = one('LinearAttention', 27, { q: ['float32', [2, 3, 32]], k: ['float32', [2, 3, 16]], v: ['float32', [2, 3, 24]] }, ['q', 'k', 'v'], 2, {
      q_num_heads: 4,
      kv_num_heads: 2,
    });
    expect(shapeOf(l, 'y0')).toEqual([2, 3, 48]);
    expect(shapeOf(l, 'y1')).toEqual([2, 2, 8, 12]);
  });
});
