/** External tensor data: resolved beside the model, and every way a model can point outside its folder is refused. */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { SwitchyardError } from '../errors.js';
import { loadModel } from './index.js';
import { modelWithInitializers, tensorProto } from './fixtures/proto-builders.js';
import { hasPythonOnnx, runPython } from './fixtures/reference.js';

const root = mkdtempSync(path.join(tmpdir(), 'switchyard-onnx-ext-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let counter = 0;
/** A fresh folder holding model.onnx with one float32 initializer 'W' of `dims` whose data lives in `external`. */
function modelFolder(external: Record<string, string>, dims = [2, 2]): { dir: string; file: string; bytes: Uint8Array } {
  const dir = path.join(root, `case${counter++}`);
  mkdirSync(dir);
  const bytes = modelWithInitializers([tensorProto({ name: 'W', dataType: 1, dims, external })]);
  const file = path.join(dir, 'model.onnx');
  writeFileSync(file, bytes);
  return { dir, file, bytes };
}

/** 8 bytes of padding, then float32 [1, 2, 3, 4]. */
const WEIGHTS = new Uint8Array([...new Uint8Array(8), ...new Uint8Array(new Float32Array([1, 2, 3, 4]).buffer)]);

async function rejection(p: Promise<unknown>): Promise<SwitchyardError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(SwitchyardError);
    return e as SwitchyardError;
  }
  throw new Error('expected a rejection');
}

