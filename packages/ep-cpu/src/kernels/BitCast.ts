/**
 * ONNX BitCast (opset 26): reinterprets each element's bits as another type of the same width. The
 * sub-byte types are one element per byte in memory, so their bits are masked and sign-extended per
 * element; bool results are normalised to 0/1, the form every kernel expects.
 */
import { SwitchyardError, bitsPerElement, dataTypeFromOnnx, defineKernel, isSubByteIntType, type DataType, type NumericDataType } from '@switchyard/core';
import { CAST_TYPES } from '../math/dtypes.js';

const TYPES = [...CAST_TYPES.filter((t) => t !== 'string'), 'complex64', 'complex128'] as const;

function isPacked(t: DataType): boolean {
  return t === 'float4e2m1' || isSubByteIntType(t);
}

export const bitCastKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'BitCast',
  sinceVersion: 26,
  typeConstraints: { T1: TYPES, T2: TYPES },
  create: ({ attrs }) => {
    const to = attrs.int('to');
    const type = dataTypeFromOnnx(to);
    if (!type || type === 'string') throw new SwitchyardError('INVALID_ARGUMENT', `BitCast: target element type ${to} is not supported`);
    return {
      run(ctx) {
        const x = ctx.input(0);
        if (x.type === 'string') throw new SwitchyardError('INVALID_ARGUMENT', 'BitCast: string tensors have no bit pattern');
        const bits = bitsPerElement(x.type as NumericDataType);
        if (bits !== bitsPerElement(type)) {
          throw new SwitchyardError('INVALID_ARGUMENT', `BitCast: ${x.type} (${bits} bits) and ${type} (${bitsPerElement(type)} bits) differ in width`);
        }
        const out = ctx.output(0, type, x.dims);
        const src = x.data as Exclude<typeof x.data, string[]>;
        const dst = out.data as Exclude<typeof out.data, string[]>;
        if (isPacked(type)) {
          const s = src as Uint8Array | Int8Array;
          const d = dst as Uint8Array | Int8Array;
          const mask = (1 << bits) - 1;
          const signed = type === 'int4' || type === 'int2';
          for (let i = 0; i < s.length; i++) {
            const v = s[i] & mask;
            d[i] = signed && v >= 1 << (bits - 1) ? v - (1 << bits) : v;
          }
        } else {
          new Uint8Array(dst.buffer, dst.byteOffset, dst.byteLength).set(new Uint8Array(src.buffer, src.byteOffset, src.byteLength));
          if (type === 'bool') for (let i = 0; i < dst.length; i++) if (dst[i]) (dst as Uint8Array)[i] = 1;
        }
        return [out];
      },
    };
  },
});
