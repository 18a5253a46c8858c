/** Malformed models: each must end in a clear SwitchyardError — never a crash, a hang, a RangeError or a huge allocation. */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { SwitchyardError } from '../errors.js';
import { Graph, type Model } from '../ir/graph.js';
import { Tensor } from '../tensor/tensor.js';
import { decodeOptional, decodeSequence, decodeTensor, encodeModel, loadModel } from './index.js';
import { ProtoReader } from './wire-reader.js';
import { ProtoWriter } from './wire-writer.js';
import { GRAPH, MODEL, TYPE, TYPE_ELEM, VALUE_INFO } from './fields.js';
import { float32Bytes, modelWithInitializers, tensorProto } from './fixtures/proto-builders.js';
import { TESTDATA, hasTestData } from './fixtures/reference.js';

/** Loads bytes and returns the SwitchyardError it must fail with. */
async function failure(bytes: Uint8Array): Promise<SwitchyardError> {
  try {
    await loadModel(bytes);
  } catch (e) {
    expect(e).toBeInstanceOf(SwitchyardError);
    // The catch-all wrapper for unexpected exceptions (RangeError, …) must not be what caught it.
    expect((e as Error).message).not.toMatch(/^malformed ONNX data/);
    return e as SwitchyardError;
  }
  throw new Error('expected loadModel to fail');
}

