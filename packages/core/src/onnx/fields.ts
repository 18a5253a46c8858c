/** Field numbers of the ONNX messages Switchyard reads and writes (from onnx.proto / onnx-data.proto). */

export const MODEL = {
  irVersion: 1,
  producerName: 2,
  producerVersion: 3,
  domain: 4,
  modelVersion: 5,
  docString: 6,
  graph: 7,
  opsetImport: 8,
  metadataProps: 14,
  functions: 25,
} as const;

export const OPSET_ID = { domain: 1, version: 2 } as const;
export const STRING_ENTRY = { key: 1, value: 2 } as const;
export const FUNCTION = { name: 1, input: 4, output: 5, attribute: 6, node: 7, opsetImport: 9, domain: 10 } as const;

export const GRAPH = {
  node: 1,
  name: 2,
  initializer: 5,
  docString: 10,
  input: 11,
  output: 12,
  valueInfo: 13,
  sparseInitializer: 15,
} as const;

export const NODE = { input: 1, output: 2, name: 3, opType: 4, attribute: 5, docString: 6, domain: 7, overload: 8 } as const;
/**
 * Fields added in IR 10–11 that the decoder knowingly skips: metadata_props on nodes (9), value infos (4),
 * graphs (16), tensors (16) and functions (14); NodeProto.device_configurations (10);
 * ModelProto.configuration (26); FunctionProto's attribute_proto (11), value_info (12), overload (13).
 * Every unknown field is skipped in any case; these are named for the tests that build them.
 */
export const IR10_FIELDS = {
  nodeMetadata: 9,
  nodeDeviceConfigurations: 10,
  valueInfoMetadata: 4,
  graphMetadata: 16,
  tensorMetadata: 16,
  modelConfiguration: 26,
  functionAttributeProto: 11,
  functionValueInfo: 12,
  functionOverload: 13,
  functionMetadata: 14,
} as const;

export const ATTRIBUTE = {
  name: 1,
  f: 2,
  i: 3,
  s: 4,
  t: 5,
  g: 6,
  floats: 7,
  ints: 8,
  strings: 9,
  tensors: 10,
  graphs: 11,
  docString: 13,
  tp: 14,
  typeProtos: 15,
  type: 20,
  refAttrName: 21,
  sparseTensor: 22,
  sparseTensors: 23,
} as const;

/** AttributeProto.AttributeType numbers. */
export const ATTRIBUTE_TYPE = {
  float: 1,
  int: 2,
  string: 3,
  tensor: 4,
  graph: 5,
  floats: 6,
  ints: 7,
  strings: 8,
  tensors: 9,
  graphs: 10,
  sparse_tensor: 11,
  sparse_tensors: 12,
  type_proto: 13,
  type_protos: 14,
} as const;

export const VALUE_INFO = { name: 1, type: 2, docString: 3 } as const;

export const TENSOR = {
  dims: 1,
  dataType: 2,
  segment: 3,
  floatData: 4,
  int32Data: 5,
  stringData: 6,
  int64Data: 7,
  name: 8,
  rawData: 9,
  doubleData: 10,
  uint64Data: 11,
  docString: 12,
  externalData: 13,
  dataLocation: 14,
} as const;

/** TensorProto.DataLocation.EXTERNAL */
export const DATA_LOCATION_EXTERNAL = 1;

export const SPARSE_TENSOR = { values: 1, indices: 2, dims: 3 } as const;

export const TYPE = {
  tensorType: 1,
  sequenceType: 4,
  mapType: 5,
  denotation: 6,
  opaqueType: 7,
  sparseTensorType: 8,
  optionalType: 9,
} as const;
export const TYPE_TENSOR = { elemType: 1, shape: 2 } as const;
/** Sequence and Optional hold one nested TypeProto. */
export const TYPE_ELEM = { elemType: 1 } as const;
export const SHAPE = { dim: 1 } as const;
export const DIMENSION = { dimValue: 1, dimParam: 2, denotation: 3 } as const;

/** SequenceProto / OptionalProto (onnx-data.proto). */
export const SEQUENCE = { name: 1, elemType: 2, tensorValues: 3, sparseTensorValues: 4, sequenceValues: 5, mapValues: 6, optionalValues: 7 } as const;
export const OPTIONAL = { name: 1, elemType: 2, tensorValue: 3, sparseTensorValue: 4, sequenceValue: 5, mapValue: 6, optionalValue: 7 } as const;
/** SequenceProto.DataType / OptionalProto.DataType. */
export const VALUE_KIND = { undefined: 0, tensor: 1, sparseTensor: 2, sequence: 3, map: 4, optional: 5 } as const;
