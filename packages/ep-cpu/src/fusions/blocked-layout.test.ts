/**
 * The blocked-layout pass on hand-built graphs: each model runs at 'disabled' (plain NCHW, no
 * fusions) and at 'all' (channel-blocked regions) and must agree; the optimized graph must hold the
 * blocked ops, with reorders only where NCHW is needed. Only with the oneDNN addon (the pass and its
 * ops exist only then).
 */
import { describe, expect, it } from 'vitest';
import { InferenceSession, Tensor } from '@switchyard/core';
import { buildModel, hostTestProvider } from '@switchyard/core/testing';
import { CpuExecutionProvider } from '../cpu-provider.js';
import { compareLevels, convWeights, scalar, tensor } from './test-models.test-util.js';

const hasAddon = new CpuExecutionProvider().nativeUnavailable === undefined;
const CONV = 'com.switchyard::BlockedConv';
const FUSED = 'com.switchyard::FusedElementwise';
const POOL = 'com.switchyard::BlockedPool';
const FROM = 'com.switchyard::ReorderFromBlocked';
const TOL = 1e-4;


/**
 * x [1,3,16,16] → conv1 (3→20) → Relu = r1 (a graph output in the middle of the region)
 * → conv2 (20→20) + r1 + Relu (FusedConv, blocked Z) → MaxPool 2x2 = p (graph output mid-region)
 * → conv3 (20→16) + Relu = r3, conv4 (20→16, 3x3) + Relu = r4; s = r3 + r4 (a standalone blocked Add)
 * → Concat(r3, s) [1,32,8,8] → Clip(0.5, 6) (maps 0 to 0.5; C = 32 has no padding lanes)
 * → conv5 (32→1000) → GlobalAveragePool → Flatten = y.
 */
function network(batch: number | string = 1) {
  return () =>
    buildModel({
      inputs: [['x', 'float32', [batch, 3, 16, 16]]],
      outputs: [['y', 'float32'], ['r1', 'float32'], ['p', 'float32']],
      initializers: {
        w1: convWeights([20, 3, 3, 3], 1), b1: tensor([20], 2, -0.1, 0.1),
        w2: convWeights([20, 20, 3, 3], 3),
        w3: convWeights([16, 20, 1, 1], 4), b3: tensor([16], 5, -0.1, 0.1),
        w4: convWeights([16, 20, 3, 3], 6),
        w5: convWeights([1000, 32, 1, 1], 7), b5: tensor([1000], 8, -0.1, 0.1),
        lo: scalar(0.5), hi: scalar(6),
      },
      nodes: [
        { op: 'Conv', inputs: ['x', 'w1', 'b1'], outputs: ['c1'], attributes: { pads: [1, 1, 1, 1] } },
        { op: 'Relu', inputs: ['c1'], outputs: ['r1'] },
        { op: 'Conv', inputs: ['r1', 'w2'], outputs: ['c2'], attributes: { pads: [1, 1, 1, 1] } },
        { op: 'Add', inputs: ['c2', 'r1'], outputs: ['a2'] },
        { op: 'Relu', inputs: ['a2'], outputs: ['r2'] },
        { op: 'MaxPool', inputs: ['r2'], outputs: ['p'], attributes: { kernel_shape: [2, 2], strides: [2, 2] } },
        { op: 'Conv', inputs: ['p', 'w3', 'b3'], outputs: ['c3'] },
        { op: 'Relu', inputs: ['c3'], outputs: ['r3'] },
        { op: 'Conv', inputs: ['p', 'w4'], outputs: ['c4'], attributes: { pads: [1, 1, 1, 1] } },
        { op: 'Relu', inputs: ['c4'], outputs: ['r4'] },
        { op: 'Add', inputs: ['r3', 'r4'], outputs: ['s'] },
        { op: 'Concat', inputs: ['r3', 's'], outputs: ['cat'], attributes: { axis: 1 } },
        { op: 'Clip', inputs: ['cat', 'lo', 'hi'], outputs: ['clip'] },
        { op: 'Conv', inputs: ['clip', 'w5', 'b5'], outputs: ['c5'] },
        { op: 'GlobalAveragePool', inputs: ['c5'], outputs: ['g'] },
        { op: 'Flatten', inputs: ['g'], outputs: ['y'] },
      ],
    });
}

