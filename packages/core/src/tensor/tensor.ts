import {
  type DataType,
  type DataTypeMap,
  type TensorData,
  allocateData,
  isDataOfType,
  isDataType,
  slotsPerElement,
} from './data-type.js';
import { SwitchyardError } from '../errors.js';
import { checkSubByteRange } from './sub-byte.js';

/** Where a tensor's data lives: host memory, or a device named by its EP (e.g. `rocm:0`). */
export type TensorLocation = 'cpu' | (string & {});

/** Largest element count a tensor may declare: guards against multi-GB allocations from tiny inputs. */
export const MAX_TENSOR_ELEMENTS = 2 ** 31 - 1;

/** Element count for `dims`, with each dimension checked. Throws on negative, fractional or absurd sizes. */
export function elementCount(dims: readonly number[], what = 'tensor'): number {
  let n = 1;
  for (const d of dims) {
    if (!Number.isSafeInteger(d) || d < 0) {
      throw new SwitchyardError('INVALID_SHAPE', `${what}: dimension ${String(d)} in [${dims.join(', ')}] is not a non-negative integer`);
    }
    n *= d;
    if (n > MAX_TENSOR_ELEMENTS) {
      throw new SwitchyardError('INVALID_SHAPE', `${what}: shape [${dims.join(', ')}] has more than ${MAX_TENSOR_ELEMENTS} elements`);
    }
  }
  return n;
}

/** Marks the private constructor paths of device tensors and of already-validated host data. */
const DEVICE_TENSOR = Symbol('device tensor');
const TRUSTED_TENSOR = Symbol('trusted tensor');

/** Handle a device EP gives a tensor whose data is not in host memory. */
export interface DeviceData {
  /** `ep:deviceId`, e.g. `rocm:0`. */
  readonly location: TensorLocation;
  /** Copies the data to host memory. */
  download(): Promise<TensorData>;
  /** Releases the device memory; later reads fail. */
  dispose?(): void;
}

const TYPE_OF_ARRAY: Array<[new (...args: never[]) => unknown, DataType]> = [
  [Float32Array, 'float32'],
  [Float64Array, 'float64'],
  [Int8Array, 'int8'],
  [Int16Array, 'int16'],
  [Int32Array, 'int32'],
  [BigInt64Array, 'int64'],
  [Uint8Array, 'uint8'],
  [Uint16Array, 'uint16'],
  [Uint32Array, 'uint32'],
  [BigUint64Array, 'uint64'],
];

function inferType(data: unknown): DataType {
  if (Array.isArray(data)) {
    if (data.every((v) => typeof v === 'string')) return 'string';
    if (data.every((v) => typeof v === 'boolean')) return 'bool';
    return 'float32';
  }
  for (const [ctor, type] of TYPE_OF_ARRAY) if (data instanceof ctor) return type;
  throw new SwitchyardError('INVALID_ARGUMENT', 'Tensor: cannot infer the data type of this data; pass the type explicitly');
}

function coerceData(type: DataType, data: unknown, what: string): TensorData {
  if (isDataOfType(type, data)) return data as TensorData;
  if (Array.isArray(data)) {
    if (type === 'string') throw new SwitchyardError('INVALID_ARGUMENT', `${what}: string tensors take an array of strings`);
    const out = allocateData(type, data.length / slotsPerElement(type));
    for (let i = 0; i < data.length; i++) {
      const v = data[i];
      if (out instanceof BigInt64Array || out instanceof BigUint64Array) out[i] = BigInt(v as number | bigint);
      else (out as Exclude<TensorData, string[] | BigInt64Array | BigUint64Array>)[i] = Number(v);
    }
    return out;
  }
  // bool data may arrive as Uint8Array already (isDataOfType accepts it); anything else is a mismatch.
  throw new SwitchyardError('INVALID_ARGUMENT', `${what}: data of type ${Object.prototype.toString.call(data)} does not hold '${type}'`);
}

/**
 * A dense tensor, shaped like onnxruntime-node's `Tensor`: `new Tensor(type, data, dims)` or `new Tensor(data, dims)`.
 *
 * Storage per type is `DataTypeMap`. The types narrower than 16 bits that ONNX added in IR 9–11 hold
 * one element per byte: the float8 formats and float4e2m1 as their bit-pattern codes in a Uint8Array
 * (values in small-floats.ts; an array of numbers passed here is taken as codes, as for float16), uint4/uint2
 * as values in a Uint8Array and int4/int2 as values in an Int8Array. The 4- and 2-bit types are packed
 * only in files (sub-byte.ts); a value outside their range is refused here.
 */
export class Tensor<T extends DataType = DataType> {
  readonly type: T;
  readonly dims: readonly number[];
  readonly size: number;
  readonly location: TensorLocation;
  #data: DataTypeMap[T] | undefined;
  #device: DeviceData | undefined;