function mulberry32(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

function tinyModel(graph: (g: Graph) => void, irVersion = 8): Model {
  const opsetImports = new Map([['', 13]]);
  const g = new Graph({ name: 'g', opsetImports });
  graph(g);
  return { irVersion, opsetImports, producerName: '', producerVersion: '', domain: '', modelVersion: 0, docString: '', metadata: new Map(), graph: g, functionNames: [] };
}

describe('malformed model bytes', () => {
  test('empty bytes', async () => {
    const e = await failure(new Uint8Array(0));
    expect(e.code).toBe('INVALID_MODEL');
    expect(e.message).toMatch(/empty/);
  });

  test.skipIf(!hasTestData)('a real model truncated at every offset', async () => {
    for (const name of ['node/test_loop11', 'pytorch-converted/test_Conv2d_groups']) {
      const file = new Uint8Array(readFileSync(`${TESTDATA}/${name}/model.onnx`));
      // Cutting exactly between top-level fields leaves a shorter, still valid message; every other cut must fail.
      const boundaries = new Set<number>();
      const r = new ProtoReader(file);
      while (r.next()) (r.skip(), boundaries.add(r.pos));
      let failures = 0;
      for (let cut = 0; cut < file.length; cut++) {
        try {
          await loadModel(file.subarray(0, cut));
          expect(boundaries.has(cut), `${name} cut at ${cut} loaded`).toBe(true);
        } catch (e) {
          expect(e, `${name} cut at ${cut}`).toBeInstanceOf(SwitchyardError);
          expect((e as Error).message).not.toMatch(/^malformed ONNX data/);
          failures++;
        }
      }
      expect(failures).toBeGreaterThan(file.length - boundaries.size - 1);
    }
  });

  test('random bytes', async () => {
    const rand = mulberry32(42);
    for (let i = 0; i < 2000; i++) {
      const bytes = new Uint8Array(1 + Math.floor(rand() * 300));
      for (let j = 0; j < bytes.length; j++) bytes[j] = Math.floor(rand() * 256);
      const e = await failure(bytes);
      expect(['INVALID_MODEL', 'UNSUPPORTED']).toContain(e.code);
    }
  });

  test.skipIf(!hasTestData)('real models with random bytes corrupted load or fail cleanly', async () => {
    const rand = mulberry32(7);
    for (const name of ['node/test_loop11', 'node/test_if_seq', 'node/test_cast_FLOAT_to_STRING']) {
      const file = new Uint8Array(readFileSync(`${TESTDATA}/${name}/model.onnx`));
      for (let i = 0; i < 1000; i++) {
        const bytes = file.slice();
        const flips = 1 + Math.floor(rand() * 3);
        for (let f = 0; f < flips; f++) bytes[Math.floor(rand() * bytes.length)] = Math.floor(rand() * 256);
        try {
          await loadModel(bytes);
        } catch (e) {
          expect(e, `${name} mutation ${i}`).toBeInstanceOf(SwitchyardError);
          expect((e as Error).message).not.toMatch(/^malformed ONNX data/);
        }
      }
    }
  });

  test('a PNG file', async () => {
    const png = Uint8Array.from([
      0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00,
      0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4, 0x89, 0x00, 0x00, 0x00, 0x0a, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63,
      0x00, 0x01, 0x00, 0x00, 0x05, 0x00, 0x01, 0x0d, 0x0a, 0x2d, 0xb4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
    ]);
    expect((await failure(png)).code).toBe('INVALID_MODEL');
  });

  test('an over-long varint and a group wire type', async () => {
    expect((await failure(Uint8Array.from([0x08, ...new Array(11).fill(0xff), 0x01]))).message).toMatch(/varint/);
    expect((await failure(Uint8Array.from([0x0b, 0x0c]))).message).toMatch(/wire type/);
  });

  test('IR versions outside 3–14 are refused; 3, 10 and 14 load', async () => {
    const t = tensorProto({ name: 'w', dataType: 1, dims: [1], raw: float32Bytes([1]) });
    for (const ir of [1, 2, 15, 99]) {
      const e = await failure(modelWithInitializers([t], ir));
      expect(e.message).toMatch(new RegExp(`IR version ${ir} is not supported`));
    }
    for (const ir of [3, 10, 14]) expect((await loadModel(modelWithInitializers([t], ir))).irVersion).toBe(ir);
  });

  test('a model without opset_import or without a graph', async () => {
    const w = new ProtoWriter();
    w.int64(MODEL.irVersion, 8);
    expect((await failure(w.finish())).message).toMatch(/no graph/);
    w.message(MODEL.graph, (g) => g.string(GRAPH.name, 'g'));
    expect((await failure(w.finish())).message).toMatch(/no opset_import/);
  });
});

describe('malformed tensors', () => {
  test('raw_data shorter than the declared shape', async () => {
    const e = await failure(modelWithInitializers([tensorProto({ name: 'W', dataType: 1, dims: [2, 2], raw: float32Bytes([1, 2, 3]) })]));
    expect(e.code).toBe('INVALID_MODEL');
    expect(e.message).toMatch(/tensor 'W'.*needs 16 bytes but raw_data holds 12/);
  });

  test('float_data count disagreeing with the shape, and no data at all', async () => {
    const e = await failure(modelWithInitializers([tensorProto({ name: 'F', dataType: 1, dims: [3], floats: [1, 2] })]));
    expect(e.message).toMatch(/tensor 'F'.*needs 3 values/);
    const none = await failure(modelWithInitializers([tensorProto({ name: 'N', dataType: 7, dims: [4] })]));
    expect(none.message).toMatch(/tensor 'N'.*no data/);
  });

  test('absurd dims in a tiny file fail fast, before any allocation', async () => {
    const before = process.memoryUsage().arrayBuffers;
    const started = performance.now();
    const bytes = modelWithInitializers([tensorProto({ name: 'huge', dataType: 1, dims: [1e6, 1e6, 1e6], raw: float32Bytes([1]) })]);
    expect(bytes.length).toBeLessThan(100);
    const e = await failure(bytes);
    expect(e.code).toBe('INVALID_MODEL');
    expect(e.message).toMatch(/huge/);
    // Within the element limit but 4 GB of float32 with 4 bytes present: refused by the size check, not by allocating.
    const big = await failure(modelWithInitializers([tensorProto({ name: 'big', dataType: 1, dims: [100000, 10000], floats: [1] })]));
    expect(big.message).toMatch(/needs 1000000000 values/);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(64 << 20);
  });

  test('negative dims', async () => {
    const e = await failure(modelWithInitializers([tensorProto({ name: 'neg', dataType: 1, dims: [-1, 2], raw: float32Bytes([]) })]));
    expect(e.message).toMatch(/tensor 'neg'.*dimension -1/);
  });

  test('unknown and unsupported data types', async () => {
    const unknown = await failure(modelWithInitializers([tensorProto({ name: 'u', dataType: 99, dims: [1], raw: new Uint8Array(1) })]));
    expect(unknown.code).toBe('INVALID_MODEL');
    expect(unknown.message).toMatch(/tensor 'u'.*unknown element type 99/);
    const fp6 = await failure(modelWithInitializers([tensorProto({ name: 'f6', dataType: 27, dims: [1], raw: new Uint8Array(1) })]));
    expect(fp6.code).toBe('UNSUPPORTED');
    expect(fp6.message).toMatch(/FLOAT6E2M3/);
    const undef = await failure(modelWithInitializers([tensorProto({ name: 'z', dataType: 0, dims: [1] })]));
    expect(undef.message).toMatch(/unknown element type 0/);
  });

  test('standalone tensor / sequence / optional files with bad bytes', () => {
    for (const bad of [Uint8Array.from([0x0a, 0x05, 0x01]), Uint8Array.from([0xff, 0xff]), new Uint8Array(0)]) {
      expect(() => decodeTensor(bad)).toThrow(SwitchyardError);
    }
    expect(() => decodeSequence(Uint8Array.from([0x1a, 0x09, 0x01]))).toThrow(SwitchyardError);
    expect(() => decodeOptional(Uint8Array.from([0x10, 0x01, 0x1a, 0x04, 0x08, 0xff, 0xff, 0xff]))).toThrow(SwitchyardError);
    expect(() => decodeOptional(Uint8Array.from([0x10, 0x04]))).toThrow(/elem_type 4/);
  });
});

describe('nesting limits', () => {
  function nestedIfs(levels: number): Model {
    return tinyModel((main) => {
      main.inputs = [{ name: 'c' }];
      main.outputs = [{ name: 'r0' }];
      let outer = main;
      for (let i = 0; i < levels; i++) {
        const sub = new Graph({ name: `level${i + 1}`, opsetImports: new Map(), parent: outer });
        // Each branch returns its own If's result; the innermost returns the condition from the main graph.
        sub.outputs = [{ name: i + 1 < levels ? `r${i + 1}` : 'c' }];
        // One branch per level: sharing a graph between both would make the encoded size 2^levels.
        outer.addNode({ opType: 'If', inputs: ['c'], outputs: [`r${i}`], attributes: new Map([['then_branch', { type: 'graph', value: sub } as const]]) });
        outer = sub;
      }
    });
  }

  test('60 levels of subgraphs load; 100 are refused', async () => {
    const ok = await loadModel(encodeModel(nestedIfs(60)));
    let g: Graph = ok.graph;
    for (let i = 0; i < 60; i++) {
      const a = g.nodes[0].attributes.get('then_branch');
      if (a?.type !== 'graph') throw new Error('missing subgraph');
      expect(a.value.parent).toBe(g);
      g = a.value;
    }
    const e = await failure(encodeModel(nestedIfs(100)));
    expect(e.message).toMatch(/nested deeper than 64/);
  });

  test('a TypeProto nested 10,000 levels deep is refused, not a stack overflow', async () => {
    let type: Uint8Array = new Uint8Array(0);
    for (let i = 0; i < 10_000; i++) {
      const w = new ProtoWriter();
      w.message(TYPE.sequenceType, (s) => s.bytes(TYPE_ELEM.elemType, type));
      type = w.finish();
    }
    const w = new ProtoWriter();
    w.int64(MODEL.irVersion, 8);
    w.message(MODEL.graph, (g) => g.message(GRAPH.input, (v) => (v.string(VALUE_INFO.name, 'deep'), v.bytes(VALUE_INFO.type, type))));
    w.message(MODEL.opsetImport, (o) => o.int64(2, 13));
    const e = await failure(w.finish());
    expect(e.message).toMatch(/value 'deep'.*nested deeper than 64/);
  });
});

describe('sparse initializers', () => {
  test('are densified', async () => {
    const values = tensorProto({ name: 'sp', dataType: 1, dims: [2], raw: float32Bytes([5, 7]) });
    const indices = tensorProto({ dataType: 7, dims: [2, 2], raw: new Uint8Array(new BigInt64Array([0n, 1n, 2n, 2n]).buffer) });
    const w = new ProtoWriter();
    w.int64(MODEL.irVersion, 8);
    w.message(MODEL.graph, (g) =>
      g.message(GRAPH.sparseInitializer, (s) => {
        s.bytes(1, values);
        s.bytes(2, indices);
        s.int64(3, 3);
        s.int64(3, 3);
      }),
    );
    w.message(MODEL.opsetImport, (o) => o.int64(2, 13));
    const m = await loadModel(w.finish());
    const t = m.graph.initializers.get('sp')!;
    expect(t).toBeInstanceOf(Tensor);
    expect(t.dims).toEqual([3, 3]);
    expect(Array.from(t.data as Float32Array)).toEqual([0, 5, 0, 0, 0, 0, 0, 0, 7]);
  });
});
