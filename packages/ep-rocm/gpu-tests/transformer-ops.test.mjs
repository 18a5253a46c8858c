// GPU tests of the opset-23 transformer ops on rocm (plan/onnx-transformer-ops.ts; native
// OnnxAttention and RMSNormalization steps): each form the kernels serve runs on rocm and matches the
// CPU EP (the reference kernels) in float32 and float16; the forms they decline stay on the CPU EP
// with the reason in the placement and still give the CPU EP's answer; malformed step attributes are
// refused when the plan is built; and models/modern_encoder_opset23 runs with every node on rocm.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { InferenceSession, Tensor, float16BitsToFloat32, float32ToFloat16Bits } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { loaded, reference, seeded, skip } from './lib/harness.mjs';

const count = (dims) => dims.reduce((a, b) => a * b, 1);
const asFloats = (t) => (t.type === 'float16' ? Float32Array.from(t.data, float16BitsToFloat32) : Float32Array.from(t.data));

function tensorOf(type, dims, seed, scale = 1) {
  const v = seeded(count(dims), seed).map((x) => scale * x);
  return type === 'float16' ? new Tensor('float16', Uint16Array.from(v, float32ToFloat16Bits), dims) : new Tensor('float32', v, dims);
}

function maxDiff(a, b) {
  assert.equal(a.length, b.length, 'length');
  let m = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    if (!(d <= m)) m = Number.isNaN(d) ? Infinity : d;
  }
  return m;
}

/** Runs `model` on ['rocm', 'cpu'] and on ['cpu']; returns the max |diff| of each output and the placement. */
async function compare(model, feeds, options = {}) {
  const expected = await reference(model, feeds);
  const s = await InferenceSession.fromModel(model, { executionProviders: [{ name: 'rocm', ...options }, 'cpu'] });
  const diffs = {};
  for (let run = 0; run < 2; run++) {
    const out = await s.run(feeds);
    for (const name of Object.keys(expected)) diffs[name] = Math.max(diffs[name] ?? 0, maxDiff(asFloats(out[name]), asFloats(expected[name])));
  }
  const placement = s.placement;
  await s.release();
  return { diffs, placement };
}

// One Attention node: Q, K, V (and mask) as inputs.
function attentionModel({ q, k, v, type = 'float32', mask, attributes = {}, past = false }) {
  const inputs = [['q', type, q], ['k', type, k], ['v', type, v]];
  const nodeInputs = ['q', 'k', 'v'];
  if (mask) {
    inputs.push(['m', mask.type, mask.dims]);
    nodeInputs.push('m');
  } else if (past) nodeInputs.push('');
  if (past) {
    const pastDims = [k[0], k[1], 3, k[3]];
    inputs.push(['pk', type, pastDims], ['pv', type, pastDims]);
    nodeInputs.push('pk', 'pv');
  }
  const model = buildModel({ opset: 23, inputs, outputs: [['y', type]], nodes: [{ op: 'Attention', inputs: nodeInputs, outputs: ['y'], name: 'attn', attributes }] });
  const feeds = { q: tensorOf(type, q, 31, 2), k: tensorOf(type, k, 32, 2), v: tensorOf(type, v, 33) };
  if (mask) feeds.m = mask.tensor;
  if (past) Object.assign(feeds, { pk: tensorOf(type, [k[0], k[1], 3, k[3]], 34), pv: tensorOf(type, [k[0], k[1], 3, k[3]], 35) });
  return { model, feeds };
}

function boolMask(dims, keep) {
  const n = count(dims);
  return new Tensor('bool', Uint8Array.from({ length: n }, (_, i) => (keep(i) ? 1 : 0)), dims);
}

const onRocm = (placement, op) => placement.nodes.filter((n) => n.opType === op).every((n) => n.ep === 'rocm');

