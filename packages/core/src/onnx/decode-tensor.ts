/**
 * TensorProto → Tensor. Sizes are validated before anything is allocated: the declared shape must fit
 * MAX_TENSOR_ELEMENTS, and the bytes actually present must match it, so a tiny file cannot make us
 * allocate gigabytes.
 */
import { SwitchyardError } from '../errors.js';
import {
  BYTES_PER_ELEMENT,
  type DataType,
  allocateData,
  dataTypeFromOnnx,
  isSubByteIntType,
  packedByteLength,
  viewData,
} from '../tensor/data-type.js';
import { unpackSubByte } from '../tensor/sub-byte.js';
import { Tensor, elementCount } from '../tensor/tensor.js';
import { DATA_LOCATION_EXTERNAL, STRING_ENTRY, TENSOR } from './fields.js';
import { ProtoReader, WireType, invalid } from './wire-reader.js';

/** What the decoder needs to fetch a tensor stored outside the model file. */
export interface ExternalDataRequest {
  /** Tensor name, for error messages. */
  tensor: string;
  location: string;
  offset: number;
  /** The `length` key, when the file gave one. */
  length: number | undefined;
  /** Bytes the tensor's type and dims call for. */
  expectedBytes: number;
}

/** Returns exactly `expectedBytes` bytes in a fresh (aligned) buffer, or throws. */
export type ExternalDataReader = (request: ExternalDataRequest) => Uint8Array;

/**
 * raw_data payloads already read into buffers of their own (see read-model-file.ts), by the payload's
 * start offset in the model bytes: the decoder takes them instead of copying out of the model bytes.
 */
export interface RawDataSource {
  /** The payload at [start, start + length), or undefined when it was not read separately. */
  take(start: number, length: number): Uint8Array | undefined;
}

export interface TensorDecodeOptions {
  /** Where the tensor sits, for error messages (e.g. "initializer of graph 'main'"). */
  where: string;
  external?: ExternalDataReader;
  rawData?: RawDataSource;
}

export interface DecodedTensor {
  name: string;
  tensor: Tensor;
  docString?: string;
}

const ONNX_TYPES_WITHOUT_SUPPORT: Record<number, string> = {
  27: 'FLOAT6E2M3',
  28: 'FLOAT6E3M2',
};

/** Whether `type` is packed several elements to a byte in files (4-bit and 2-bit types). */
function isPacked(type: DataType): boolean {
  return type === 'float4e2m1' || isSubByteIntType(type);
}

/** The DataType for an ONNX element-type number; throws a clear error for unknown or unsupported numbers. */
export function dataTypeOrThrow(elemType: number, where: string): DataType {
  const t = dataTypeFromOnnx(elemType);
  if (t !== undefined) return t;
  const known = ONNX_TYPES_WITHOUT_SUPPORT[elemType];
  if (known) throw new SwitchyardError('UNSUPPORTED', `${where}: element type ${known} (${elemType}) is not supported`);
  throw invalid(`${where}: unknown element type ${elemType}`);
}

/** Which typed field carries each data type's values when raw_data is absent, and how many slots per element. */
const TYPED_FIELD: Record<DataType, { field: number; wire: WireType; slots: number }> = {
  float32: { field: TENSOR.floatData, wire: WireType.Fixed32, slots: 1 },
  complex64: { field: TENSOR.floatData, wire: WireType.Fixed32, slots: 2 },
  float64: { field: TENSOR.doubleData, wire: WireType.Fixed64, slots: 1 },
  complex128: { field: TENSOR.doubleData, wire: WireType.Fixed64, slots: 2 },
  int32: { field: TENSOR.int32Data, wire: WireType.Varint, slots: 1 },
  int16: { field: TENSOR.int32Data, wire: WireType.Varint, slots: 1 },
  int8: { field: TENSOR.int32Data, wire: WireType.Varint, slots: 1 },
  uint16: { field: TENSOR.int32Data, wire: WireType.Varint, slots: 1 },
  uint8: { field: TENSOR.int32Data, wire: WireType.Varint, slots: 1 },
  bool: { field: TENSOR.int32Data, wire: WireType.Varint, slots: 1 },
  float16: { field: TENSOR.int32Data, wire: WireType.Varint, slots: 1 },
  bfloat16: { field: TENSOR.int32Data, wire: WireType.Varint, slots: 1 },
  int64: { field: TENSOR.int64Data, wire: WireType.Varint, slots: 1 },
  uint32: { field: TENSOR.uint64Data, wire: WireType.Varint, slots: 1 },
  uint64: { field: TENSOR.uint64Data, wire: WireType.Varint, slots: 1 },
  string: { field: TENSOR.stringData, wire: WireType.LengthDelimited, slots: 1 },
  // One code per int32 for the 8-bit floats; the packed types hold one packed byte per int32 (see slotCount).
  float8e4m3fn: { field: TENSOR.int32Data, wire: WireType.Varint, slots: 1 },
  float8e4m3fnuz: { field: TENSOR.int32Data, wire: WireType.Varint, slots: 1 },
  float8e5m2: { field: TENSOR.int32Data, wire: WireType.Varint, slots: 1 },
  float8e5m2fnuz: { field: TENSOR.int32Data, wire: WireType.Varint, slots: 1 },
  float8e8m0: { field: TENSOR.int32Data, wire: WireType.Varint, slots: 1 },
  float4e2m1: { field: TENSOR.int32Data, wire: WireType.Varint, slots: 1 },
  uint4: { field: TENSOR.int32Data, wire: WireType.Varint, slots: 1 },
  int4: { field: TENSOR.int32Data, wire: WireType.Varint, slots: 1 },
  uint2: { field: TENSOR.int32Data, wire: WireType.Varint, slots: 1 },
  int2: { field: TENSOR.int32Data, wire: WireType.Varint, slots: 1 },
};

