/** GraphProto / NodeProto / AttributeProto → the IR's Graph, Node and AttributeValue. */
import { Graph, type AttributeValue, type OpsetImports, type ValueInfo } from '../ir/graph.js';
import type { Tensor } from '../tensor/tensor.js';
import { ATTRIBUTE, ATTRIBUTE_TYPE, GRAPH, NODE } from './fields.js';
import { type ExternalDataReader, type RawDataSource, copyBytes, decodeTensorProto } from './decode-tensor.js';
import { decodeSparseTensorProto } from './decode-sparse.js';
import { decodeValueInfo } from './decode-type.js';
import { ProtoReader, WireType, invalid } from './wire-reader.js';

/** Subgraphs (If/Loop/Scan bodies) nested deeper than this are refused: no real model comes close. */
export const MAX_GRAPH_DEPTH = 64;

export interface GraphDecodeOptions {
  external?: ExternalDataReader;
  /** Initializer payloads read separately from the model bytes. */
  rawData?: RawDataSource;
  /** Levels of subgraph nesting above this graph (0 for the main graph). */
  depth: number;
}

const utf8 = new TextDecoder();

/** Decodes a GraphProto. The main graph gets the model's opset imports; subgraphs inherit through `parent`. */
export function decodeGraphProto(r: ProtoReader, opsetImports: OpsetImports, parent: Graph | undefined, options: GraphDecodeOptions, where: string): Graph {
  if (options.depth > MAX_GRAPH_DEPTH) throw invalid(`${where}: subgraphs nested deeper than ${MAX_GRAPH_DEPTH} levels`);
  // First pass: spans by field, so the graph's name and object exist before nodes (and their subgraphs) are decoded.
  const spans = { node: [] as ProtoReader[], init: [] as ProtoReader[], sparse: [] as ProtoReader[], input: [] as ProtoReader[], output: [] as ProtoReader[], info: [] as ProtoReader[] };
  let name = '';
  let docString: string | undefined;
  while (r.next()) {
    if (r.wireType !== WireType.LengthDelimited) {
      r.skip();
      continue;
    }
    switch (r.field) {
      case GRAPH.node: spans.node.push(r.sub()); break;
      case GRAPH.name: name = r.string(); break;
      case GRAPH.initializer: spans.init.push(r.sub()); break;
      case GRAPH.sparseInitializer: spans.sparse.push(r.sub()); break;
      case GRAPH.docString: docString = r.string(); break;
      case GRAPH.input: spans.input.push(r.sub()); break;
      case GRAPH.output: spans.output.push(r.sub()); break;
      case GRAPH.valueInfo: spans.info.push(r.sub()); break;
      default: r.skip();
    }
  }
  const graph = new Graph({ name, opsetImports, parent });
  if (docString !== undefined) graph.docString = docString;
  const gWhere = `graph '${name}'${parent ? ` (${where})` : ''}`;

  const tensorOptions = { where: `initializer of ${gWhere}`, external: options.external, rawData: options.rawData };
  const addInitializer = (t: { name: string; tensor: Tensor }): void => {
    if (graph.initializers.has(t.name)) throw invalid(`${gWhere}: initializer '${t.name}' is defined twice`);
    graph.initializers.set(t.name, t.tensor);
  };
  for (const s of spans.init) addInitializer(decodeTensorProto(s, tensorOptions));
  for (const s of spans.sparse) addInitializer(decodeSparseTensorProto(s, tensorOptions));
  const infos = (list: ProtoReader[], role: string): ValueInfo[] => list.map((s) => decodeValueInfo(s, `${role} of ${gWhere}`));
  graph.inputs = infos(spans.input, 'input');
  graph.outputs = infos(spans.output, 'output');
  for (const v of infos(spans.info, 'value_info')) graph.valueInfo.set(v.name, v);

  for (let i = 0; i < spans.node.length; i++) decodeNode(spans.node[i], graph, options, i, gWhere);
  return graph;
}