describe('ONNX Attention (opset 23) on rocm', { skip }, () => {
  const served = [
    ['4-D, float32', { q: [2, 4, 37, 16], k: [2, 4, 45, 16], v: [2, 4, 45, 16] }],
    ['4-D, is_causal, scale 0.3', { q: [2, 3, 40, 32], k: [2, 3, 40, 32], v: [2, 3, 40, 32], attributes: { is_causal: 1, scale: 0.3 } }],
    ['4-D causal with more keys than queries', { q: [1, 2, 5, 8], k: [1, 2, 70, 8], v: [1, 2, 70, 8], attributes: { is_causal: 1 } }],
    ['GQA 8 q heads over 2 kv heads, head size 64', { q: [2, 8, 33, 64], k: [2, 2, 33, 64], v: [2, 2, 33, 64] }],
    ['3-D packed, GQA, head size 128', { q: [2, 19, 4 * 128], k: [2, 23, 2 * 128], v: [2, 23, 2 * 128], attributes: { q_num_heads: 4, kv_num_heads: 2 } }],
    [
      'bool mask [Sq, Sk] with a fully masked row',
      { q: [2, 2, 9, 8], k: [2, 2, 12, 8], v: [2, 2, 12, 8], mask: { type: 'bool', dims: [9, 12], tensor: boolMask([9, 12], (i) => i >= 12 && (i * 7) % 5 !== 0) } },
    ],
    [
      'additive float mask [B, 1, 1, Sk], shorter than the keys',
      { q: [2, 3, 6, 16], k: [2, 3, 10, 16], v: [2, 3, 10, 16], mask: { type: 'float32', dims: [2, 1, 1, 8], tensor: tensorOf('float32', [2, 1, 1, 8], 36, 4) } },
    ],
    [
      'additive mask [B, H, Sq, Sk] with causal, 3-D',
      { q: [2, 7, 3 * 8], k: [2, 7, 3 * 8], v: [2, 7, 3 * 8], mask: { type: 'float32', dims: [2, 3, 7, 7], tensor: tensorOf('float32', [2, 3, 7, 7], 37, 2) }, attributes: { q_num_heads: 3, kv_num_heads: 3, is_causal: 1 } },
    ],
  ];
  for (const [name, c] of served) {
    for (const type of ['float32', 'float16']) {
      it(`${name}, ${type}: on rocm, matches the CPU EP`, async () => {
        const mask = c.mask?.type === 'float32' && type === 'float16' ? { ...c.mask, type: 'float16', tensor: new Tensor('float16', Uint16Array.from(c.mask.tensor.data, float32ToFloat16Bits), c.mask.dims) } : c.mask;
        const { model, feeds } = attentionModel({ ...c, type, mask });
        const { diffs, placement } = await compare(model, feeds);
        console.log(`# Attention ${name}, ${type}: max |diff| ${diffs.y.toExponential(2)}`);
        assert.ok(onRocm(placement, 'Attention'), JSON.stringify(placement.nodes.map((n) => [n.ep, n.declined])));
        assert.ok(diffs.y <= (type === 'float16' ? 5e-3 : 1e-5), `max diff ${diffs.y}`);
      });
    }
  }

  const declined = [
    ['a KV cache', { q: [1, 2, 4, 8], k: [1, 2, 4, 8], v: [1, 2, 4, 8], past: true }, /KV cache/],
    ['softcap', { q: [1, 2, 4, 8], k: [1, 2, 4, 8], v: [1, 2, 4, 8], attributes: { softcap: 2.5 } }, /softcap/],
    ['V head size unlike Q', { q: [1, 2, 4, 8], k: [1, 2, 4, 8], v: [1, 2, 4, 16] }, /V's head size 16 differs/],
    ['head size 160', { q: [1, 2, 4, 160], k: [1, 2, 4, 160], v: [1, 2, 4, 160] }, /head size 160 is above/],
  ];
  for (const [name, c, reason] of declined) {
    it(`${name}: declined with the reason, the CPU EP's answer`, async () => {
      const { model, feeds } = attentionModel(c);
      const { diffs, placement } = await compare(model, feeds);
      const node = placement.nodes.find((n) => n.opType === 'Attention');
      assert.equal(node.ep, 'cpu');
      assert.match(node.declined.map((d) => d.reason.message).join('; '), reason);
      assert.equal(diffs.y, 0);
    });
  }

  it('the OnnxAttention step refuses malformed attributes and mismatched buffers', (t) => {
    if (!loaded.binding.planStepOps().includes('OnnxAttention')) return t.skip('this build has no OnnxAttention step');
    // Dense 4-D [1, 2, 4, 8] Q/K/V/Y and a bool [4, 4] mask.
    const buffers = [0, 1, 2, 3].map((i) => ({ offset: i * 256, bytes: 256, dtype: 1, dims: [1, 2, 4, 8] }));
    buffers.push({ offset: 1024, bytes: 16, dtype: 9, dims: [4, 4] });
    const good = [1, 2, 2, 4, 4, 8, 0, 0, 0.25, 1, 1, 4, 4];
    const build = (attrs, withMask = true) => () =>
      new loaded.binding.ExecutionPlan({
        deviceId: 0,
        arenaBytes: 1280,
        captureGraph: false,
        buffers,
        constants: [],
        inputs: withMask ? [0, 1, 2, 4] : [0, 1, 2],
        outputs: [3],
        steps: [{ op: 'OnnxAttention', attrs, inputs: withMask ? [0, 1, 2, 4] : [0, 1, 2], outputs: [3] }],
      }).dispose();
    const with_ = (i, v) => good.map((x, j) => (j === i ? v : x));
    assert.doesNotThrow(build(good));
    assert.throws(build(with_(2, 3)), /multiple of kv heads/);
    assert.throws(build(with_(3, 5)), /Q and Y must hold/);
    assert.throws(build(with_(4, 8)), /K and V must hold/);
    assert.throws(build(with_(12, 5)), /do not broadcast/);
    assert.throws(build(with_(11, 2)), /do not broadcast/);
    assert.throws(build(with_(8, NaN)), /scale must be finite/);
    assert.throws(build(with_(0, -1)), /whole non-negative/);
    assert.throws(build(good.slice(0, 12)), /needs 13 attributes/);
  });
});

describe('RMSNormalization (opset 23) on rocm', { skip }, () => {
  const cases = [
    ['last axis of [4, 7, 64]', [4, 7, 64], [64], -1],
    ['last axis, long rows [3, 1000]', [3, 1000], [1000], -1],
    ['two axes of [2, 6, 40]', [2, 6, 40], [6, 40], 1],
  ];
  for (const [name, x, scale, axis] of cases) {
    for (const type of ['float32', 'float16']) {
      it(`${name}, ${type}: on rocm, matches the CPU EP`, async () => {
        const model = buildModel({
          opset: 23,
          inputs: [['x', type, x]],
          outputs: [['y', type]],
          initializers: { s: tensorOf(type, scale, 41, 2) },
          nodes: [{ op: 'RMSNormalization', inputs: ['x', 's'], outputs: ['y'], name: 'rms', attributes: { axis, epsilon: 1e-5 } }],
        });
        const { diffs, placement } = await compare(model, { x: tensorOf(type, x, 42, 3) });
        console.log(`# RMSNormalization ${name}, ${type}: max |diff| ${diffs.y.toExponential(2)}`);
        assert.ok(onRocm(placement, 'RMSNormalization'), JSON.stringify(placement.nodes.map((n) => [n.ep, n.declined])));
        assert.ok(diffs.y <= (type === 'float16' ? 1e-2 : 1e-5), `max diff ${diffs.y}`);
      });
    }
  }

  it('a scale broadcast within the row is declined with the reason', async () => {
    const model = buildModel({
      opset: 23,
      inputs: [['x', 'float32', [2, 6, 40]]],
      outputs: [['y', 'float32']],
      initializers: { s: tensorOf('float32', [40], 43) },
      nodes: [{ op: 'RMSNormalization', inputs: ['x', 's'], outputs: ['y'], name: 'rms', attributes: { axis: 1 } }],
    });
    const { diffs, placement } = await compare(model, { x: tensorOf('float32', [2, 6, 40], 44) });
    const node = placement.nodes.find((n) => n.opType === 'RMSNormalization');
    assert.equal(node.ep, 'cpu');
    assert.match(node.declined.map((d) => d.reason.message).join('; '), /must span the normalized dims/);
    assert.equal(diffs.y, 0);
  });

  it('the RMSNormalization step refuses sizes that do not match its buffers', (t) => {
    if (!loaded.binding.planStepOps().includes('RMSNormalization')) return t.skip('this build has no RMSNormalization step');
    // x, y [4, 8]; scale [8] (float32), and a float16 scale [8].
    const buffers = [
      { offset: 0, bytes: 128, dtype: 1, dims: [4, 8] },
      { offset: 256, bytes: 32, dtype: 1, dims: [8] },
      { offset: 512, bytes: 128, dtype: 1, dims: [4, 8] },
      { offset: 768, bytes: 16, dtype: 10, dims: [8] },
    ];
    const build = (attrs, scale = 1) => () =>
      new loaded.binding.ExecutionPlan({ deviceId: 0, arenaBytes: 1024, captureGraph: false, buffers, constants: [], inputs: [0, scale], outputs: [2], steps: [{ op: 'RMSNormalization', attrs, inputs: [0, scale], outputs: [2] }] }).dispose();
    assert.doesNotThrow(build([4, 8, 1e-5]));
    assert.throws(build([2, 8, 1e-5]), /does not match the input size/);
    assert.throws(build([1, 32, 1e-5]), /scale must have cols elements/);
    assert.throws(build([4, 8, 1e-5], 3), /scale must have x's type/);
    assert.throws(build([4, 8]), /needs \[rows, cols, epsilon\]/);
  });
});

describe('RotaryEmbedding (opset 23) on rocm', { skip }, () => {
  // x, caches (cos/sin of seeded angles) and position ids, for one case.
  function rotaryCase({ x, type = 'float32', heads, rotDim, interleaved = 0, positions, cacheDims }) {
    const half = cacheDims[cacheDims.length - 1];
    const angles = seeded(count(cacheDims), 61).map((a) => 6 * a);
    const cache = (f) => {
      const v = angles.map(f);
      return type === 'float16' ? new Tensor('float16', Uint16Array.from(v, float32ToFloat16Bits), cacheDims) : new Tensor('float32', Float32Array.from(v), cacheDims);
    };
    const inputs = [['x', type, x], ['cos', type, cacheDims], ['sin', type, cacheDims]];
    const nodeInputs = ['x', 'cos', 'sin'];
    const feeds = { x: tensorOf(type, x, 62, 2), cos: cache(Math.cos), sin: cache(Math.sin) };
    if (positions) {
      inputs.push(['pos', 'int64', positions.dims]);
      nodeInputs.push('pos');
      feeds.pos = new Tensor('int64', BigInt64Array.from(positions.values.map(BigInt)), positions.dims);
    }
    const attributes = { interleaved, ...(heads ? { num_heads: heads } : {}), ...(rotDim ? { rotary_embedding_dim: rotDim } : {}) };
    assert.ok(half > 0);
    return { model: buildModel({ opset: 23, inputs, outputs: [['y', type]], nodes: [{ op: 'RotaryEmbedding', inputs: nodeInputs, outputs: ['y'], name: 'rope', attributes }] }), feeds };
  }
  const served = [
    ['4-D, position_ids [B, S]', { x: [2, 3, 5, 16], cacheDims: [12, 8], positions: { dims: [2, 5], values: [0, 1, 2, 3, 4, 7, 6, 5, 11, 10] } }],
    ['4-D, position_ids [1, S], rotary dim 8 of 16, interleaved', { x: [2, 3, 5, 16], cacheDims: [9, 4], rotDim: 8, interleaved: 1, positions: { dims: [1, 5], values: [8, 0, 3, 3, 1] } }],
    ['3-D, caches [B, S, D/2]', { x: [2, 7, 4 * 32], heads: 4, cacheDims: [2, 7, 16] }],
    ['3-D, caches [1, S, rot/2], rotary dim 12 of 32', { x: [3, 6, 2 * 32], heads: 2, rotDim: 12, cacheDims: [1, 6, 6] }],
  ];
  for (const [name, c] of served) {
    for (const type of ['float32', 'float16']) {
      it(`${name}, ${type}: on rocm, matches the CPU EP`, async () => {
        const { model, feeds } = rotaryCase({ ...c, type });
        const { diffs, placement } = await compare(model, feeds);
        console.log(`# RotaryEmbedding ${name}, ${type}: max |diff| ${diffs.y.toExponential(2)}`);
        assert.ok(onRocm(placement, 'RotaryEmbedding'), JSON.stringify(placement.nodes.map((n) => [n.ep, n.declined])));
        assert.ok(diffs.y <= (type === 'float16' ? 2e-3 : 1e-5), `max diff ${diffs.y}`);
      });
    }
  }

  it('a symbolic head size is declined with the reason, the CPU EP’s answer', async () => {
    const model = buildModel({
      opset: 23,
      inputs: [['x', 'float32', [1, 2, 3, 'd']], ['cos', 'float32', [4, 2]], ['sin', 'float32', [4, 2]], ['pos', 'int64', [1, 3]]],
      outputs: [['y', 'float32']],
      nodes: [{ op: 'RotaryEmbedding', inputs: ['x', 'cos', 'sin', 'pos'], outputs: ['y'], name: 'rope' }],
    });
    const feeds = { x: tensorOf('float32', [1, 2, 3, 4], 63), cos: tensorOf('float32', [4, 2], 64), sin: tensorOf('float32', [4, 2], 65), pos: new Tensor('int64', BigInt64Array.of(0n, 3n, 1n), [1, 3]) };
    const { diffs, placement } = await compare(model, feeds);
    const node = placement.nodes.find((n) => n.opType === 'RotaryEmbedding');
    assert.equal(node.ep, 'cpu');
    assert.match(node.declined.map((d) => d.reason.message).join('; '), /head size must be known/);
    assert.equal(diffs.y, 0);
  });

  it('a position id outside the caches writes zeros for that position, without a fault', async () => {
    const { model, feeds } = rotaryCase({ x: [1, 2, 3, 8], cacheDims: [4, 4], positions: { dims: [1, 3], values: [0, 9, -1] } });
    const s = await InferenceSession.fromModel(model, { executionProviders: ['rocm', 'cpu'] });
    const y = asFloats((await s.run(feeds)).y);
    await s.release();
    // Head h, position p: elements (h * 3 + p) * 8 .. + 8; positions 1 and 2 are out of range.
    for (let h = 0; h < 2; h++) {
      assert.ok(y.slice((h * 3 + 0) * 8, (h * 3 + 1) * 8).some((v) => v !== 0));
      assert.deepEqual([...y.slice((h * 3 + 1) * 8, (h * 3 + 3) * 8)], new Array(16).fill(0));
    }
  });

  it('the RotaryEmbedding step refuses malformed attributes and mismatched buffers', (t) => {
    if (!loaded.binding.planStepOps().includes('RotaryEmbedding')) return t.skip('this build has no RotaryEmbedding step');
    // x, y [1, 2, 3, 8]; caches [4, 4]; positions int64 [1, 3].
    const buffers = [
      { offset: 0, bytes: 192, dtype: 1, dims: [1, 2, 3, 8] },
      { offset: 256, bytes: 64, dtype: 1, dims: [4, 4] },
      { offset: 512, bytes: 64, dtype: 1, dims: [4, 4] },
      { offset: 768, bytes: 24, dtype: 7, dims: [1, 3] },
      { offset: 1024, bytes: 192, dtype: 1, dims: [1, 2, 3, 8] },
    ];
    const build = (attrs) => () =>
      new loaded.binding.ExecutionPlan({ deviceId: 0, arenaBytes: 1280, captureGraph: false, buffers, constants: [], inputs: [0, 1, 2, 3], outputs: [4], steps: [{ op: 'RotaryEmbedding', attrs, inputs: [0, 1, 2, 3], outputs: [4] }] }).dispose();
    const good = [1, 2, 3, 8, 0, 8, 0, 1, 0];
    const with_ = (i, v) => good.map((x, j) => (j === i ? v : x));
    assert.doesNotThrow(build(good));
    assert.throws(build(with_(5, 7)), /rotary dim must be even/);
    assert.throws(build(with_(5, 10)), /rotary dim must be even/);
    assert.throws(build(with_(2, 4)), /must hold batch \* heads \* seq \* headSize/);
    assert.throws(build(with_(7, 2)), /position_ids must be \[1 or batch, seq\]/);
    assert.throws(build(with_(5, 6)), /not a multiple of rotDim/);
    assert.throws(build(good.slice(0, 8)), /needs 9 attributes/);
  });
});

describe('models/modern_encoder_opset23 on rocm', { skip }, () => {
  const path = fileURLToPath(new URL('../../../models/modern_encoder_opset23/model.onnx', import.meta.url));
  for (const fp16 of [false, true]) {
    it(`every node on rocm, logits within ${fp16 ? '1e-2 (fp16 plan)' : '1e-3'} of the CPU EP`, async () => {
      const bytes = readFileSync(path);
      const feeds = { images: tensorOf('float32', [2, 3, 32, 32], 51, 2) };
      const expected = await (async () => {
        const s = await InferenceSession.create(bytes, { executionProviders: ['cpu'] });
        const out = await s.run(feeds);
        await s.release();
        return out;
      })();
      const s = await InferenceSession.create(bytes, { executionProviders: [{ name: 'rocm', fp16, enableHipGraph: true }, 'cpu'] });
      let diff = 0;
      for (let run = 0; run < 3; run++) diff = Math.max(diff, maxDiff(asFloats((await s.run(feeds)).logits), asFloats(expected.logits)));
      const off = s.placement.nodes.filter((n) => n.ep !== 'rocm').map((n) => `${n.name} (${n.opType}): ${n.declined.map((d) => d.reason.message).join('; ')}`);
      const ops = s.providers.find((p) => p.name === 'rocm').partitions.flatMap((p) => p.stats.lastDescription.steps.map((st) => st.op));
      console.log(`# modern_encoder_opset23${fp16 ? ' fp16' : ''}: ${s.placement.nodes.length - off.length}/${s.placement.nodes.length} nodes on rocm, max |diff| ${diff.toExponential(2)}; steps ${ops.join(' ')}`);
      await s.release();
      assert.deepEqual(off, []);
      assert.ok(ops.includes('OnnxAttention') && ops.includes('RMSNormalization'), ops.join(','));
      assert.ok(diff <= (fp16 ? 1e-2 : 1e-3), `max diff ${diff}`);
    });
  }
});
