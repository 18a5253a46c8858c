import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AttributeReader, KernelRegistry, Tensor, inferShapes, loadModel, type Graph } from '@switchyard/core';
import { buildModel, type ModelSpec } from '@switchyard/core/testing';
import { rocmCapability, rocmKernelDefs } from '../capability.js';
import { ROCM_KERNEL_TABLE } from '../kernel-table.js';
import { encodeStep } from './step-encoders.js';

function graphOf(spec: ModelSpec): Graph {
  const g = buildModel(spec).graph;
  inferShapes(g);
  return g;
}

function decisionsOf(graph: Graph): Record<string, string> {
  const registry = new KernelRegistry();
  for (const def of rocmKernelDefs(ROCM_KERNEL_TABLE)) registry.register(def);
  const { capabilities, declined } = rocmCapability(graph, { lookup: registry.lookupFor('rocm'), assigned: new Set() });
  const out: Record<string, string> = {};
  for (const c of capabilities) for (const n of c.nodes) out[n.name] = 'gpu';
  for (const [n, r] of declined) out[n.name] = `${r.kind}: ${r.message}`;
  return out;
}

type Shape = Array<number | string>;
interface AttentionCase {
  q: Shape;
  k: Shape;
  v: Shape;
  type?: 'float32' | 'float16';
  mask?: [('bool' | 'float32' | 'float16'), Shape];
  past?: boolean;
  outputs?: number;
  attributes?: Record<string, number>;
}

function attentionSpec(c: AttentionCase): ModelSpec {
  const t = c.type ?? 'float32';
  const inputs: ModelSpec['inputs'] = [['q', t, c.q], ['k', t, c.k], ['v', t, c.v]];
  const nodeInputs = ['q', 'k', 'v'];
  if (c.mask) {
    inputs.push(['m', c.mask[0], c.mask[1]]);
    nodeInputs.push('m');
  } else if (c.past) nodeInputs.push('');
  if (c.past) {
    inputs.push(['pk', t, [c.k[0], 2, 3, 8]], ['pv', t, [c.k[0], 2, 3, 8]]);
    nodeInputs.push('pk', 'pv');
  }
  const outs = ['y', 'pk_out', 'pv_out', 'qk'].slice(0, c.outputs ?? 1);
  return {
    opset: 23,
    inputs,
    outputs: outs.map((o) => [o, t]),
    nodes: [{ op: 'Attention', inputs: nodeInputs, outputs: outs, name: 'attn', attributes: c.attributes ?? {} }],
  };
}

const decide = (c: AttentionCase) => decisionsOf(graphOf(attentionSpec(c))).attn;

describe('ONNX Attention on rocm: what is claimed', () => {
  const cases: Array<[string, AttentionCase, string]> = [
    ['4-D', { q: [2, 4, 5, 8], k: [2, 4, 7, 8], v: [2, 4, 7, 8] }, 'gpu'],
    ['4-D, symbolic batch and lengths', { q: ['b', 4, 's', 8], k: ['b', 4, 't', 8], v: ['b', 4, 't', 8] }, 'gpu'],
    ['3-D with head counts', { q: [2, 5, 32], k: [2, 7, 16], v: [2, 7, 16], attributes: { q_num_heads: 4, kv_num_heads: 2 } }, 'gpu'],
    ['GQA, float16', { q: [1, 8, 5, 16], k: [1, 2, 5, 16], v: [1, 2, 5, 16], type: 'float16', attributes: { is_causal: 1 } }, 'gpu'],
    ['bool mask', { q: [2, 4, 5, 8], k: [2, 4, 7, 8], v: [2, 4, 7, 8], mask: ['bool', [5, 7]] }, 'gpu'],
    ['additive mask of Q type', { q: [2, 4, 5, 8], k: [2, 4, 7, 8], v: [2, 4, 7, 8], mask: ['float32', [2, 1, 5, 7]] }, 'gpu'],
    ['float16 mask with float32 Q', { q: [2, 4, 5, 8], k: [2, 4, 7, 8], v: [2, 4, 7, 8], mask: ['float16', [5, 7]] }, 'attribute: attn_mask of type float16 with float32 Q'],
    ['3-D without head counts', { q: [2, 5, 32], k: [2, 7, 32], v: [2, 7, 32] }, 'attribute: 3-D Q/K/V need positive q_num_heads'],
    ['a KV cache', { q: [1, 2, 4, 8], k: [1, 2, 4, 8], v: [1, 2, 4, 8], past: true }, 'attribute: a KV cache (past_key / past_value) is not run on rocm'],
    ['present outputs used', { q: [1, 2, 4, 8], k: [1, 2, 4, 8], v: [1, 2, 4, 8], outputs: 3 }, 'attribute: only output Y is produced on rocm'],
    ['softcap', { q: [1, 2, 4, 8], k: [1, 2, 4, 8], v: [1, 2, 4, 8], attributes: { softcap: 30.5 } }, 'attribute: softcap is not run on rocm'],
    ['V head size unlike Q', { q: [1, 2, 4, 8], k: [1, 2, 4, 8], v: [1, 2, 4, 16] }, "attribute: V's head size 16 differs from Q's 8"],
    ['head size 256', { q: [1, 2, 4, 256], k: [1, 2, 4, 256], v: [1, 2, 4, 256] }, 'attribute: head size 256 is above'],
    ['symbolic head size', { q: [1, 2, 4, 'd'], k: [1, 2, 4, 'd'], v: [1, 2, 4, 'd'] }, 'attribute: the head sizes of Q and V must be known'],
  ];
  for (const [name, c, expected] of cases) {
    it(name, () => expect(decide(c)).toContain(expected));
  }
});