describe('external data', () => {
  test('a good model reads its weights at offset and length', async () => {
    const { dir, file, bytes } = modelFolder({ location: 'weights.bin', offset: '8', length: '16' });
    writeFileSync(path.join(dir, 'weights.bin'), WEIGHTS);
    const m = await loadModel(file);
    const w = m.graph.initializers.get('W')!;
    expect(w.dims).toEqual([2, 2]);
    expect(Array.from(w.data as Float32Array)).toEqual([1, 2, 3, 4]);
    // The same model as bytes: baseDir says where the weights are.
    const fromBytes = await loadModel(bytes, { baseDir: dir });
    expect(Array.from(fromBytes.graph.initializers.get('W')!.data as Float32Array)).toEqual([1, 2, 3, 4]);
  });

  test('a subfolder and a missing length key are fine', async () => {
    const { dir, file } = modelFolder({ location: 'data/w.bin', offset: '8' });
    mkdirSync(path.join(dir, 'data'));
    writeFileSync(path.join(dir, 'data', 'w.bin'), WEIGHTS);
    const m = await loadModel(file);
    expect(Array.from(m.graph.initializers.get('W')!.data as Float32Array)).toEqual([1, 2, 3, 4]);
  });

  test('bytes without baseDir', async () => {
    const { bytes } = modelFolder({ location: 'weights.bin' });
    const e = await rejection(loadModel(bytes));
    expect(e.code).toBe('INVALID_ARGUMENT');
    expect(e.message).toMatch(/tensor 'W'.*weights\.bin.*baseDir/);
  });

  test('a missing file names the tensor and the file', async () => {
    const { file } = modelFolder({ location: 'nowhere.bin' });
    const e = await rejection(loadModel(file));
    expect(e.code).toBe('INVALID_MODEL');
    expect(e.message).toMatch(/tensor 'W'.*'nowhere\.bin'.*missing/);
  });

  test('an absolute path', async () => {
    const { dir, file } = modelFolder({ location: path.join(root, 'abs.bin') });
    writeFileSync(path.join(root, 'abs.bin'), WEIGHTS);
    writeFileSync(path.join(dir, 'abs.bin'), WEIGHTS);
    expect((await rejection(loadModel(file))).message).toMatch(/absolute/);
    const { file: win } = modelFolder({ location: 'C:\\Windows\\system.ini' });
    expect((await rejection(loadModel(win))).message).toMatch(/absolute/);
  });

  test('../ escaping the folder', async () => {
    const { file } = modelFolder({ location: '../escape.bin' });
    writeFileSync(path.join(root, 'escape.bin'), WEIGHTS);
    expect((await rejection(loadModel(file))).message).toMatch(/escapes the model folder/);
    const { file: sneaky } = modelFolder({ location: 'sub/../../escape.bin' });
    expect((await rejection(loadModel(sneaky))).message).toMatch(/escapes the model folder/);
  });

  test('a symlink whose target is outside the folder', async () => {
    const outside = path.join(root, 'secret.bin');
    writeFileSync(outside, WEIGHTS);
    const { dir, file } = modelFolder({ location: 'link.bin', offset: '8' });
    symlinkSync(outside, path.join(dir, 'link.bin'));
    expect((await rejection(loadModel(file))).message).toMatch(/symlink.*outside the model folder/);
    // A symlink that stays inside the folder is allowed.
    const inside = modelFolder({ location: 'alias.bin', offset: '8' });
    writeFileSync(path.join(inside.dir, 'real.bin'), WEIGHTS);
    symlinkSync(path.join(inside.dir, 'real.bin'), path.join(inside.dir, 'alias.bin'));
    expect((await loadModel(inside.file)).graph.initializers.get('W')!.size).toBe(4);
  });

  test('offset beyond the file, and data running past its end', async () => {
    const { dir, file } = modelFolder({ location: 'w.bin', offset: '100' });
    writeFileSync(path.join(dir, 'w.bin'), WEIGHTS);
    expect((await rejection(loadModel(file))).message).toMatch(/too short for 16 bytes at offset 100/);
    const near = modelFolder({ location: 'w.bin', offset: '12' });
    writeFileSync(path.join(near.dir, 'w.bin'), WEIGHTS);
    expect((await rejection(loadModel(near.file))).message).toMatch(/too short/);
  });

  test('a length that disagrees with the tensor size', async () => {
    const { dir, file } = modelFolder({ location: 'w.bin', length: '12' });
    writeFileSync(path.join(dir, 'w.bin'), WEIGHTS);
    expect((await rejection(loadModel(file))).message).toMatch(/tensor 'W'.*length 12.*need 16 bytes/);
  });

  test('a malformed offset, and maxExternalBytes', async () => {
    const { dir, file } = modelFolder({ location: 'w.bin', offset: '-3' });
    writeFileSync(path.join(dir, 'w.bin'), WEIGHTS);
    expect((await rejection(loadModel(file))).message).toMatch(/'offset' is '-3'/);
    const ok = modelFolder({ location: 'w.bin', offset: '8' });
    writeFileSync(path.join(ok.dir, 'w.bin'), WEIGHTS);
    expect((await rejection(loadModel(ok.file, { maxExternalBytes: 8 }))).message).toMatch(/maxExternalBytes/);
    expect((await loadModel(ok.file, { maxExternalBytes: 16 })).graph.initializers.size).toBe(1);
  });

  test.skipIf(!hasPythonOnnx)('a model saved with external data by the onnx Python package', async () => {
    const dir = path.join(root, 'python');
    mkdirSync(dir);
    const script = [
      'import numpy as np, onnx, sys',
      'from onnx import helper, numpy_helper, TensorProto',
      'w = numpy_helper.from_array(np.arange(3000, dtype=np.float32).reshape(30, 100), "W")',
      'b = numpy_helper.from_array(np.arange(100, dtype=np.int64) * -7, "B")',
      'g = helper.make_graph([helper.make_node("MatMul", ["x", "W"], ["y"])], "g",',
      '    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 30])],',
      '    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 100])], [w, b])',
      'm = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])',
      'onnx.save_model(m, sys.argv[1] + "/model.onnx", save_as_external_data=True, all_tensors_to_one_file=True,',
      '    location="weights.data", size_threshold=0)',
    ].join('\n');
    runPython(['-c', script, dir]);
    const m = await loadModel(path.join(dir, 'model.onnx'));
    const w = m.graph.initializers.get('W')!;
    expect(w.dims).toEqual([30, 100]);
    expect(Array.from(w.data as Float32Array)).toEqual(Array.from({ length: 3000 }, (_, i) => i));
    const b = m.graph.initializers.get('B')!;
    expect(b.data).toEqual(BigInt64Array.from({ length: 100 }, (_, i) => BigInt(i * -7)));
    expect(m.graph.inputs[0].type).toEqual({ kind: 'tensor', elemType: 'float32', shape: ['n', 30] });
  });
});
