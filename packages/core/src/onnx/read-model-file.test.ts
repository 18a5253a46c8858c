/** Reading a model file with its large initializer payloads in buffers of their own. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { SwitchyardError } from '../errors.js';
import { loadModel } from './index.js';
import { HOIST_MIN_BYTES, readModelFile } from './read-model-file.js';
import { float32Bytes, modelWithInitializers, tensorProto } from './fixtures/proto-builders.js';

const root = mkdtempSync(path.join(tmpdir(), 'switchyard-onnx-read-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let counter = 0;
function writeModel(bytes: Uint8Array): string {
  const file = path.join(root, `m${counter++}.onnx`);
  writeFileSync(file, bytes);
  return file;
}

const ramp = (n: number, scale: number): number[] => Array.from({ length: n }, (_, i) => (i % 97) * scale - 3);
const BIG = HOIST_MIN_BYTES / 4 + 5;

function threeInitializers(): Uint8Array {
  return modelWithInitializers([
    tensorProto({ name: 'big', dataType: 1, dims: [BIG], raw: float32Bytes(ramp(BIG, 0.5)) }),
    tensorProto({ name: 'small', dataType: 1, dims: [3], raw: float32Bytes([1, 2, 3]) }),
    tensorProto({ name: 'typed', dataType: 1, dims: [2], floats: [7, 8] }),
  ]);
}

describe('readModelFile', () => {
  test('large raw_data payloads come separately; their range in the model bytes stays unread', async () => {
    const bytes = threeInitializers();
    const { bytes: read, rawData } = await readModelFile(writeModel(bytes));
    expect(read.length).toBe(bytes.length);
    expect(rawData.size).toBe(1);
    const [[start, payload]] = [...rawData];
    expect(payload.length).toBe(BIG * 4);
    expect(payload).toEqual(bytes.subarray(start, start + payload.length));
    // (Field headers are read 20 bytes at a time, so the payload's first bytes may be there too.)
    expect(read.subarray(start + 20, start + payload.length).every((b) => b === 0)).toBe(true);
    // Everything outside the payload is the file.
    expect(read.subarray(0, start)).toEqual(bytes.subarray(0, start));
    expect(read.subarray(start + payload.length)).toEqual(bytes.subarray(start + payload.length));
  });

  test('loadModel from a path gives the same tensors as from the bytes, each large one in its own buffer', async () => {
    const bytes = threeInitializers();
    const fromPath = await loadModel(writeModel(bytes));
    const fromBytes = await loadModel(bytes);
    for (const name of ['big', 'small', 'typed']) {
      const a = fromPath.graph.initializers.get(name)!;
      const b = fromBytes.graph.initializers.get(name)!;
      expect(a.dims).toEqual(b.dims);
      expect(Array.from(a.data as Float32Array)).toEqual(Array.from(b.data as Float32Array));
    }
    const big = fromPath.graph.initializers.get('big')!.data as Float32Array;
    expect(big.byteOffset).toBe(0);
    expect(big.buffer.byteLength).toBe(BIG * 4);
  });

  test('a tensor with two raw_data fields (the last one wins) still decodes right', async () => {
    // Concatenated TensorProtos merge: the second message's raw_data replaces the first's.
    const first = tensorProto({ name: 'w', dataType: 1, dims: [BIG], raw: float32Bytes(ramp(BIG, 1)) });
    const second = tensorProto({ dims: [], dataType: 1, raw: float32Bytes(ramp(BIG, 2)) });
    const merged = new Uint8Array([...first, ...second]);
    const file = writeModel(modelWithInitializers([merged]));
    expect((await readModelFile(file)).rawData.size).toBe(2);
    const w = (await loadModel(file)).graph.initializers.get('w')!.data as Float32Array;
    expect(Array.from(w)).toEqual(Array.from(new Float32Array(float32Bytes(ramp(BIG, 2)).slice().buffer)));
  });

  test('a truncated file fails as the same bytes do', async () => {
    const bytes = threeInitializers();
    const cut = bytes.subarray(0, bytes.length - 40);
    const fromPath = await loadModel(writeModel(cut)).catch((e: unknown) => e);
    const fromBytes = await loadModel(cut).catch((e: unknown) => e);
    expect(fromPath).toBeInstanceOf(SwitchyardError);
    expect((fromPath as SwitchyardError).code).toBe((fromBytes as SwitchyardError).code);
  });
});