  constructor(type: T, data: DataTypeMap[T] | readonly (number | bigint | boolean | string)[], dims?: readonly number[]);
  constructor(data: DataTypeMap[T], dims?: readonly number[]);
  constructor(a: unknown, b?: unknown, c?: unknown, d?: unknown, e?: unknown, f?: unknown) {
    if (a === TRUSTED_TENSOR) {
      // Positional (no init object): this path runs for every output of every node.
      const dims = d as readonly number[];
      this.type = b as T;
      // Frozen dims (another tensor's, a cached plan's) cannot change under us: shared, not copied.
      this.dims = f === true || Object.isFrozen(dims) ? dims : Object.freeze(dims.slice());
      this.size = e as number;
      this.location = 'cpu';
      this.#data = c as DataTypeMap[T];
      return;
    }
    if (a === DEVICE_TENSOR) {
      const init = b as { type: T; dims: readonly number[]; device: DeviceData };
      this.type = init.type;
      this.dims = Object.freeze([...init.dims]);
      this.size = elementCount(init.dims, `device tensor(${init.type})`);
      this.location = init.device.location;
      this.#device = init.device;
      return;
    }
    let type: DataType;
    let data: unknown;
    let dims: unknown;
    if (typeof a === 'string') {
      if (!isDataType(a)) throw new SwitchyardError('INVALID_ARGUMENT', `Tensor: unknown data type '${a}'`);
      [type, data, dims] = [a, b, c];
    } else {
      [type, data, dims] = [inferType(a), a, b];
    }
    // Sub-byte types hold one element per byte: a value the type cannot hold is refused, not wrapped.
    if (Array.isArray(data)) checkSubByteRange(type, data as number[], `Tensor(${type})`);
    const coerced = coerceData(type, data, `Tensor(${type})`);
    checkSubByteRange(type, coerced as ArrayLike<number>, `Tensor(${type})`);
    const length = coerced.length / slotsPerElement(type);
    const shape = dims === undefined ? [length] : Array.from(dims as readonly number[]);
    const size = elementCount(shape, `Tensor(${type})`);
    if (size !== length) {
      throw new SwitchyardError(
        'INVALID_ARGUMENT',
        `Tensor(${type}): data has ${length} elements but dims [${shape.join(', ')}] need ${size}`,
      );
    }
    this.type = type as T;
    this.dims = Object.freeze(shape);
    this.size = size;
    this.location = 'cpu';
    this.#data = coerced as DataTypeMap[T];
  }

  /** A tensor whose data lives on a device; `data` throws until `getData()` downloads it. */
  static fromDevice<T extends DataType>(type: T, dims: readonly number[], device: DeviceData): Tensor<T> {
    return new (Tensor as unknown as new (token: symbol, init: unknown) => Tensor<T>)(DEVICE_TENSOR, { type, dims, device });
  }

  /**
   * A host tensor over data the caller has already checked against `dims` (`size` elements of the
   * right array type): the session's output allocation, which runs for every node of every run.
   * `dimsFrozen`: the caller knows `dims` is frozen (shared as is without asking again).
   * @internal
   */
  static trusted<T extends DataType>(type: T, data: DataTypeMap[T], dims: readonly number[], size: number, dimsFrozen = false): Tensor<T> {
    type Trusted = new (token: symbol, type: T, data: DataTypeMap[T], dims: readonly number[], size: number, dimsFrozen: boolean) => Tensor<T>;
    return new (Tensor as unknown as Trusted)(TRUSTED_TENSOR, type, data, dims, size, dimsFrozen);
  }

  /** A zero-filled host tensor. */
  static zeros<T extends DataType>(type: T, dims: readonly number[]): Tensor<T> {
    return new Tensor(type, allocateData(type, elementCount(dims)), dims);
  }

  /** The host data. Throws for a device tensor: use `getData()`. */
  get data(): DataTypeMap[T] {
    if (this.#data === undefined) {
      throw new SwitchyardError('INVALID_ARGUMENT', `tensor data is on '${this.location}'; call getData() to download it`);
    }
    return this.#data;
  }

  /** The device handle of a device tensor. */
  get deviceData(): DeviceData | undefined {
    return this.#device;
  }

  /** The host data, downloading it from the device when needed. */
  async getData(): Promise<DataTypeMap[T]> {
    if (this.#data !== undefined) return this.#data;
    return (await this.#device!.download()) as DataTypeMap[T];
  }

  /** The same data with other dims (no copy). */
  reshape(dims: readonly number[]): Tensor<T> {
    return new Tensor(this.type, this.data, dims);
  }

  /** Releases device memory of a device tensor; no-op on the host. */
  dispose(): void {
    this.#device?.dispose?.();
  }
}
