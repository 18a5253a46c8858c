/**
 * Standalone value files: TensorProto, SequenceProto and OptionalProto, as the ONNX backend tests store
 * their inputs and expected outputs (input_N.pb / output_N.pb).
 */
import { SwitchyardError } from '../errors.js';
import type { ValueType } from '../ir/graph.js';
import type { Tensor } from '../tensor/tensor.js';
import { OPTIONAL, SEQUENCE, TENSOR, VALUE_KIND } from './fields.js';
import { decodeTensorProto } from './decode-tensor.js';
import { asModelError } from './decode-model.js';
import { ProtoReader, WireType, invalid } from './wire-reader.js';

/** Nesting limit for optional-of-optional / sequence-of-sequence values. */
const MAX_VALUE_DEPTH = 64;

/** A runtime value as the backend tests store it. */
export type StoredValue = Tensor | Tensor[] | null;

function guarded<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw asModelError(e);
  }
}

function requireBytes(bytes: Uint8Array, what: string): void {
  if (!(bytes instanceof Uint8Array)) throw new SwitchyardError('INVALID_ARGUMENT', `${what}: expected a Uint8Array`);
}

/** Decodes a standalone TensorProto; `name` only labels error messages. External data is refused. */
export function decodeTensor(bytes: Uint8Array, name = 'tensor file'): Tensor {
  requireBytes(bytes, name);
  return guarded(() => decodeTensorProto(new ProtoReader(bytes), { where: name }).tensor);
}

/** The `name` field of a standalone TensorProto ('' when absent), without decoding its data. */
export function readTensorName(bytes: Uint8Array): string {
  requireBytes(bytes, 'tensor file');
  return guarded(() => {
    const r = new ProtoReader(bytes);
    let name = '';
    while (r.next()) {
      if (r.field === TENSOR.name && r.wireType === WireType.LengthDelimited) name = r.string();
      else r.skip();
    }
    return name;
  });
}

function readSequence(r: ProtoReader, where: string, depth: number): Tensor[] {
  if (depth > MAX_VALUE_DEPTH) throw invalid(`${where}: values nested deeper than ${MAX_VALUE_DEPTH} levels`);
  let kind: number = VALUE_KIND.undefined;
  let name = '';
  const tensors: ProtoReader[] = [];
  let other = 0;
  while (r.next()) {
    if (r.field === SEQUENCE.name && r.wireType === WireType.LengthDelimited) name = r.string();
    else if (r.field === SEQUENCE.elemType && r.wireType === WireType.Varint) kind = r.int32();
    else if (r.field === SEQUENCE.tensorValues && r.wireType === WireType.LengthDelimited) tensors.push(r.sub());
    else if (r.field >= SEQUENCE.sparseTensorValues && r.field <= SEQUENCE.optionalValues) {
      other++;
      r.skip();
    } else r.skip();
  }
  const w = name ? `sequence '${name}' (${where})` : where;
  if (other > 0 || (kind !== VALUE_KIND.tensor && kind !== VALUE_KIND.undefined)) {
    throw new SwitchyardError('UNSUPPORTED', `${w}: only sequences of tensors are supported (elem_type ${kind})`);
  }
  return tensors.map((t, i) => decodeTensorProto(t, { where: `element ${i} of ${w}` }).tensor);
}

function readOptional(r: ProtoReader, where: string, depth: number): StoredValue {
  if (depth > MAX_VALUE_DEPTH) throw invalid(`${where}: values nested deeper than ${MAX_VALUE_DEPTH} levels`);
  let kind: number = VALUE_KIND.undefined;
  let name = '';
  let tensor: ProtoReader | undefined;
  let sequence: ProtoReader | undefined;
  while (r.next()) {
    if (r.field === OPTIONAL.name && r.wireType === WireType.LengthDelimited) name = r.string();
    else if (r.field === OPTIONAL.elemType && r.wireType === WireType.Varint) kind = r.int32();
    else if (r.field === OPTIONAL.tensorValue && r.wireType === WireType.LengthDelimited) tensor = r.sub();
    else if (r.field === OPTIONAL.sequenceValue && r.wireType === WireType.LengthDelimited) sequence = r.sub();
    else r.skip();
  }
  const w = name ? `optional '${name}' (${where})` : where;
  switch (kind) {
    case VALUE_KIND.undefined:
      return null;
    case VALUE_KIND.tensor:
      if (!tensor) throw invalid(`${w}: elem_type TENSOR but no tensor_value`);
      return decodeTensorProto(tensor, { where: w }).tensor;
    case VALUE_KIND.sequence:
      return readSequence(sequence ?? new ProtoReader(new Uint8Array(0)), w, depth + 1);
    default:
      throw new SwitchyardError('UNSUPPORTED', `${w}: optional values of elem_type ${kind} are not supported`);
  }
}

/** Decodes a standalone SequenceProto holding tensors. */
export function decodeSequence(bytes: Uint8Array, name = 'sequence file'): Tensor[] {
  requireBytes(bytes, name);
  return guarded(() => readSequence(new ProtoReader(bytes), name, 0));
}

/** Decodes a standalone OptionalProto: a tensor, a sequence of tensors, or null for an empty optional. */
export function decodeOptional(bytes: Uint8Array, name = 'optional file'): StoredValue {
  requireBytes(bytes, name);
  return guarded(() => readOptional(new ProtoReader(bytes), name, 0));
}

/**
 * Decodes a stored value whose static type is known (from the model's input/output ValueInfo):
 * optional → OptionalProto, sequence → SequenceProto, anything else → TensorProto.
 */
export function decodeValue(bytes: Uint8Array, type?: ValueType, name?: string): StoredValue {
  if (type?.kind === 'optional') return decodeOptional(bytes, name);
  if (type?.kind === 'sequence') return decodeSequence(bytes, name);
  return decodeTensor(bytes, name);
}
