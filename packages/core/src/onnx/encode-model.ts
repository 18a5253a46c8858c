/**
 * Model → ModelProto bytes. Repeated scalars are written unpacked except TensorProto's data fields, as
 * onnx.proto declares them, so any protobuf reader (ONNX's own included) accepts the result.
 */
import type { AttributeValue, Graph, Model, Node, ValueInfo, ValueType } from '../ir/graph.js';
import { ONNX_DATA_TYPE } from '../tensor/data-type.js';
import { ATTRIBUTE, ATTRIBUTE_TYPE, DIMENSION, FUNCTION, GRAPH, MODEL, NODE, OPSET_ID, SHAPE, STRING_ENTRY, TYPE, TYPE_ELEM, TYPE_TENSOR, VALUE_INFO } from './fields.js';
import { functionProtos } from './decode-model.js';
import { writeTensorProto } from './encode-tensor.js';
import { ProtoWriter } from './wire-writer.js';

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();

export function writeTypeProto(w: ProtoWriter, type: ValueType): void {
  switch (type.kind) {
    case 'tensor':
      w.message(TYPE.tensorType, (t) => {
        t.int64(TYPE_TENSOR.elemType, ONNX_DATA_TYPE[type.elemType]);
        if (type.shape) {
          const shape = type.shape;
          t.message(TYPE_TENSOR.shape, (s) => {
            for (const d of shape) {
              s.message(SHAPE.dim, (dim) => {
                if (typeof d === 'number') dim.int64(DIMENSION.dimValue, d);
                else if (typeof d === 'string') dim.string(DIMENSION.dimParam, d);
              });
            }
          });
        }
      });
      return;
    case 'sequence':
    case 'optional': {
      const elem = type.elem;
      w.message(type.kind === 'sequence' ? TYPE.sequenceType : TYPE.optionalType, (s) => {
        if (elem) s.message(TYPE_ELEM.elemType, (e) => writeTypeProto(e, elem));
      });
      return;
    }
    case 'map':
      // The IR keeps maps opaque; an empty map_type still says "a map".
      w.message(TYPE.mapType, () => {});
      return;
    case 'opaque':
      w.message(TYPE.opaqueType, () => {});
      return;
    case 'unknown':
      return;
  }
}

function writeValueInfo(w: ProtoWriter, v: ValueInfo): void {
  w.string(VALUE_INFO.name, v.name);
  const type = v.type;
  if (type) w.message(VALUE_INFO.type, (t) => writeTypeProto(t, type));
  if (v.docString !== undefined) w.string(VALUE_INFO.docString, v.docString);
}

function writeAttribute(w: ProtoWriter, name: string, a: AttributeValue): void {
  w.string(ATTRIBUTE.name, name);
  w.int64(ATTRIBUTE.type, ATTRIBUTE_TYPE[a.type]);
  switch (a.type) {
    case 'float': w.float(ATTRIBUTE.f, a.value); break;
    case 'int': w.int64(ATTRIBUTE.i, a.value); break;
    case 'string':
      // `bytes` is authoritative unless a pass edited `value` without it.
      w.bytes(ATTRIBUTE.s, utf8Decoder.decode(a.bytes) === a.value ? a.bytes : utf8.encode(a.value));
      break;
    case 'tensor': w.message(ATTRIBUTE.t, (t) => writeTensorProto(t, a.value)); break;
    case 'graph': w.message(ATTRIBUTE.g, (g) => writeGraph(g, a.value)); break;
    case 'floats': for (const f of a.value) w.float(ATTRIBUTE.floats, f); break;
    case 'ints': for (const i of a.value) w.int64(ATTRIBUTE.ints, i); break;
    case 'strings': for (const s of a.value) w.string(ATTRIBUTE.strings, s); break;
    case 'tensors': for (const t of a.value) w.message(ATTRIBUTE.tensors, (m) => writeTensorProto(m, t)); break;
    case 'graphs': for (const g of a.value) w.message(ATTRIBUTE.graphs, (m) => writeGraph(m, g)); break;
    case 'sparse_tensor': w.bytes(ATTRIBUTE.sparseTensor, a.value); break;
    case 'type_proto': w.bytes(ATTRIBUTE.tp, a.value); break;
    // Lists the IR keeps as their verbatim field occurrences (tags included).
    case 'sparse_tensors':
    case 'type_protos':
      w.raw(a.value);
      break;
  }
}

function writeNode(w: ProtoWriter, n: Node): void {
  for (const i of n.inputs) w.string(NODE.input, i);
  for (const o of n.outputs) w.string(NODE.output, o);
  if (n.name) w.string(NODE.name, n.name);
  w.string(NODE.opType, n.opType);
  for (const [name, a] of n.attributes) w.message(NODE.attribute, (m) => writeAttribute(m, name, a));
  if (n.docString !== undefined) w.string(NODE.docString, n.docString);
  if (n.domain) w.string(NODE.domain, n.domain);
  if (n.overload) w.string(NODE.overload, n.overload);
}

export function writeGraph(w: ProtoWriter, g: Graph): void {
  for (const n of g.nodes) w.message(GRAPH.node, (m) => writeNode(m, n));
  w.string(GRAPH.name, g.name);
  for (const [name, t] of g.initializers) w.message(GRAPH.initializer, (m) => writeTensorProto(m, t, name));
  if (g.docString !== undefined) w.string(GRAPH.docString, g.docString);
  for (const v of g.inputs) w.message(GRAPH.input, (m) => writeValueInfo(m, v));
  for (const v of g.outputs) w.message(GRAPH.output, (m) => writeValueInfo(m, v));
  for (const v of g.valueInfo.values()) w.message(GRAPH.valueInfo, (m) => writeValueInfo(m, v));
}

/** Encodes a Model as ModelProto bytes (initializers as raw_data). */
export function encodeModel(model: Model): Uint8Array {
  const w = new ProtoWriter();
  w.int64(MODEL.irVersion, model.irVersion);
  if (model.producerName) w.string(MODEL.producerName, model.producerName);
  if (model.producerVersion) w.string(MODEL.producerVersion, model.producerVersion);
  if (model.domain) w.string(MODEL.domain, model.domain);
  if (model.modelVersion) w.int64(MODEL.modelVersion, model.modelVersion);
  if (model.docString) w.string(MODEL.docString, model.docString);
  w.message(MODEL.graph, (g) => writeGraph(g, model.graph));
  for (const [domain, version] of model.opsetImports) {
    w.message(MODEL.opsetImport, (o) => {
      o.string(OPSET_ID.domain, domain);
      o.int64(OPSET_ID.version, version);
    });
  }
  for (const [key, value] of model.metadata) {
    w.message(MODEL.metadataProps, (e) => {
      e.string(STRING_ENTRY.key, key);
      e.string(STRING_ENTRY.value, value);
    });
  }
  // Function bodies survive only for models this module decoded; otherwise a name-only entry keeps the list.
  const bodies = functionProtos.get(model);
  if (bodies && bodies.length === model.functionNames.length) {
    for (const b of bodies) w.bytes(MODEL.functions, b);
  } else {
    for (const name of model.functionNames) w.message(MODEL.functions, (f) => f.string(FUNCTION.name, name));
  }
  return w.finish();
}