/** Decodes one NodeProto and adds it to `graph` (function bodies use it too). */
export function decodeNode(r: ProtoReader, graph: Graph, options: GraphDecodeOptions, index: number, gWhere: string): void {
  const inputs: string[] = [];
  const outputs: string[] = [];
  const attrs: ProtoReader[] = [];
  let name = '';
  let opType = '';
  let domain = '';
  let overload = '';
  let docString: string | undefined;
  while (r.next()) {
    if (r.wireType !== WireType.LengthDelimited) {
      r.skip();
      continue;
    }
    switch (r.field) {
      case NODE.input: inputs.push(r.string()); break;
      case NODE.output: outputs.push(r.string()); break;
      case NODE.name: name = r.string(); break;
      case NODE.opType: opType = r.string(); break;
      case NODE.attribute: attrs.push(r.sub()); break;
      case NODE.docString: docString = r.string(); break;
      case NODE.domain: domain = r.string(); break;
      case NODE.overload: overload = r.string(); break;
      default: r.skip();
    }
  }
  if (!opType) throw invalid(`node #${index} ('${name}') of ${gWhere}: node has no op_type`);
  const nWhere = `node #${index} '${name}' (${opType}) in ${gWhere}`;
  const attributes = new Map<string, AttributeValue>();
  let refs: Map<string, string> | undefined;
  for (const a of attrs) {
    const decoded = decodeAttribute(a, graph, options, nWhere);
    if ('ref' in decoded) (refs ??= new Map()).set(decoded.name, decoded.ref);
    else attributes.set(decoded[0], decoded[1]);
  }
  const node = graph.addNode({ name, opType, domain: domain === 'ai.onnx' ? '' : domain, inputs, outputs, attributes });
  if (docString !== undefined) node.docString = docString;
  if (overload) node.overload = overload;
  if (refs) node.attributeRefs = refs;
}

type AttrKind = AttributeValue['type'];
const KIND_BY_NUMBER = new Map<number, AttrKind>(Object.entries(ATTRIBUTE_TYPE).map(([k, v]) => [v, k as AttrKind]));

/**
 * Decodes one AttributeProto into [name, value], or, for a reference to an attribute of the enclosing
 * function (`ref_attr_name`, only meaningful in a function body), the name and the one it refers to.
 */
