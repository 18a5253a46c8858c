/** ONNX files: ModelProto ⇄ Model, and standalone tensor / sequence / optional value files. */
export { loadModel, type LoadModelOptions } from './load-model.js';
export { decodeModel, MIN_IR_VERSION, MAX_IR_VERSION } from './decode-model.js';
export { MAX_GRAPH_DEPTH } from './decode-graph.js';
export { encodeModel } from './encode-model.js';
export { encodeTensor } from './encode-tensor.js';
export type { ExternalDataReader, ExternalDataRequest } from './decode-tensor.js';
export {
  decodeTensor,
  decodeSequence,
  decodeOptional,
  decodeValue,
  readTensorName,
  type StoredValue,
} from './data-files.js';