describe.skipIf(!hasAddon)('blocked-layout pass (oneDNN addon)', () => {
  it('keeps a conv / pool / Add / Concat / Clip network blocked, reordering only for NCHW readers and graph outputs', async () => {
    const r = await compareLevels(network(), { x: tensor([1, 3, 16, 16], 11) }, { tol: TOL });
    expect(r.fired).toContain('cpu:blocked-layout');
    // Reorders only for r1 and p (graph outputs) and g (read by Flatten).
    expect(r.ops.filter((op) => op === FROM)).toHaveLength(3);
    expect(r.ops.filter((op) => op === CONV)).toHaveLength(5);
    expect(r.ops.filter((op) => op === POOL)).toHaveLength(2);
    // conv1's Relu fuses into it (r1 is its output); the standalone Add, Concat and Clip run on blocked tensors.
    expect(r.ops.filter((op) => !op.startsWith('com.switchyard::'))).toEqual(['Add', 'Concat', 'Clip', 'Flatten']);
  });

  it('works with a symbolic batch, at two batch sizes', async () => {
    for (const n of [1, 3]) {
      const r = await compareLevels(network('N'), { x: tensor([n, 3, 16, 16], 12 + n) }, { tol: TOL });
      expect(r.ops.filter((op) => op === CONV)).toHaveLength(5);
    }
  });

  it('keeps pools blocked with dynamic H and W when their attributes pool exactly at every size', async () => {
    const build = (pool2: Record<string, unknown>) => () =>
      buildModel({
        inputs: [['x', 'float32', [1, 3, 'H', 'W']]],
        outputs: [['y', 'float32']],
        initializers: { w1: convWeights([16, 3, 3, 3], 1), w2: convWeights([16, 16, 3, 3], 2), w3: convWeights([16, 16, 1, 1], 3) },
        nodes: [
          { op: 'Conv', inputs: ['x', 'w1'], outputs: ['c1'], attributes: { pads: [1, 1, 1, 1] } },
          { op: 'MaxPool', inputs: ['c1'], outputs: ['p1'], attributes: { kernel_shape: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1] } },
          { op: 'Conv', inputs: ['p1', 'w2'], outputs: ['c2'], attributes: { pads: [1, 1, 1, 1] } },
          { op: 'AveragePool', inputs: ['c2'], outputs: ['p2'], attributes: pool2 as never },
          { op: 'Conv', inputs: ['p2', 'w3'], outputs: ['y'] },
        ],
      });
    for (const [h, w] of [[13, 9], [16, 20]]) {
      const x = tensor([1, 3, h, w], 7);
      const ceil = await compareLevels(build({ kernel_shape: [2, 2], strides: [2, 2], ceil_mode: 1 }), { x }, { tol: TOL });
      expect(ceil.ops).toEqual([CONV, POOL, CONV, POOL, CONV, FROM]);
      // ceil_mode with count_include_pad would count the extra end padding in oneDNN's divisor: left in NCHW.
      const inexact = await compareLevels(build({ kernel_shape: [2, 2], strides: [2, 2], ceil_mode: 1, count_include_pad: 1 }), { x }, { tol: TOL });
      expect(inexact.ops).toContain('AveragePool');
    }
  });

  it('keeps an FPN blocked through Resize (nearest x2 from scales, bilinear to constant sizes, dynamic H/W), with 20 channels', async () => {
    const C = 20;
    const build = (h: number | string, w: number | string, mode: 'nearest' | 'linear') => () =>
      buildModel({
        inputs: [['x', 'float32', [1, 3, h, w]]],
        outputs: [['y', 'float32']],
        initializers: {
          w1: convWeights([C, 3, 3, 3], 1), w2: convWeights([C, C, 3, 3], 2), w3: convWeights([C, C, 1, 1], 3),
          roi: new Tensor('float32', new Float32Array(0), [0]), scales: new Tensor('float32', Float32Array.of(1, 1, 2, 2), [4]),
        },
        nodes: [
          { op: 'Conv', inputs: ['x', 'w1'], outputs: ['c1'], attributes: { pads: [1, 1, 1, 1] } },
          { op: 'Conv', inputs: ['c1', 'w2'], outputs: ['c2'], attributes: { pads: [1, 1, 1, 1], strides: [2, 2] } },
          { op: 'Relu', inputs: ['c2'], outputs: ['r2'] },
          { op: 'Resize', inputs: ['r2', 'roi', 'scales'], outputs: ['u'], attributes: { mode, coordinate_transformation_mode: 'half_pixel' } },
          { op: 'Add', inputs: ['c1', 'u'], outputs: ['s'] },
          { op: 'Conv', inputs: ['s', 'w3'], outputs: ['y'] },
        ],
      });
    for (const mode of ['nearest', 'linear'] as const) {
      for (const [h, w] of [[8, 12], ['H', 'W']] as const) {
        const x = tensor([1, 3, 8, 12], 5);
        const r = await compareLevels(build(h, w, mode), { x }, { tol: TOL });
        expect(r.ops, `${mode} ${h}x${w}`).toEqual([CONV, CONV, 'com.switchyard::BlockedResize', 'Add', CONV, FROM]);
      }
    }
  });

  it('keeps an ASPP-style head blocked: a pooled branch resized to the image by Shape arithmetic joins a Concat; the final upsampling to the graph output runs plain', async () => {
    // Sizes = Concat(Shape(p)[0:2], Shape(x)[2:4]): shape inference gives the resized branch [1, 32, H, W] with
    // H and W symbols of its own, so the Concat's inputs are not provably the same size (Concat checks at run time).
    const C = 32;
    const i64 = (v: number[]) => new Tensor('int64', BigInt64Array.from(v.map(BigInt)), [v.length]);
    const build = (h: number | string, w: number | string) => () =>
      buildModel({
        inputs: [['x', 'float32', [1, 3, h, w]]],
        outputs: [['y', 'float32']],
        initializers: {
          w1: convWeights([C, 3, 3, 3], 1), wa: convWeights([C, C, 1, 1], 2), wp: convWeights([C, C, 1, 1], 3), wo: convWeights([21, 2 * C, 1, 1], 4),
          i0: i64([0]), i2: i64([2]), i4: i64([4]), i8: i64([8]),
        },
        nodes: [
          { op: 'Conv', inputs: ['x', 'w1'], outputs: ['c1'], attributes: { pads: [1, 1, 1, 1] } },
          { op: 'Relu', inputs: ['c1'], outputs: ['r1'] },
          { op: 'Conv', inputs: ['r1', 'wa'], outputs: ['a'] },
          { op: 'GlobalAveragePool', inputs: ['r1'], outputs: ['g'] },
          { op: 'Conv', inputs: ['g', 'wp'], outputs: ['gp'] },
          { op: 'Relu', inputs: ['gp'], outputs: ['p'] },
          { op: 'Shape', inputs: ['p'], outputs: ['sp'] },
          { op: 'Slice', inputs: ['sp', 'i0', 'i2'], outputs: ['nc'] },
          { op: 'Shape', inputs: ['x'], outputs: ['sx'] },
          { op: 'Slice', inputs: ['sx', 'i2', 'i4'], outputs: ['hw'] },
          { op: 'Concat', inputs: ['nc', 'hw'], outputs: ['sizes'], attributes: { axis: 0 } },
          { op: 'Resize', inputs: ['p', '', '', 'sizes'], outputs: ['u'], attributes: { mode: 'linear' } },
          { op: 'Concat', inputs: ['a', 'u'], outputs: ['cat'], attributes: { axis: 1 } },
          { op: 'Conv', inputs: ['cat', 'wo'], outputs: ['logits'] },
          { op: 'Shape', inputs: ['logits'], outputs: ['sl'] },
          { op: 'Slice', inputs: ['sl', 'i0', 'i2'], outputs: ['nl'] },
          { op: 'Mul', inputs: ['hw', 'i2'], outputs: ['hw2'] },
          { op: 'Concat', inputs: ['nl', 'hw2'], outputs: ['big'], attributes: { axis: 0 } },
          { op: 'Resize', inputs: ['logits', '', '', 'big'], outputs: ['y'], attributes: { mode: 'linear' } },
        ],
      });
    for (const [h, w] of [[12, 10], ['H', 'W']] as const) {
      for (const [xh, xw] of [[12, 10], [8, 14]]) {
        if (typeof h === 'number' && (xh !== h || xw !== w)) continue;
        const r = await compareLevels(build(h, w), { x: tensor([1, 3, xh, xw], 6) }, { tol: TOL });
        const count = (op: string) => r.ops.filter((o) => o === op).length;
        expect(count('com.switchyard::BlockedResize'), `${h}x${w}`).toBe(1);
        expect(count('Resize'), `${h}x${w}`).toBe(1); // the last one, to the graph output
        // One reorder: logits, for the plain final Resize; none around the Concat. (p's Shape reads
        // [1, C, 1, 1], static even with dynamic H/W, so shape folding replaces it and p needs no plain copy.)
        expect(count(FROM), `${h}x${w}`).toBe(1);
        expect(r.ops.filter((o) => o === 'Shape').length, `${h}x${w}`).toBe(typeof h === 'number' ? 0 : 1); // dynamic: only Shape(x), for H and W
      }
    }
  });

  it('keeps a DB-style head blocked: ConvTranspose (k2 s2, k4 s2 p1, grouped) with BN folded and Relu as its post-op, dynamic H/W', async () => {
    const build = (h: number | string, w: number | string, attributes: Record<string, unknown>, group = 1, C = 20) => () =>
      buildModel({
        inputs: [['x', 'float32', [1, 3, h, w]]],
        outputs: [['y', 'float32']],
        initializers: {
          w1: convWeights([C, 3, 3, 3], 1),
          wt: convWeights([C, C / group, (attributes.kernel_shape as number[])[0], (attributes.kernel_shape as number[])[1]], 2), bt: tensor([C], 3),
          s: tensor([C], 4, 0.5, 1.5), o: tensor([C], 5), m: tensor([C], 6), v: tensor([C], 7, 0.5, 2),
          w3: convWeights([8, C, 1, 1], 8),
        },
        nodes: [
          { op: 'Conv', inputs: ['x', 'w1'], outputs: ['c1'], attributes: { pads: [1, 1, 1, 1] } },
          { op: 'ConvTranspose', inputs: ['c1', 'wt', 'bt'], outputs: ['t'], attributes: { ...attributes, group } as never },
          { op: 'BatchNormalization', inputs: ['t', 's', 'o', 'm', 'v'], outputs: ['n'] },
          { op: 'Relu', inputs: ['n'], outputs: ['r'] },
          { op: 'Conv', inputs: ['r', 'w3'], outputs: ['y'] },
        ],
      });
    // k2 s2 with whole channel blocks (32 on 8- and 16-blocks): its depth-to-space path works on blocked Y.
    const variants: Array<[Record<string, unknown>, number, number]> = [
      [{ kernel_shape: [2, 2], strides: [2, 2] }, 1, 32],
      [{ kernel_shape: [4, 4], strides: [2, 2], pads: [1, 1, 1, 1] }, 1, 20],
      [{ kernel_shape: [3, 3], strides: [2, 2], pads: [1, 1, 1, 1], output_padding: [1, 1] }, 2, 20],
    ];
    for (const [attributes, group, C] of variants) {
      for (const [h, w] of [[6, 9], ['H', 'W']] as const) {
        const r = await compareLevels(build(h, w, attributes, group, C), { x: tensor([1, 3, 6, 9], 9) }, { tol: TOL });
        const label = `${JSON.stringify(attributes)} group ${group} ${h}x${w}`;
        expect(r.ops, label).toEqual([CONV, 'com.switchyard::BlockedConvTranspose', CONV, FROM]);
        expect(r.activations[1], label).toBe('Relu');
      }
    }
      // k2 s2 with 20 output channels (not whole blocks) stays plain: its depth-to-space path needs whole
    // blocks on blocked Y, and oneDNN's blocked deconvolution is several times slower than the plain path.
    const plain = await compareLevels(build(6, 9, { kernel_shape: [2, 2], strides: [2, 2] }), { x: tensor([1, 3, 6, 9], 9) }, { tol: TOL });
    expect(plain.ops).toContain('ConvTranspose');
    expect(plain.ops).not.toContain('com.switchyard::BlockedConvTranspose');
  });

  it('keeps a C2f-style split blocked: channel Slices on block boundaries read whole blocks; an unaligned split reorders first', async () => {
    const i64 = (v: number[]) => new Tensor('int64', BigInt64Array.from(v.map(BigInt)), [v.length]);
    // c [1,32,12,12] split in halves (ends -16 and past the end), the second half through a 3x3 conv,
    // all three joined by a Concat [48] and a 1x1 conv: one region, a reorder only for the graph output.
    // Then the same with a split at 12 channels (not a block boundary for 8- or 16-channel blocks).
    const split = (at: number) => () =>
      buildModel({
        inputs: [['x', 'float32', [1, 3, 12, 12]]],
        outputs: [['y', 'float32']],
        initializers: {
          w1: convWeights([32, 3, 3, 3], 31), b1: tensor([32], 32, -0.1, 0.1),
          w2: convWeights([32 - at, 32 - at, 3, 3], 33),
          w3: convWeights([8, 64 - at, 1, 1], 34),
          zero: i64([0]), mid: i64([at - 32]), at: i64([at]), big: i64([2 ** 62]), axis: i64([1]),
        },
        nodes: [
          { op: 'Conv', inputs: ['x', 'w1', 'b1'], outputs: ['c1'], attributes: { pads: [1, 1, 1, 1] } },
          { op: 'Relu', inputs: ['c1'], outputs: ['c'] },
          { op: 'Slice', inputs: ['c', 'zero', 'mid', 'axis'], outputs: ['a'] },
          { op: 'Slice', inputs: ['c', 'at', 'big', 'axis'], outputs: ['b'] },
          { op: 'Conv', inputs: ['b', 'w2'], outputs: ['d1'], attributes: { pads: [1, 1, 1, 1] } },
          { op: 'Relu', inputs: ['d1'], outputs: ['d'] },
          { op: 'Concat', inputs: ['a', 'b', 'd'], outputs: ['cat'], attributes: { axis: 1 } },
          { op: 'Conv', inputs: ['cat', 'w3'], outputs: ['y'] },
        ],
      });
    const aligned = await compareLevels(split(16), { x: tensor([1, 3, 12, 12], 35) }, { tol: TOL });
    expect(aligned.ops.filter((op) => op === CONV)).toHaveLength(3);
    expect(aligned.ops.filter((op) => op === FROM)).toHaveLength(1);
    expect(aligned.ops.filter((op) => !op.startsWith('com.switchyard::'))).toEqual(['Slice', 'Slice', 'Concat']);
    const unaligned = await compareLevels(split(12), { x: tensor([1, 3, 12, 12], 36) }, { tol: TOL });
    // c is reordered for the Slices, which (like the Concat after them) run plain.
    expect(unaligned.ops.filter((op) => op === FROM).length).toBeGreaterThanOrEqual(2);
  });

  it('keeps a channel Split on block boundaries blocked: sizes as an input (opset 17), num_outputs (opset 18), an attribute (opset 11)', async () => {
    const i64 = (v: number[]) => new Tensor('int64', BigInt64Array.from(v.map(BigInt)), [v.length]);
    // c [1,48,10,10] split 16 / 32 (input), in three equal parts (num_outputs 3) or 16 / 32 (attribute);
    // every part through its own 1x1 conv, the results joined: no reorder but the graph output's.
    const model = (opset: number) => () => {
      const parts = opset === 18 ? [16, 16, 16] : [16, 32];
      const split: { extra?: string[]; attributes: Record<string, number | number[]> } =
        opset === 18 ? { attributes: { axis: 1, num_outputs: 3 } } : opset >= 13 ? { extra: ['sizes'], attributes: { axis: 1 } } : { attributes: { axis: 1, split: parts } };
      return buildModel({
        opset,
        inputs: [['x', 'float32', [1, 3, 10, 10]]],
        outputs: [['y', 'float32']],
        initializers: {
          w1: convWeights([48, 3, 3, 3], 41),
          sizes: i64(parts),
          ...Object.fromEntries(parts.map((c, i) => [`w${i + 2}`, convWeights([16, c, 1, 1], 42 + i)])),
        },
        nodes: [
          { op: 'Conv', inputs: ['x', 'w1'], outputs: ['c'], attributes: { pads: [1, 1, 1, 1] } },
          { op: 'Split', inputs: ['c', ...(split.extra ?? [])], outputs: parts.map((_, i) => `p${i}`), attributes: split.attributes },
          ...parts.map((_, i) => ({ op: 'Conv', inputs: [`p${i}`, `w${i + 2}`], outputs: [`q${i}`] })),
          { op: 'Concat', inputs: parts.map((_, i) => `q${i}`), outputs: ['y'], attributes: { axis: 1 } },
        ],
      });
    };
    for (const opset of [17, 18, 11]) {
      const r = await compareLevels(model(opset), { x: tensor([1, 3, 10, 10], 40 + opset) }, { tol: TOL });
      expect(r.ops.filter((op) => op === FROM), `opset ${opset}`).toHaveLength(1);
      // The Concat may fold into the convs before it (blocked-conv-concat fusion); the Split stays, on blocks.
      expect(r.ops.filter((op) => !op.startsWith('com.switchyard::') && op !== 'Concat'), `opset ${opset}`).toEqual(['Split']);
    }
  });

  it('does not rewrite when channel counts are unknown (fully dynamic input)', async () => {
    const build = () =>
      buildModel({
        inputs: [['x', 'float32', ['N', 'C', 'H', 'W']]],
        outputs: [['y', 'float32']],
        initializers: { w1: convWeights([8, 4, 3, 3], 1), w2: convWeights([8, 8, 3, 3], 2) },
        nodes: [
          { op: 'Conv', inputs: ['x', 'w1'], outputs: ['c1'], attributes: { pads: [1, 1, 1, 1] } },
          { op: 'Relu', inputs: ['c1'], outputs: ['r1'] },
          { op: 'MaxPool', inputs: ['r1'], outputs: ['p'], attributes: { kernel_shape: [2, 2] } },
          { op: 'Conv', inputs: ['p', 'w2'], outputs: ['y'] },
        ],
      });
    const r = await compareLevels(build, { x: tensor([1, 4, 9, 9], 3) }, { tol: TOL });
    expect(r.fired).not.toContain('cpu:blocked-layout');
    expect(r.ops.some((op) => op.startsWith('com.switchyard::'))).toBe(false);
  });

  it('keeps a Clip that maps 0 elsewhere blocked on a padded channel count (20): padding lanes stay finite', async () => {
    const build = () =>
      buildModel({
        inputs: [['x', 'float32', [1, 3, 8, 8]]],
        outputs: [['y', 'float32'], ['q', 'float32']],
        initializers: { w1: convWeights([20, 3, 3, 3], 1), w2: convWeights([20, 20, 1, 1], 2), lo: scalar(0.5), hi: scalar(6), zero: scalar(0) },
        nodes: [
          { op: 'Conv', inputs: ['x', 'w1'], outputs: ['c1'], attributes: { pads: [1, 1, 1, 1] } },
          // c1 is read twice, so these run as nodes, not as conv1's post-op. The second Clip writes 0.5
          // into conv1's padding lanes (lanes 20..23 of the second block), which conv2's zero-padded
          // weights must ignore.
          { op: 'Clip', inputs: ['c1', 'zero', 'hi'], outputs: ['k1'] },
          { op: 'Relu', inputs: ['c1'], outputs: ['q'] },
          { op: 'Clip', inputs: ['k1', 'lo', 'hi'], outputs: ['k2'] },
          { op: 'Conv', inputs: ['k2', 'w2'], outputs: ['y'] },
        ],
      });
    const r = await compareLevels(build, { x: tensor([1, 3, 8, 8], 5, -2, 2) }, { tol: TOL });
    // The two Clips then run as one elementwise pass on the blocked tensors (the elementwise fusion, last).
    expect(r.ops).toEqual([CONV, 'Relu', FROM, FUSED, CONV, FROM]);
  });

  it('keeps an SE block blocked: pooled gates broadcast over H and W, per-channel constants get blocked copies', async () => {
    // 20 channels: padded at either block, so padding lanes meet every op here.
    const C = 20;
    const build = () =>
      buildModel({
        inputs: [['x', 'float32', [1, 3, 10, 10]]],
        outputs: [['y', 'float32']],
        initializers: {
          w1: convWeights([C, 3, 3, 3], 1), wr: convWeights([8, C, 1, 1], 2), br: tensor([8], 3), we: convWeights([C, 8, 1, 1], 4), be: tensor([C], 5),
          scale: tensor([C, 1, 1], 6, 0.5, 1.5), shift: tensor([1, C, 1, 1], 7), w2: convWeights([C, C, 1, 1], 8), three: scalar(3),
        },
        nodes: [
          { op: 'Conv', inputs: ['x', 'w1'], outputs: ['c1'], attributes: { pads: [1, 1, 1, 1] } },
          { op: 'GlobalAveragePool', inputs: ['c1'], outputs: ['g'] },
          { op: 'Conv', inputs: ['g', 'wr', 'br'], outputs: ['r'] },
          { op: 'Relu', inputs: ['r'], outputs: ['rr'] },
          { op: 'Conv', inputs: ['rr', 'we', 'be'], outputs: ['e'] },
          { op: 'HardSigmoid', inputs: ['e'], outputs: ['s'] },
          { op: 'Mul', inputs: ['c1', 's'], outputs: ['m'] },
          { op: 'Mul', inputs: ['m', 'scale'], outputs: ['ms'] },
          { op: 'Add', inputs: ['shift', 'ms'], outputs: ['a'] },
          { op: 'Sub', inputs: ['a', 'three'], outputs: ['d'] },
          { op: 'Conv', inputs: ['d', 'w2'], outputs: ['y'] },
        ],
      });
    const r = await compareLevels(build, { x: tensor([1, 3, 10, 10], 9, -2, 2) }, { tol: TOL });
    // The gate's convs fuse their activations; everything from conv1 to the last conv stays blocked.
    // ... and the gate's Mul, the affine and the Sub run as one elementwise pass (the elementwise fusion, last).
    expect(r.ops).toEqual([CONV, POOL, CONV, CONV, FUSED, CONV, FROM]);
  });

  it('runs a Div blocked only when the channels have no padding lanes (x / 0 there would be infinite)', async () => {
    const build = (c: number) => () =>
      buildModel({
        inputs: [['x', 'float32', [1, 3, 6, 6]]],
        outputs: [['y', 'float32']],
        initializers: { w1: convWeights([c, 3, 3, 3], 1), w2: convWeights([c, c, 3, 3], 2), w3: convWeights([c, c, 1, 1], 3), eps: scalar(0.5) },
        nodes: [
          { op: 'Conv', inputs: ['x', 'w1'], outputs: ['c1'], attributes: { pads: [1, 1, 1, 1] } },
          { op: 'Conv', inputs: ['c1', 'w2'], outputs: ['c2'], attributes: { pads: [1, 1, 1, 1] } },
          { op: 'Abs', inputs: ['c2'], outputs: ['n'] },
          { op: 'Add', inputs: ['n', 'eps'], outputs: ['den'] },
          { op: 'Div', inputs: ['c1', 'den'], outputs: ['q'] },
          { op: 'Conv', inputs: ['q', 'w3'], outputs: ['y'] },
        ],
      });
    const whole = await compareLevels(build(16), { x: tensor([1, 3, 6, 6], 4) }, { tol: TOL });
    expect(whole.ops).toEqual([CONV, CONV, FUSED, CONV, FROM]); // Abs, Add, Div: one elementwise pass
    const padded = await compareLevels(build(20), { x: tensor([1, 3, 6, 6], 4) }, { tol: TOL });
    expect(padded.ops).toContain('Div');
    expect(padded.ops.indexOf('Div')).toBeGreaterThan(padded.ops.indexOf(FROM));
  });

  it('does not run an Add that broadcasts on blocked values', async () => {
    const build = () =>
      buildModel({
        inputs: [['x', 'float32', [1, 8, 6, 6]], ['bias', 'float32', [1, 8, 1, 1]]],
        outputs: [['y', 'float32']],
        initializers: { w1: convWeights([8, 8, 3, 3], 1), w2: convWeights([8, 8, 3, 3], 2) },
        nodes: [
          { op: 'Conv', inputs: ['x', 'w1'], outputs: ['c1'], attributes: { pads: [1, 1, 1, 1] } },
          { op: 'Relu', inputs: ['c1'], outputs: ['r1'] },
          { op: 'Conv', inputs: ['r1', 'w2'], outputs: ['c2'], attributes: { pads: [1, 1, 1, 1] } },
          { op: 'Relu', inputs: ['c2'], outputs: ['r2'] },
          { op: 'Add', inputs: ['r2', 'bias'], outputs: ['y'] },
        ],
      });
    const r = await compareLevels(build, { x: tensor([1, 8, 6, 6], 6), bias: tensor([1, 8, 1, 1], 7) }, { tol: TOL });
    expect(r.ops).toEqual([CONV, CONV, FROM, 'Add']);
  });

  it('leaves nodes an earlier EP takes in NCHW, with a reorder before them', async () => {
    const model = () =>
      buildModel({
        inputs: [['x', 'float32', [1, 8, 6, 6]]],
        outputs: [['y', 'float32']],
        initializers: { w1: convWeights([8, 8, 3, 3], 1), w2: convWeights([8, 8, 3, 3], 2) },
        nodes: [
          { op: 'Conv', inputs: ['x', 'w1'], outputs: ['c1'], attributes: { pads: [1, 1, 1, 1] } },
          { op: 'Conv', inputs: ['c1', 'w2'], outputs: ['c2'], attributes: { pads: [1, 1, 1, 1] } },
          { op: 'Relu', inputs: ['c2'], outputs: ['l'] },
          { op: 'Sigmoid', inputs: ['l'], outputs: ['y'] },
        ],
      });
    const first = hostTestProvider('first', ['Relu']);
    const s = await InferenceSession.fromModel(model(), { executionProviders: [first, 'cpu'] });
    const plain = await InferenceSession.fromModel(model(), { executionProviders: ['cpu'], graphOptimizationLevel: 'disabled' });
    try {
      expect(s.placement.nodes.map((n) => `${n.opType}:${n.ep}`)).toEqual(['BlockedConv:cpu', 'BlockedConv:cpu', 'ReorderFromBlocked:cpu', 'Relu:first', 'Sigmoid:cpu']);
      const x = tensor([1, 8, 6, 6], 9);
      const [a, b] = [(await s.run({ x })).y as Tensor, (await plain.run({ x })).y as Tensor];
      (a.data as Float32Array).forEach((v, i) => expect(v).toBeCloseTo((b.data as Float32Array)[i], 5));
    } finally {
      await s.release();
      await plain.release();
    }
  });
});
