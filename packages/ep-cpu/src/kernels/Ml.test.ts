import { describe, expect, it } from 'vitest';
import { Tensor } from '@switchyard/core';
import { runKernel, type PlainAttribute } from '@switchyard/core/testing';
import { f32, i64, plain } from '../tensor-ops/test-util.js';
import { labelEncoderKernel } from './LabelEncoder.js';
import { treeEnsembleKernel } from './TreeEnsemble.js';
import { arrayFeatureExtractorKernel } from './ArrayFeatureExtractor.js';

const ML = 'ai.onnx.ml';
const str = (data: string[]) => new Tensor('string', data, [data.length]);

describe('LabelEncoder', () => {
  it('opset 1 maps strings to class indices and indices back to strings', async () => {
    const attributes = { classes_strings: ['a', 'b'], default_int64: 7, default_string: '?' };
    const [y] = await runKernel(labelEncoderKernel, [str(['b', 'z', 'a'])], { opset: 1, domain: ML, attributes });
    expect(plain(y).data).toEqual([1, 7, 0]);
    const [s] = await runKernel(labelEncoderKernel, [i64([1, 5, 0])], { opset: 1, domain: ML, attributes });
    expect(plain(s).data).toEqual(['b', '?', 'a']);
  });

  it('matches NaN float keys, lets a repeated key keep its last value, and defaults to -0', async () => {
    const attributes = { keys_floats: { floats: [NaN, 1, 1] }, values_floats: { floats: [10, 20, 30] } };
    const [y] = await runKernel(labelEncoderKernel, [f32([NaN, 1, 2], [3])], { opset: 4, domain: ML, attributes });
    expect(Array.from((y as Tensor).data as Float32Array)).toEqual([10, 30, -0]);
  });

  it('refuses two key lists, mismatched lengths, and an input of another type than the keys', async () => {
    const two = { keys_strings: ['a'], keys_int64s: [1], values_int64s: [1] };
    await expect(runKernel(labelEncoderKernel, [str(['a'])], { opset: 2, domain: ML, attributes: two })).rejects.toMatchObject({ code: 'INVALID_MODEL' });
    const uneven = { keys_strings: ['a', 'b'], values_int64s: [1] };
    await expect(runKernel(labelEncoderKernel, [str(['a'])], { opset: 2, domain: ML, attributes: uneven })).rejects.toMatchObject({ code: 'INVALID_MODEL' });
    const ok = { keys_strings: ['a'], values_int64s: [1] };
    await expect(runKernel(labelEncoderKernel, [i64([1])], { opset: 2, domain: ML, attributes: ok })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});

/** One stump on feature 0 (x ≤ 0.5 → leaf 0, else leaf 1), two targets. */
function stump(extra: Record<string, PlainAttribute> = {}): Record<string, PlainAttribute> {
  return {
    nodes_featureids: [0],
    nodes_modes: new Tensor('uint8', Uint8Array.from([0]), [1]),
    nodes_splits: f32([0.5], [1]),
    nodes_truenodeids: [0],
    nodes_falsenodeids: [1],
    nodes_trueleafs: [1],
    nodes_falseleafs: [1],
    tree_roots: [0],
    leaf_targetids: [0, 1],
    leaf_weights: f32([1, 3], [2]),
    n_targets: 2,
    ...extra,
  };
}

describe('TreeEnsemble', () => {
  it('applies the post transform per row (softmax, logistic)', async () => {
    const x = f32([0, 1], [2, 1]);
    const [s] = await runKernel(treeEnsembleKernel, [x], { opset: 5, domain: ML, attributes: stump({ post_transform: 1 }) });
    const e = Math.exp(1);
    const soft = Array.from((s as Tensor).data as Float32Array);
    expect(soft[0]).toBeCloseTo(e / (e + 1), 6);
    expect(soft[3]).toBeCloseTo(Math.exp(3) / (Math.exp(3) + 1), 6);
    const [l] = await runKernel(treeEnsembleKernel, [x], { opset: 5, domain: ML, attributes: stump({ post_transform: 2 }) });
    expect(Array.from((l as Tensor).data as Float32Array)[0]).toBeCloseTo(1 / (1 + Math.exp(-1)), 6);
  });

  it('sends NaN down the branch nodes_missing_value_tracks_true names', async () => {
    const x = f32([NaN], [1, 1]);
    const [f] = await runKernel(treeEnsembleKernel, [x], { opset: 5, domain: ML, attributes: stump() });
    const [t] = await runKernel(treeEnsembleKernel, [x], { opset: 5, domain: ML, attributes: stump({ nodes_missing_value_tracks_true: [1] }) });
    expect(plain(f).data).toEqual([0, 3]);
    expect(plain(t).data).toEqual([1, 0]);
  });

  it('refuses a cycle, a branch out of range, and too few features', async () => {
    const cyclic = stump({ nodes_falseleafs: [0], nodes_falsenodeids: [0] });
    await expect(runKernel(treeEnsembleKernel, [f32([1], [1, 1])], { opset: 5, domain: ML, attributes: cyclic })).rejects.toMatchObject({ code: 'INVALID_MODEL' });
    const outside = stump({ nodes_falsenodeids: [5] });
    await expect(runKernel(treeEnsembleKernel, [f32([1], [1, 1])], { opset: 5, domain: ML, attributes: outside })).rejects.toMatchObject({ code: 'INVALID_MODEL' });
    const wide = stump({ nodes_featureids: [3] });
    await expect(runKernel(treeEnsembleKernel, [f32([1], [1, 1])], { opset: 5, domain: ML, attributes: wide })).rejects.toMatchObject({ code: 'INVALID_SHAPE' });
  });
});

describe('ArrayFeatureExtractor', () => {
  it('gives a 1-D input one row, and refuses an index past the features', async () => {
    const [y] = await runKernel(arrayFeatureExtractorKernel, [f32([5, 6, 7], [3]), i64([2, 0])], { opset: 1, domain: ML });
    expect(plain(y)).toEqual({ dims: [1, 2], data: [7, 5] });
    await expect(runKernel(arrayFeatureExtractorKernel, [f32([5, 6, 7], [3]), i64([3])], { opset: 1, domain: ML })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
