/**
 * Deep equality of attribute values for CSE. Floats compare with `Object.is` (NaN equals NaN, but
 * 0 and -0 differ, as they can change results); tensors compare by type, shape and bytes.
 */
import type { AttributeValue } from '../ir/graph.js';
import type { Tensor } from '../tensor/tensor.js';

function sameList<T>(a: readonly T[], b: readonly T[], eq: (x: T, y: T) => boolean): boolean {
  return a.length === b.length && a.every((x, i) => eq(x, b[i]));
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}

function bytesOf(data: ArrayBufferView): Uint8Array {
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

export function tensorsEqual(a: Tensor, b: Tensor): boolean {
  if (a === b) return true;
  if (a.type !== b.type || !sameList(a.dims, b.dims, Object.is)) return false;
  // Device-resident tensors cannot be compared without a download; treat them as different.
  if (a.location !== 'cpu' || b.location !== 'cpu') return false;
  const [x, y] = [a.data, b.data];
  if (Array.isArray(x) || Array.isArray(y)) {
    return Array.isArray(x) && Array.isArray(y) && sameList<string>(x, y, (p, q) => p === q);
  }
  return sameBytes(bytesOf(x), bytesOf(y));
}

export function attributeValuesEqual(a: AttributeValue, b: AttributeValue): boolean {
  switch (a.type) {
    case 'float':
    case 'int':
      return a.type === b.type && Object.is(a.value, b.value);
    case 'string':
      return b.type === 'string' && sameBytes(a.bytes, b.bytes) && a.value === b.value;
    case 'floats':
    case 'ints':
      return a.type === b.type && sameList(a.value, b.value as number[], Object.is);
    case 'strings':
      return b.type === 'strings' && sameList(a.value, b.value, (x, y) => x === y);
    case 'tensor':
      return b.type === 'tensor' && tensorsEqual(a.value, b.value);
    case 'tensors':
      return b.type === 'tensors' && sameList(a.value, b.value, tensorsEqual);
    // Subgraphs are never merged by CSE; identity is the only equality we can vouch for.
    case 'graph':
    case 'graphs':
      return a.value === b.value;
    default:
      return a.type === b.type && b.value instanceof Uint8Array && sameBytes(a.value, b.value);
  }
}

export function attributesEqual(a: ReadonlyMap<string, AttributeValue>, b: ReadonlyMap<string, AttributeValue>): boolean {
  if (a.size !== b.size) return false;
  for (const [name, value] of a) {
    const other = b.get(name);
    if (!other || !attributeValuesEqual(value, other)) return false;
  }
  return true;
}