describe('ONNX Attention step encoding', () => {
  const encode = (c: AttentionCase) => {
    const g = graphOf(attentionSpec(c));
    return encodeStep(g.nodes[0], g);
  };

  it('reads 4-D sizes from Q and K, defaults the scale to 1/sqrt(head size), pads the mask rank to 4', () => {
    const s = encode({ q: [2, 4, 5, 16], k: [2, 2, 7, 16], v: [2, 2, 7, 16], mask: ['bool', [5, 7]], attributes: { is_causal: 1 } });
    expect(s.op).toBe('OnnxAttention');
    expect(s.attrs).toEqual([2, 4, 2, 5, 7, 16, 0, 1, 0.25, 1, 1, 5, 7]);
    expect(s.inputs).toEqual([0, 1, 2, 3]);
  });

  it('reads 3-D sizes from the head-count attributes and keeps an explicit scale', () => {
    const s = encode({ q: [2, 5, 32], k: [2, 7, 16], v: [2, 7, 16], attributes: { q_num_heads: 4, kv_num_heads: 2, scale: 0.5 } });
    expect(s.attrs).toEqual([2, 4, 2, 5, 7, 8, 1, 0, 0.5, 0, 0, 0, 0]);
    expect(s.inputs).toEqual([0, 1, 2]);
  });

  it('refuses a mask that does not broadcast, with the shapes in the message', () => {
    expect(() => encode({ q: [2, 4, 5, 8], k: [2, 4, 7, 8], v: [2, 4, 7, 8], mask: ['bool', [3, 5, 7]] })).toThrow(/attn_mask \[3, 5, 7\] does not broadcast to \[2, 4, 5, ≤7\]/);
  });
});

describe('RMSNormalization on rocm', () => {
  const spec = (x: Shape, scale: number[], attributes: Record<string, number> = {}, scaleType: 'float32' | 'float16' = 'float32'): ModelSpec => ({
    opset: 23,
    inputs: [['x', 'float32', x]],
    outputs: [['y', scaleType]],
    initializers: { s: scaleType === 'float32' ? new Tensor('float32', new Float32Array(scale.reduce((a, b) => a * b, 1)), scale) : Tensor.zeros('float16', scale) },
    nodes: [{ op: 'RMSNormalization', inputs: ['x', 's'], outputs: ['y'], name: 'rms', attributes }],
  });
  const decideRms = (s: ModelSpec) => decisionsOf(graphOf(s)).rms;

  it('claims the last axis and spans of several axes, and encodes [rows, cols, epsilon]', () => {
    expect(decideRms(spec(['b', 6, 8], [8]))).toBe('gpu');
    expect(decideRms(spec([2, 6, 8], [6, 8], { axis: 1 }))).toBe('gpu');
    const g = graphOf(spec([2, 6, 8], [1, 6, 8], { axis: -2, epsilon: 1e-6 }));
    const s = encodeStep(g.nodes[0], g);
    expect(s).toMatchObject({ op: 'RMSNormalization', inputs: [0, 1], outputs: [0] });
    expect(s.attrs[0]).toBe(2);
    expect(s.attrs[1]).toBe(48);
    expect(s.attrs[2]).toBeCloseTo(1e-6, 12);
  });

  it('declines a scale broadcast within the row and a scale of another type', () => {
    expect(decideRms(spec([2, 6, 8], [8], { axis: 1 }))).toContain('must span the normalized dims [6, 8]');
    expect(decideRms(spec([2, 6, 8], [8], {}, 'float16'))).toContain('a Scale of another type than X');
  });
});

