/**
 * Every ONNX backend-test file, decoded by Switchyard and by the official onnx Python package,
 * must summarise identically (structure, attributes, types, and the SHA-256 of all tensor data).
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, test } from 'vitest';
import { decodeValue, loadModel } from './index.js';
import {
  TESTDATA,
  allTestModels,
  hasPythonOnnx,
  hasTestData,
  referenceModels,
  referenceTestData,
  summarizeModel,
  summarizeValue,
} from './fixtures/reference.js';

describe.skipIf(!hasTestData)('ONNX backend test data', () => {
  test('all 1,072 backend-test models decode, quickly', async () => {
    const models = allTestModels();
    expect(models.length).toBe(1072);
    const started = performance.now();
    for (const p of models) await loadModel(p);
    expect(performance.now() - started).toBeLessThan(20_000);
  });

  test.skipIf(!hasPythonOnnx)('every model matches the onnx Python package', async () => {
    const paths = allTestModels();
    const reference = referenceModels(paths);
    expect(reference.length).toBe(paths.length);
    for (let i = 0; i < paths.length; i++) {
      const ours = summarizeModel(await loadModel(paths[i]));
      expect(ours, paths[i]).toEqual(reference[i]);
    }
  });

  test.skipIf(!hasPythonOnnx)('every input_N.pb / output_N.pb matches the onnx Python package', async () => {
    const folders = allTestModels().map((p) => path.dirname(p));
    const reference = referenceTestData(folders);
    const files = Object.keys(reference);
    expect(files.length).toBeGreaterThan(3000);
    const models = new Map<string, Awaited<ReturnType<typeof loadModel>>>();
    for (const file of files) {
      const folder = path.dirname(path.dirname(file));
      let model = models.get(folder);
      if (!model) models.set(folder, (model = await loadModel(path.join(folder, 'model.onnx'))));
      const [role, index] = path.basename(file, '.pb').split('_');
      const g = model.graph;
      const infos = role === 'input' ? g.inputs.filter((v) => !g.initializers.has(v.name)) : g.outputs;
      const value = decodeValue(readFileSync(file), infos[Number(index)].type, file);
      expect(summarizeValue(value), file.slice(TESTDATA.length)).toEqual(reference[file]);
    }
  });
});