export function decodeAttribute(r: ProtoReader, graph: Graph, options: GraphDecodeOptions, where: string): [string, AttributeValue] | { name: string; ref: string } {
  let name = '';
  let typeNumber = 0;
  let refAttr: string | undefined;
  let f: number | undefined;
  let i: number | undefined;
  let s: Uint8Array | undefined;
  let t: ProtoReader | undefined;
  let g: ProtoReader | undefined;
  let single: Uint8Array | undefined; // sparse_tensor / tp payload
  const floats: number[] = [];
  const ints: number[] = [];
  const strings: Uint8Array[] = [];
  const tensors: ProtoReader[] = [];
  const graphs: ProtoReader[] = [];
  const lists = { sparse: [] as [number, number][], tp: [] as [number, number][] };
  while (r.next()) {
    switch (r.field) {
      case ATTRIBUTE.name: r.expect(WireType.LengthDelimited); name = r.string(); break;
      case ATTRIBUTE.type: r.expect(WireType.Varint); typeNumber = r.int32(); break;
      case ATTRIBUTE.refAttrName: r.expect(WireType.LengthDelimited); refAttr = r.string(); break;
      case ATTRIBUTE.f: r.expect(WireType.Fixed32); f = r.float(); break;
      case ATTRIBUTE.i: r.expect(WireType.Varint); i = r.int64(); break;
      case ATTRIBUTE.s: r.expect(WireType.LengthDelimited); s = r.bytesView(); break;
      case ATTRIBUTE.t: r.expect(WireType.LengthDelimited); t = r.sub(); break;
      case ATTRIBUTE.g: r.expect(WireType.LengthDelimited); g = r.sub(); break;
      case ATTRIBUTE.sparseTensor:
      case ATTRIBUTE.tp:
        r.expect(WireType.LengthDelimited);
        single = r.bytesView();
        break;
      case ATTRIBUTE.floats: r.repeated(WireType.Fixed32, () => floats.push(r.float())); break;
      case ATTRIBUTE.ints: r.repeated(WireType.Varint, () => ints.push(r.int64())); break;
      case ATTRIBUTE.strings: r.expect(WireType.LengthDelimited); strings.push(r.bytesView()); break;
      case ATTRIBUTE.tensors: r.expect(WireType.LengthDelimited); tensors.push(r.sub()); break;
      case ATTRIBUTE.graphs: r.expect(WireType.LengthDelimited); graphs.push(r.sub()); break;
      case ATTRIBUTE.sparseTensors:
      case ATTRIBUTE.typeProtos: {
        const at = r.tagPos;
        r.skip();
        (r.field === ATTRIBUTE.sparseTensors ? lists.sparse : lists.tp).push([at, r.pos]);
        break;
      }
      default: r.skip();
    }
  }
  if (refAttr !== undefined) return { name, ref: refAttr };
  const aWhere = `attribute '${name}' of ${where}`;
  let kind = KIND_BY_NUMBER.get(typeNumber);
  if (typeNumber === 0) kind = inferKind();
  if (!kind) throw invalid(`${aWhere}: unknown attribute type ${typeNumber}`);
  const sub = { external: options.external, depth: options.depth + 1 };

  function inferKind(): AttrKind | undefined {
    // Files from before AttributeProto.type existed: the one field that is set decides.
    if (f !== undefined) return 'float';
    if (i !== undefined) return 'int';
    if (s !== undefined) return 'string';
    if (t) return 'tensor';
    if (g) return 'graph';
    if (floats.length) return 'floats';
    if (ints.length) return 'ints';
    if (strings.length) return 'strings';
    if (tensors.length) return 'tensors';
    if (graphs.length) return 'graphs';
    return undefined;
  }
  const missing = (): never => {
    throw invalid(`${aWhere}: declared ${kind} but holds no ${kind} value`);
  };
  const tensorOf = (tr: ProtoReader) => decodeTensorProto(tr, { where: aWhere, external: options.external }).tensor;
  const graphOf = (gr: ProtoReader) => decodeGraphProto(gr, new Map(), graph, sub, aWhere);
  // Lists of sparse tensors / type protos have no IR form: their field occurrences are kept verbatim (tags included).
  const verbatim = (spans: [number, number][]): Uint8Array => {
    const parts = spans.map(([a, b]) => r.bytes.subarray(a, b));
    const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const p of parts) (out.set(p, at), (at += p.length));
    return out;
  };

  let value: AttributeValue;
  switch (kind) {
    case 'float': value = { type: 'float', value: f ?? missing() }; break;
    case 'int': value = { type: 'int', value: i ?? missing() }; break;
    case 'string': {
      const bytes = s ?? new Uint8Array(0);
      value = { type: 'string', value: utf8.decode(bytes), bytes: copyBytes(bytes, 0, bytes.length) };
      break;
    }
    case 'tensor': value = { type: 'tensor', value: tensorOf(t ?? missing()) }; break;
    case 'graph': value = { type: 'graph', value: graphOf(g ?? missing()) }; break;
    case 'floats': value = { type: 'floats', value: floats }; break;
    case 'ints': value = { type: 'ints', value: ints }; break;
    case 'strings': value = { type: 'strings', value: strings.map((b) => utf8.decode(b)) }; break;
    case 'tensors': value = { type: 'tensors', value: tensors.map(tensorOf) }; break;
    case 'graphs': value = { type: 'graphs', value: graphs.map(graphOf) }; break;
    case 'sparse_tensor':
    case 'type_proto': {
      const b = single ?? missing();
      value = { type: kind, value: copyBytes(b, 0, b.length) };
      break;
    }
    case 'sparse_tensors': value = { type: kind, value: verbatim(lists.sparse) }; break;
    case 'type_protos': value = { type: kind, value: verbatim(lists.tp) }; break;
  }
  return [name, value];
}
