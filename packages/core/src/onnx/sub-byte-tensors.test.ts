/**
 * The float8 / 4-bit / 2-bit element types in TensorProtos. The byte literals were derived once with
 * onnx 1.23.1 in /tmp/o123/venv: raw_data from `onnx.numpy_helper.from_array(np.array(values).astype(ml_dtypes.X))`,
 * int32_data from `onnx.helper.make_tensor(..., raw=False)`.
 */
import { describe, expect, test } from 'vitest';
import { SwitchyardError } from '../errors.js';
import { ONNX_DATA_TYPE, type DataType } from '../tensor/data-type.js';
import { Tensor } from '../tensor/tensor.js';
import { decodeTensor, encodeTensor, loadModel } from './index.js';
import { modelWithInitializers, tensorProto } from './fixtures/proto-builders.js';

interface Case {
  type: DataType;
  /** Elements as Switchyard holds them (values for the integers, codes for float4e2m1). */
  elements: number[];
  /** onnx's packed raw_data (and int32_data, one packed byte per entry) for those elements. */
  packed: number[];
}

// prettier-ignore
const PACKED: Case[] = [
  { type: 'int4', elements: [-8, -1, 0, 7, 3], packed: [248, 112, 3] },
  { type: 'uint4', elements: [15, 0, 9, 1, 2], packed: [15, 25, 2] },
  { type: 'int2', elements: [-2, -1, 0, 1, 1], packed: [78, 1] },
  { type: 'uint2', elements: [3, 0, 2, 1, 3], packed: [99, 3] },
  // 6.0, -0.5, 1.5, -4.0, 0.0
  { type: 'float4e2m1', elements: [7, 9, 3, 14, 0], packed: [151, 227, 0] },
];

describe('packed 4-bit and 2-bit tensors', () => {
  for (const c of PACKED) {
    test(`${c.type}: raw_data and int32_data decode to the elements; encoding packs them back`, () => {
      const number = ONNX_DATA_TYPE[c.type];
      const fromRaw = decodeTensor(tensorProto({ dataType: number, dims: [5], raw: Uint8Array.from(c.packed) }));
      expect(fromRaw.type).toBe(c.type);
      expect(Array.from(fromRaw.data as ArrayLike<number>)).toEqual(c.elements);
      const fromInt32 = decodeTensor(tensorProto({ dataType: number, dims: [5], int32s: c.packed }));
      expect(Array.from(fromInt32.data as ArrayLike<number>)).toEqual(c.elements);
      const reencoded = decodeTensor(encodeTensor(new Tensor(c.type, c.elements, [5])));
      expect(Array.from(reencoded.data as ArrayLike<number>)).toEqual(c.elements);
      // The encoded raw_data is onnx's packed bytes exactly.
      const bytes = encodeTensor(new Tensor(c.type, c.elements, [5]));
      expect(Buffer.from(bytes).includes(Buffer.from(c.packed))).toBe(true);
    });
  }

  test('a packed tensor whose byte count does not match its shape is refused with a coded error', async () => {
    const err = await loadModel(modelWithInitializers([tensorProto({ name: 'q', dataType: 22, dims: [5], raw: new Uint8Array(2) })])).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SwitchyardError);
    expect((err as SwitchyardError).message).toMatch(/tensor 'q'.*needs 3 bytes but raw_data holds 2/);
    expect(() => decodeTensor(tensorProto({ dataType: 25, dims: [5], int32s: [1] }))).toThrow(/needs 2 values/);
  });

  test('public construction refuses values the type cannot hold', () => {
    expect(() => new Tensor('int4', [8])).toThrow(/outside int4's range -8\.\.7/);
    expect(() => new Tensor('uint2', new Uint8Array([4]))).toThrow(SwitchyardError);
    expect(() => new Tensor('int2', [-3])).toThrow(SwitchyardError);
    expect(() => new Tensor('float4e2m1', [16])).toThrow(SwitchyardError);
    expect(new Tensor('int4', new Int8Array([-8, 7])).data).toEqual(new Int8Array([-8, 7]));
  });
});

describe('8-bit float tensors', () => {
  // prettier-ignore
  const CASES: Array<[DataType, number[]]> = [
    ['float8e4m3fn', [56, 254, 48]], // 1.0, -448, 0.5
    ['float8e5m2', [60, 251, 124]], // 1.0, -57344, inf
    ['float8e8m0', [127, 125, 137]], // 1.0, 0.25, 1024
  ];
  for (const [type, codes] of CASES) {
    test(`${type}: one code per byte in raw_data and per entry in int32_data`, () => {
      const number = ONNX_DATA_TYPE[type];
      expect(Array.from(decodeTensor(tensorProto({ dataType: number, dims: [3], raw: Uint8Array.from(codes) })).data as Uint8Array)).toEqual(codes);
      expect(Array.from(decodeTensor(tensorProto({ dataType: number, dims: [3], int32s: codes })).data as Uint8Array)).toEqual(codes);
      const back = decodeTensor(encodeTensor(new Tensor(type, Uint8Array.from(codes), [3])));
      expect(back.type).toBe(type);
      expect(Array.from(back.data as Uint8Array)).toEqual(codes);
    });
  }
});
