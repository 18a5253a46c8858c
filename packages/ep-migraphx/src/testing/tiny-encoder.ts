/**
 * Test fixture: a BERT-style encoder small enough for unit tests (one layer, hidden 16, 2 heads,
 * sequence 8), built in code with seeded weights: embeddings (Gather), LayerNormalization, attention
 * with an additive mask, erf-GELU feed-forward, residuals, and a tanh pooler, like the exported BERTs.
 */
import { Tensor, type Model } from '@switchyard/core';
import { buildModel, type NodeSpec } from '@switchyard/core/testing';

export const ENCODER = { vocab: 50, seq: 8, hidden: 16, heads: 2, ffn: 32 } as const;

/** A seeded generator (LCG), so fixtures are the same on every run. */
export function seededRandom(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export function tinyEncoder(batch: number | string = 1): Model {
  const { vocab, seq, hidden, heads, ffn } = ENCODER;
  const head = hidden / heads;
  const random = seededRandom(7);
  const weights = (dims: number[], scale = 0.3) => new Tensor('float32', Float32Array.from({ length: dims.reduce((a, b) => a * b, 1) }, () => (random() - 0.5) * 2 * scale), dims);
  const ones = (n: number) => new Tensor('float32', new Float32Array(n).fill(1), [n]);
  const i64 = (values: number[]) => new Tensor('int64', BigInt64Array.from(values.map(BigInt)), [values.length]);
  const scalar = (v: number) => new Tensor('float32', Float32Array.of(v), []);
  const initializers: Record<string, Tensor> = {
    word_emb: weights([vocab, hidden], 1),
    pos_emb: weights([seq, hidden], 0.5),
    ln0_g: ones(hidden), ln0_b: weights([hidden], 0.1),
    wq: weights([hidden, hidden]), bq: weights([hidden], 0.1),
    wk: weights([hidden, hidden]), bk: weights([hidden], 0.1),
    wv: weights([hidden, hidden]), bv: weights([hidden], 0.1),
    wo: weights([hidden, hidden]), bo: weights([hidden], 0.1),
    ln1_g: ones(hidden), ln1_b: weights([hidden], 0.1),
    w1: weights([hidden, ffn]), b1: weights([ffn], 0.1),
    w2: weights([ffn, hidden]), b2: weights([hidden], 0.1),
    ln2_g: ones(hidden), ln2_b: weights([hidden], 0.1),
    wp: weights([hidden, hidden]), bp: weights([hidden], 0.1),
    heads_shape: i64([0, 0, heads, head]),
    merged_shape: i64([0, 0, hidden]),
    mask_axes: i64([1, 2]),
    scale: scalar(Math.sqrt(head)),
    one: scalar(1),
    neg_big: scalar(-10000),
    half: scalar(0.5),
    sqrt2: scalar(Math.SQRT2),
    first: new Tensor('int64', BigInt64Array.of(0n), []),
  };
  const n = (op: string, inputs: string[], output: string, attributes?: NodeSpec['attributes']): NodeSpec => ({ op, inputs, outputs: [output], name: output, attributes });
  const split = (x: string, w: string, b: string, out: string, perm: number[]): NodeSpec[] => [
    n('MatMul', [x, w], `${out}_mm`),
    n('Add', [`${out}_mm`, b], `${out}_b`),
    n('Reshape', [`${out}_b`, 'heads_shape'], `${out}_r`),
    n('Transpose', [`${out}_r`], out, { perm }),
  ];
  const nodes: NodeSpec[] = [
    n('Gather', ['word_emb', 'input_ids'], 'tok'),
    n('Add', ['tok', 'pos_emb'], 'emb'),
    n('LayerNormalization', ['emb', 'ln0_g', 'ln0_b'], 'h0', { axis: -1, epsilon: { float: 1e-5 } }),
    // Additive mask: 0 where attended, -10000 where padded, shaped [batch, 1, 1, seq].
    n('Cast', ['attention_mask'], 'mask_f', { to: 1 }),
    n('Sub', ['one', 'mask_f'], 'mask_inv'),
    n('Mul', ['mask_inv', 'neg_big'], 'mask_add'),
    n('Unsqueeze', ['mask_add', 'mask_axes'], 'mask_4d'),
    ...split('h0', 'wq', 'bq', 'q', [0, 2, 1, 3]),
    ...split('h0', 'wk', 'bk', 'kt', [0, 2, 3, 1]),
    ...split('h0', 'wv', 'bv', 'v', [0, 2, 1, 3]),
    n('MatMul', ['q', 'kt'], 'scores'),
    n('Div', ['scores', 'scale'], 'scaled'),
    n('Add', ['scaled', 'mask_4d'], 'masked'),
    n('Softmax', ['masked'], 'probs', { axis: -1 }),
    n('MatMul', ['probs', 'v'], 'ctx'),
    n('Transpose', ['ctx'], 'ctx_t', { perm: [0, 2, 1, 3] }),
    n('Reshape', ['ctx_t', 'merged_shape'], 'ctx_m'),
    n('MatMul', ['ctx_m', 'wo'], 'attn_mm'),
    n('Add', ['attn_mm', 'bo'], 'attn'),
    n('Add', ['attn', 'h0'], 'res1'),
    n('LayerNormalization', ['res1', 'ln1_g', 'ln1_b'], 'h1', { axis: -1, epsilon: { float: 1e-5 } }),
    n('MatMul', ['h1', 'w1'], 'ff1_mm'),
    n('Add', ['ff1_mm', 'b1'], 'ff1'),
    // GELU(x) = x · ½ · (1 + erf(x / √2))
    n('Div', ['ff1', 'sqrt2'], 'gelu_d'),
    n('Erf', ['gelu_d'], 'gelu_e'),
    n('Add', ['gelu_e', 'one'], 'gelu_p'),
    n('Mul', ['ff1', 'gelu_p'], 'gelu_m'),
    n('Mul', ['gelu_m', 'half'], 'gelu'),
    n('MatMul', ['gelu', 'w2'], 'ff2_mm'),
    n('Add', ['ff2_mm', 'b2'], 'ff2'),
    n('Add', ['ff2', 'h1'], 'res2'),
    n('LayerNormalization', ['res2', 'ln2_g', 'ln2_b'], 'last_hidden_state', { axis: -1, epsilon: { float: 1e-5 } }),
    n('Gather', ['last_hidden_state', 'first'], 'cls', { axis: 1 }),
    n('MatMul', ['cls', 'wp'], 'pool_mm'),
    n('Add', ['pool_mm', 'bp'], 'pool_b'),
    n('Tanh', ['pool_b'], 'pooler_output'),
  ];
  return buildModel({
    inputs: [['input_ids', 'int64', [batch, seq]], ['attention_mask', 'int64', [batch, seq]]],
    outputs: [['last_hidden_state', 'float32', [batch, seq, hidden]], ['pooler_output', 'float32', [batch, hidden]]],
    nodes,
    initializers,
    opset: 17,
  });
}

/** Token ids and a mask with the last `padded` positions masked out, for `batch` sequences. */
export function encoderFeeds(batch: number, padded = 2, seed = 3): { input_ids: Tensor; attention_mask: Tensor } {
  const { vocab, seq } = ENCODER;
  const random = seededRandom(seed);
  const ids = BigInt64Array.from({ length: batch * seq }, () => BigInt(Math.floor(random() * vocab)));
  const mask = BigInt64Array.from({ length: batch * seq }, (_, i) => (i % seq < seq - padded ? 1n : 0n));
  return { input_ids: new Tensor('int64', ids, [batch, seq]), attention_mask: new Tensor('int64', mask, [batch, seq]) };
}
