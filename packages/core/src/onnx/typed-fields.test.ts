/**
 * TensorProtos that carry their values in the typed fields (float_data, int32_data, …) rather than raw_data:
 * written by the onnx Python package (onnx.helper.make_tensor with raw=False) and, for the unpacked
 * encoding Python never writes, by hand. Expected values are literals from the ONNX spec, not our output.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { decodeTensor, loadModel, readTensorName } from './index.js';
import { modelWithInitializers, tensorProto } from './fixtures/proto-builders.js';
import { hasPythonOnnx, runPython } from './fixtures/reference.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'switchyard-onnx-typed-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** ONNX type name → [python values expression, expected decoded data]. */
const CASES: Record<string, [string, unknown]> = {
  FLOAT: ['[1.5, -2.0, 3.25]', new Float32Array([1.5, -2, 3.25])],
  UINT8: ['[0, 255, 7]', new Uint8Array([0, 255, 7])],
  INT8: ['[-128, 127, -1]', new Int8Array([-128, 127, -1])],
  UINT16: ['[0, 65535, 3]', new Uint16Array([0, 65535, 3])],
  INT16: ['[-32768, 32767, -2]', new Int16Array([-32768, 32767, -2])],
  INT32: ['[-2147483648, 2147483647, 0]', new Int32Array([-2147483648, 2147483647, 0])],
  INT64: ['[-9223372036854775808, 9223372036854775807, -1]', new BigInt64Array([-(2n ** 63n), 2n ** 63n - 1n, -1n])],
  STRING: ['["a".encode(), "ünï".encode(), b""]', ['a', 'ünï', '']],
  BOOL: ['[True, False, True]', new Uint8Array([1, 0, 1])],
  // IEEE half bits: 1.0 = 0x3c00, -2.0 = 0xc000, 65504 = 0x7bff.
  FLOAT16: ['[1.0, -2.0, 65504.0]', new Uint16Array([0x3c00, 0xc000, 0x7bff])],
  DOUBLE: ['[1e300, -0.5, 3.0]', new Float64Array([1e300, -0.5, 3])],
  UINT32: ['[0, 4294967295, 5]', new Uint32Array([0, 4294967295, 5])],
  UINT64: ['[0, 18446744073709551615, 5]', new BigUint64Array([0n, 2n ** 64n - 1n, 5n])],
  COMPLEX64: ['[1+2j, -3.5+0j, 0.25-1j]', new Float32Array([1, 2, -3.5, 0, 0.25, -1])],
  COMPLEX128: ['[1+2j, -3.5+0j, 1e-300+1e300j]', new Float64Array([1, 2, -3.5, 0, 1e-300, 1e300])],
  // bfloat16 bits: 1.0 = 0x3f80, -2.0 = 0xc000, 0.5 = 0x3f00.
  BFLOAT16: ['[1.0, -2.0, 0.5]', new Uint16Array([0x3f80, 0xc000, 0x3f00])],
};

describe.skipIf(!hasPythonOnnx)('typed fields written by onnx.helper.make_tensor', () => {
  test('every data type decodes to the spec values, standalone and as an initializer', async () => {
    const lines = ['import sys', 'from onnx import helper, TensorProto as T', 'out = sys.argv[1]'];
    for (const [type, [values]] of Object.entries(CASES)) {
      lines.push(`t = helper.make_tensor("t_${type}", T.${type}, [3], ${values}, raw=False)`);
      lines.push(`assert not t.HasField("raw_data")`);
      lines.push(`open(out + "/${type}.pb", "wb").write(t.SerializeToString())`);
    }
    runPython(['-c', lines.join('\n'), tmp]);
    for (const [type, [, expected]] of Object.entries(CASES)) {
      const bytes = new Uint8Array(readFileSync(path.join(tmp, `${type}.pb`)));
      expect(readTensorName(bytes)).toBe(`t_${type}`);
      const t = decodeTensor(bytes);
      expect(t.dims, type).toEqual([3]);
      expect(t.data, type).toEqual(expected);
      const m = await loadModel(modelWithInitializers([bytes]));
      expect(m.graph.initializers.get(`t_${type}`)!.data, type).toEqual(expected);
    }
  });
});

describe('typed fields, packed and unpacked', () => {
  test('float_data in both encodings', () => {
    for (const unpacked of [false, true]) {
      const t = decodeTensor(tensorProto({ dataType: 1, dims: [2, 2], floats: [0.5, -1, 3, 1e-3], unpacked }));
      expect(t.data).toEqual(new Float32Array([0.5, -1, 3, 1e-3]));
    }
  });

  test('int32_data carrying int8 and float16 in both encodings, negative values sign-extended', () => {
    for (const unpacked of [false, true]) {
      expect(decodeTensor(tensorProto({ dataType: 3, dims: [3], int32s: [-1, 127, -128], unpacked })).data).toEqual(new Int8Array([-1, 127, -128]));
      expect(decodeTensor(tensorProto({ dataType: 10, dims: [2], int32s: [0x3c00, 0x7c00], unpacked })).data).toEqual(new Uint16Array([0x3c00, 0x7c00]));
      expect(decodeTensor(tensorProto({ dataType: 6, dims: [2], int32s: [-2147483648, -5], unpacked })).data).toEqual(new Int32Array([-2147483648, -5]));
    }
  });

  test('packed runs split over several occurrences are concatenated', () => {
    const a = tensorProto({ dataType: 1, dims: [3], floats: [1, 2] });
    const b = tensorProto({ dataType: 1, dims: [], floats: [3] });
    // Two TensorProto encodings concatenated merge field by field, as protobuf defines.
    const merged = new Uint8Array([...a, ...b]);
    expect(decodeTensor(merged).data).toEqual(new Float32Array([1, 2, 3]));
  });
});