/** Unpacked wire type of each typed data field. */
const WIRE_OF_FIELD: Record<number, WireType> = {
  [TENSOR.floatData]: WireType.Fixed32,
  [TENSOR.doubleData]: WireType.Fixed64,
  [TENSOR.stringData]: WireType.LengthDelimited,
  [TENSOR.int32Data]: WireType.Varint,
  [TENSOR.int64Data]: WireType.Varint,
  [TENSOR.uint64Data]: WireType.Varint,
};

const HOST_LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** A copy of bytes[start, end) in a fresh ArrayBuffer, so typed views over it are aligned. */
export function copyBytes(bytes: Uint8Array, start: number, end: number): Uint8Array {
  const out = new Uint8Array(end - start);
  out.set(bytes.subarray(start, end));
  return out;
}

function readExternalEntries(r: ProtoReader, into: Map<string, string>): void {
  const e = r.sub();
  let key = '';
  let value = '';
  while (e.next()) {
    if (e.field === STRING_ENTRY.key && e.wireType === WireType.LengthDelimited) key = e.string();
    else if (e.field === STRING_ENTRY.value && e.wireType === WireType.LengthDelimited) value = e.string();
    else e.skip();
  }
  into.set(key, value);
}

function parseByteCount(value: string | undefined, key: string, where: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(Number(value))) {
    throw invalid(`${where}: external data '${key}' is '${value}', not a byte count`);
  }
  return Number(value);
}

