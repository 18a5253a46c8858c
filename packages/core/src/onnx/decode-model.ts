/** ModelProto → Model, with every failure turned into a SwitchyardError. */
import { SwitchyardError } from '../errors.js';
import type { Model, OpsetImports } from '../ir/graph.js';
import { FUNCTION, MODEL, OPSET_ID, STRING_ENTRY } from './fields.js';
import type { ExternalDataReader, RawDataSource } from './decode-tensor.js';
import { decodeGraphProto } from './decode-graph.js';
import { sortGraphTopologically } from '../ir/topological-order.js';
import { ProtoReader, WireType, invalid } from './wire-reader.js';

export const MIN_IR_VERSION = 3;
/** The newest IR version onnx 1.23 writes; later versions may change semantics, so they are refused. */
export const MAX_IR_VERSION = 14;

/**
 * The FunctionProto bytes of each decoded model. The IR keeps only function names; encodeModel writes
 * these back so a load → encode round trip does not drop the bodies.
 */
export const functionProtos = new WeakMap<Model, Uint8Array[]>();

export function decodeOpsetId(r: ProtoReader): [string, number] {
  let domain = '';
  let version = 0;
  while (r.next()) {
    if (r.field === OPSET_ID.domain && r.wireType === WireType.LengthDelimited) domain = r.string();
    else if (r.field === OPSET_ID.version && r.wireType === WireType.Varint) version = r.int64();
    else r.skip();
  }
  if (domain === 'ai.onnx') domain = '';
  if (!Number.isSafeInteger(version) || version < 1) throw invalid(`opset import for domain '${domain}' has version ${version}`);
  return [domain, version];
}

function decodeEntry(r: ProtoReader): [string, string] {
  let key = '';
  let value = '';
  while (r.next()) {
    if (r.field === STRING_ENTRY.key && r.wireType === WireType.LengthDelimited) key = r.string();
    else if (r.field === STRING_ENTRY.value && r.wireType === WireType.LengthDelimited) value = r.string();
    else r.skip();
  }
  return [key, value];
}

function functionName(r: ProtoReader): string {
  let name = '';
  while (r.next()) {
    if (r.field === FUNCTION.name && r.wireType === WireType.LengthDelimited) name = r.string();
    else r.skip();
  }
  return name;
}

function decodeModelUnchecked(bytes: Uint8Array, external: ExternalDataReader | undefined, rawData: RawDataSource | undefined): Model {
  if (bytes.length === 0) throw invalid('model is empty (0 bytes)');
  const r = new ProtoReader(bytes);
  let irVersion = 0;
  let graphReader: ProtoReader | undefined;
  const opsetImports: OpsetImports = new Map();
  const metadata = new Map<string, string>();
  const functionNames: string[] = [];
  const functions: Uint8Array[] = [];
  const text = { producerName: '', producerVersion: '', domain: '', docString: '' };
  let modelVersion = 0;
  while (r.next()) {
    switch (r.field) {
      case MODEL.irVersion: r.expect(WireType.Varint); irVersion = r.int64(); break;
      case MODEL.producerName: r.expect(WireType.LengthDelimited); text.producerName = r.string(); break;
      case MODEL.producerVersion: r.expect(WireType.LengthDelimited); text.producerVersion = r.string(); break;
      case MODEL.domain: r.expect(WireType.LengthDelimited); text.domain = r.string(); break;
      case MODEL.modelVersion: r.expect(WireType.Varint); modelVersion = r.int64(); break;
      case MODEL.docString: r.expect(WireType.LengthDelimited); text.docString = r.string(); break;
      case MODEL.graph: r.expect(WireType.LengthDelimited); graphReader = r.sub(); break;
      case MODEL.opsetImport: {
        r.expect(WireType.LengthDelimited);
        const [d, v] = decodeOpsetId(r.sub());
        opsetImports.set(d, v);
        break;
      }
      case MODEL.metadataProps: {
        r.expect(WireType.LengthDelimited);
        const [k, v] = decodeEntry(r.sub());
        metadata.set(k, v);
        break;
      }
      case MODEL.functions: {
        r.expect(WireType.LengthDelimited);
        const f = r.sub();
        functions.push(f.bytes.slice(f.pos, f.end));
        functionNames.push(functionName(f));
        break;
      }
      default: r.skip();
    }
  }
  if (irVersion === 0 && !graphReader) throw invalid('not an ONNX model: no ir_version and no graph found');
  if (irVersion < MIN_IR_VERSION || irVersion > MAX_IR_VERSION) {
    const code = irVersion >= 1 && irVersion <= 2 ? 'UNSUPPORTED' : irVersion > MAX_IR_VERSION ? 'UNSUPPORTED' : 'INVALID_MODEL';
    throw new SwitchyardError(code, `ONNX IR version ${irVersion} is not supported (Switchyard reads IR versions ${MIN_IR_VERSION} to ${MAX_IR_VERSION})`);
  }
  if (!graphReader) throw invalid('ONNX model has no graph');
  // From IR version 3 on, ONNX requires the opsets to be stated; without them no operator can be resolved.
  if (opsetImports.size === 0) throw invalid('ONNX model has no opset_import');
  const graph = decodeGraphProto(graphReader, opsetImports, undefined, { external, rawData, depth: 0 }, 'main graph');
  // Files need not list nodes in order (converters append nodes); every later stage relies on it.
  sortGraphTopologically(graph);
  const model: Model = { irVersion, opsetImports, ...text, modelVersion, metadata, graph, functionNames };
  if (functions.length) functionProtos.set(model, functions);
  return model;
}

/**
 * Decodes ModelProto bytes. Anything thrown that is not already a SwitchyardError (a stack overflow from
 * pathological nesting, say) becomes INVALID_MODEL, so callers see one error type for bad files.
 */
export function decodeModel(bytes: Uint8Array, external?: ExternalDataReader, rawData?: RawDataSource): Model {
  try {
    return decodeModelUnchecked(bytes, external, rawData);
  } catch (e) {
    throw asModelError(e);
  }
}

export function asModelError(e: unknown): SwitchyardError {
  if (e instanceof SwitchyardError) return e;
  const msg = e instanceof Error ? e.message : String(e);
  return new SwitchyardError('INVALID_MODEL', `malformed ONNX data: ${msg}`, { cause: e });
}