describe('RotaryEmbedding on rocm', () => {
  const spec = (x: Shape, cache: Shape, opts: { positions?: Shape; attributes?: Record<string, number> } = {}): ModelSpec => ({
    opset: 23,
    inputs: [['x', 'float32', x], ['cos', 'float32', cache], ['sin', 'float32', cache], ...(opts.positions ? [['pos', 'int64', opts.positions] as ModelSpec['inputs'][number]] : [])],
    outputs: [['y', 'float32']],
    nodes: [{ op: 'RotaryEmbedding', inputs: ['x', 'cos', 'sin', ...(opts.positions ? ['pos'] : [])], outputs: ['y'], name: 'rope', attributes: opts.attributes ?? {} }],
  });
  const decideRope = (s: ModelSpec) => decisionsOf(graphOf(s)).rope;

  it('claims 4-D and 3-D inputs, with and without position_ids, and encodes the sizes', () => {
    expect(decideRope(spec([2, 4, 5, 16], [32, 8], { positions: [2, 5] }))).toBe('gpu');
    expect(decideRope(spec(['b', 5, 64], ['b', 5, 4], { attributes: { num_heads: 4, rotary_embedding_dim: 8, interleaved: 1 } }))).toBe('gpu');
    const g = graphOf(spec([2, 5, 64], [1, 5, 4], { attributes: { num_heads: 4, rotary_embedding_dim: 8, interleaved: 1 } }));
    expect(encodeStep(g.nodes[0], g)).toEqual({ op: 'RotaryEmbedding', attrs: [2, 4, 5, 16, 1, 8, 1, 0, 1], inputs: [0, 1, 2], outputs: [0] });
    const h = graphOf(spec([2, 4, 5, 16], [32, 8], { positions: [1, 5] }));
    expect(encodeStep(h.nodes[0], h).attrs).toEqual([2, 4, 5, 16, 0, 16, 0, 1, 0]);
  });

  it('declines an odd or oversize rotary dim, a missing num_heads and caches of the wrong rank', () => {
    expect(decideRope(spec([2, 4, 5, 16], [32, 9], { positions: [2, 5], attributes: { rotary_embedding_dim: 18 } }))).toContain('rotary_embedding_dim 18 must be even and at most the head size 16');
    expect(decideRope(spec([2, 5, 64], [2, 5, 8]))).toContain('3-D input needs a positive num_heads');
    expect(decideRope(spec([2, 4, 5, 16], [2, 5, 8], { positions: [2, 5] }))).toContain('the caches must be 2-D with position_ids');
  });
});

describe('modern_encoder_opset23 on rocm', () => {
  it('claims every node (Attention and RMSNormalization included)', async () => {
    const path = fileURLToPath(new URL('../../../../models/modern_encoder_opset23/model.onnx', import.meta.url));
    const model = await loadModel(readFileSync(path));
    inferShapes(model.graph);
    const decisions = decisionsOf(model.graph);
    const ops = new Set(model.graph.nodes.map((n) => n.opType));
    expect(ops.has('Attention') && ops.has('RMSNormalization')).toBe(true);
    const declined = Object.entries(decisions).filter(([, d]) => d !== 'gpu');
    expect(declined).toEqual([]);
    const attn = model.graph.nodes.find((n) => n.opType === 'Attention')!;
    expect(new AttributeReader(attn).int('is_causal', 0)).toBe(0);
  });
});