/** Decodes the TensorProto occupying reader's payload from `r.pos` to `r.end`. */
export function decodeTensorProto(r: ProtoReader, options: TensorDecodeOptions): DecodedTensor {
  const start = r.pos;
  const dims: number[] = [];
  let elemType = 0;
  let name = '';
  let docString: string | undefined;
  let raw: [number, number] | undefined;
  let location = 0;
  const external = new Map<string, string>();
  let hasSegment = false;
  // Element counts per typed field, gathered before decoding so sizes are checked before allocating.
  const counts = new Map<number, number>();

  while (r.next()) {
    switch (r.field) {
      case TENSOR.dims:
        r.repeated(WireType.Varint, () => dims.push(r.int64()));
        break;
      case TENSOR.dataType:
        r.expect(WireType.Varint);
        elemType = r.int32();
        break;
      case TENSOR.name:
        r.expect(WireType.LengthDelimited);
        name = r.string();
        break;
      case TENSOR.docString:
        r.expect(WireType.LengthDelimited);
        docString = r.string();
        break;
      case TENSOR.rawData:
        r.expect(WireType.LengthDelimited);
        raw = r.span();
        break;
      case TENSOR.dataLocation:
        r.expect(WireType.Varint);
        location = r.int32();
        break;
      case TENSOR.externalData:
        r.expect(WireType.LengthDelimited);
        readExternalEntries(r, external);
        break;
      case TENSOR.segment:
        hasSegment = true;
        r.skip();
        break;
      case TENSOR.floatData:
      case TENSOR.int32Data:
      case TENSOR.int64Data:
      case TENSOR.doubleData:
      case TENSOR.uint64Data:
      case TENSOR.stringData: {
        counts.set(r.field, (counts.get(r.field) ?? 0) + r.countRepeated(WIRE_OF_FIELD[r.field]));
        r.skip();
        break;
      }
      default:
        r.skip();
    }
  }

  const where = name ? `tensor '${name}' (${options.where})` : options.where;
  if (hasSegment) throw new SwitchyardError('UNSUPPORTED', `${where}: segmented tensors are not supported`);
  const type = dataTypeOrThrow(elemType, where);
  for (const d of dims) {
    if (!Number.isSafeInteger(d) || d < 0) throw invalid(`${where}: dimension ${d} in [${dims.join(', ')}] is not a non-negative integer`);
  }
  let size: number;
  try {
    size = elementCount(dims, where);
  } catch (e) {
    throw invalid(e instanceof Error ? e.message : String(e));
  }
  const spec = TYPED_FIELD[type];
  // The packed types put 2 (4-bit) or 4 (2-bit) elements in each int32_data entry, as in raw_data's bytes.
  const slots = type === 'string' ? size : isPacked(type) ? packedByteLength(type, size) : size * spec.slots;
  const expectedBytes = type === 'string' ? 0 : packedByteLength(type, size);

  if (location === DATA_LOCATION_EXTERNAL) {
    if (type === 'string') throw invalid(`${where}: string tensors cannot use external data`);
    if (!options.external) {
      throw invalid(`${where}: data is stored in an external file, which cannot be read here`);
    }
    const file = external.get('location');
    if (!file) throw invalid(`${where}: external data has no 'location' key`);
    const bytes = options.external({
      tensor: name || options.where,
      location: file,
      offset: parseByteCount(external.get('offset'), 'offset', where) ?? 0,
      length: parseByteCount(external.get('length'), 'length', where),
      expectedBytes,
    });
    return { name, tensor: fromRawBytes(type, bytes, size, dims), docString };
  }

  if (raw !== undefined && type !== 'string') {
    const have = raw[1] - raw[0];
    if (have !== expectedBytes) {
      throw invalid(`${where}: shape [${dims.join(', ')}] of ${type} needs ${expectedBytes} bytes but raw_data holds ${have}`);
    }
    const own = options.rawData?.take(raw[0], have) ?? copyBytes(r.bytes, raw[0], raw[1]);
    return { name, tensor: fromRawBytes(type, own, size, dims), docString };
  }

  const have = counts.get(spec.field) ?? 0;
  if (have !== slots) {
    const holds = have === 0 && counts.size === 0 && raw === undefined ? 'no data' : `${have} values in the field for ${type}`;
    throw invalid(`${where}: shape [${dims.join(', ')}] of ${type} needs ${slots} values but the tensor holds ${holds}`);
  }
  if (isPacked(type)) {
    const packed = new Uint8Array(slots);
    let k = 0;
    r.pos = start;
    while (r.next()) {
      if (r.field === spec.field) r.repeated(spec.wire, () => (packed[k++] = r.int32()));
      else r.skip();
    }
    const data = allocateData(type, size) as Uint8Array | Int8Array;
    unpackSubByte(type, packed, size, data);
    return { name, tensor: new Tensor(type, data, dims), docString };
  }
  const data = allocateData(type, size);
  let i = 0;
  const fill = fillerFor(type, r, data);
  r.pos = start;
  while (r.next()) {
    if (r.field === spec.field) r.repeated(spec.wire, () => fill(i++));
    else r.skip();
  }
  return { name, tensor: new Tensor(type, data, dims), docString };
}

/** A function that reads one value from `r` into slot `i` of `data`. */
function fillerFor(type: DataType, r: ProtoReader, data: ReturnType<typeof allocateData>): (i: number) => void {
  if (Array.isArray(data)) return (i) => (data[i] = r.string());
  if (data instanceof BigInt64Array) return (i) => (data[i] = r.int64Big());
  if (data instanceof BigUint64Array) return (i) => (data[i] = r.uint64Big());
  switch (type) {
    case 'float32':
    case 'complex64':
    case 'float64':
    case 'complex128': {
      const read = TYPED_FIELD[type].wire === WireType.Fixed32 ? () => r.float() : () => r.double();
      return (i) => ((data as Float32Array | Float64Array)[i] = read());
    }
    case 'bool':
      return (i) => ((data as Uint8Array)[i] = r.int32() !== 0 ? 1 : 0);
    case 'uint32':
      return (i) => ((data as Uint32Array)[i] = r.int64());
    default:
      // int8/int16/int32/uint8/uint16/float16/bfloat16: int32_data holds the value (or the 16 raw bits);
      // assigning to the typed array keeps the low bits.
      return (i) => ((data as Int32Array)[i] = r.int32());
  }
}

/** Wraps little-endian bytes (already in their own buffer) as a tensor of `type`. */
export function fromRawBytes(type: DataType, bytes: Uint8Array, size: number, dims: number[]): Tensor {
  if (type === 'string') throw invalid('string tensors have no raw byte form');
  if (!HOST_LITTLE_ENDIAN && BYTES_PER_ELEMENT[type] > 1) {
    throw new SwitchyardError('UNSUPPORTED', 'tensor data on big-endian hosts is not supported');
  }
  if (isPacked(type)) {
    const unpacked = allocateData(type, size) as Uint8Array | Int8Array;
    unpackSubByte(type, bytes, size, unpacked);
    return new Tensor(type, unpacked, dims);
  }
  const data = viewData(type, bytes.buffer, bytes.byteOffset, size);
  if (type === 'bool') {
    const b = data as Uint8Array;
    for (let i = 0; i < b.length; i++) if (b[i] > 1) b[i] = 1;
  }
  return new Tensor(type, data, dims);
}
