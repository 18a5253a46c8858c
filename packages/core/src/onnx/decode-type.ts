/** TypeProto → ValueType, and ValueInfoProto → ValueInfo. */
import type { Dim, ValueInfo, ValueType } from '../ir/graph.js';
import { DIMENSION, SHAPE, TYPE, TYPE_ELEM, TYPE_TENSOR, VALUE_INFO } from './fields.js';
import { dataTypeOrThrow } from './decode-tensor.js';
import { ProtoReader, WireType, invalid } from './wire-reader.js';

/** Deeper type nesting than this (sequence of optional of …) is refused rather than risk the stack. */
export const MAX_TYPE_DEPTH = 64;

function decodeShape(r: ProtoReader): Dim[] {
  const dims: Dim[] = [];
  while (r.next()) {
    if (r.field !== SHAPE.dim || r.wireType !== WireType.LengthDelimited) {
      r.skip();
      continue;
    }
    const d = r.sub();
    let dim: Dim;
    while (d.next()) {
      if (d.field === DIMENSION.dimValue && d.wireType === WireType.Varint) {
        const v = d.int64();
        // Some exporters wrote -1 for "unknown"; treat any unusable size as unknown rather than refuse the model.
        dim = Number.isSafeInteger(v) && v >= 0 ? v : undefined;
      } else if (d.field === DIMENSION.dimParam && d.wireType === WireType.LengthDelimited) {
        const p = d.string();
        dim = p === '' ? undefined : p;
      } else d.skip();
    }
    dims.push(dim);
  }
  return dims;
}

function decodeElem(r: ProtoReader, where: string, depth: number): ValueType | undefined {
  let elem: ValueType | undefined;
  while (r.next()) {
    if (r.field === TYPE_ELEM.elemType && r.wireType === WireType.LengthDelimited) elem = decodeTypeProto(r.sub(), where, depth + 1);
    else r.skip();
  }
  return elem;
}

/** Decodes the TypeProto in `r`; `where` names the value for error messages. */
export function decodeTypeProto(r: ProtoReader, where: string, depth = 0): ValueType {
  if (depth > MAX_TYPE_DEPTH) throw invalid(`${where}: type nested deeper than ${MAX_TYPE_DEPTH} levels`);
  let type: ValueType = { kind: 'unknown' };
  while (r.next()) {
    if (r.wireType !== WireType.LengthDelimited) {
      r.skip();
      continue;
    }
    switch (r.field) {
      case TYPE.tensorType: {
        const t = r.sub();
        let elemType = 0;
        let shape: Dim[] | undefined;
        while (t.next()) {
          if (t.field === TYPE_TENSOR.elemType && t.wireType === WireType.Varint) elemType = t.int32();
          else if (t.field === TYPE_TENSOR.shape && t.wireType === WireType.LengthDelimited) shape = decodeShape(t.sub());
          else t.skip();
        }
        // elem_type 0 (UNDEFINED) leaves the type to inference.
        type = elemType === 0 ? { kind: 'unknown' } : { kind: 'tensor', elemType: dataTypeOrThrow(elemType, where), ...(shape ? { shape } : {}) };
        break;
      }
      case TYPE.sequenceType: {
        const elem = decodeElem(r.sub(), where, depth);
        type = elem ? { kind: 'sequence', elem } : { kind: 'sequence' };
        break;
      }
      case TYPE.optionalType: {
        const elem = decodeElem(r.sub(), where, depth);
        type = elem ? { kind: 'optional', elem } : { kind: 'optional' };
        break;
      }
      case TYPE.mapType:
        r.skip();
        type = { kind: 'map' };
        break;
      case TYPE.opaqueType:
        r.skip();
        type = { kind: 'opaque' };
        break;
      default:
        // sparse_tensor_type and anything newer: no IR form, so the type stays unknown.
        r.skip();
    }
  }
  return type;
}

export function decodeValueInfo(r: ProtoReader, where: string): ValueInfo {
  const info: ValueInfo = { name: '' };
  let typeReader: ProtoReader | undefined;
  while (r.next()) {
    if (r.field === VALUE_INFO.name && r.wireType === WireType.LengthDelimited) info.name = r.string();
    else if (r.field === VALUE_INFO.type && r.wireType === WireType.LengthDelimited) typeReader = r.sub();
    else if (r.field === VALUE_INFO.docString && r.wireType === WireType.LengthDelimited) info.docString = r.string();
    else r.skip();
  }
  // Decoded after the name is known, so errors can name the value.
  if (typeReader) info.type = decodeTypeProto(typeReader, `value '${info.name}' (${where})`);
  return info;
}
