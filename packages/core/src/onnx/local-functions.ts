/**
 * Model-local functions (ModelProto.functions): a FunctionProto names an op (domain, name, overload) and
 * defines it as a body of nodes over formal inputs, outputs and attributes. The decoder keeps their bytes
 * (functionProtos); this module decodes them into bodies that inline-functions.ts expands at each call.
 */
import { Graph, type AttributeValue, type Model, type OpsetImports } from '../ir/graph.js';
import { decodeAttribute, decodeNode } from './decode-graph.js';
import { decodeOpsetId, functionProtos } from './decode-model.js';
import { FUNCTION, IR10_FIELDS } from './fields.js';
import { ProtoReader, WireType, invalid } from './wire-reader.js';

export interface LocalFunction {
  name: string;
  domain: string;
  /** IR 10+: '' when the function has no overload. */
  overload: string;
  inputs: string[];
  outputs: string[];
  /** Attribute names the function takes (with and without defaults). */
  attributes: string[];
  /** Defaults (FunctionProto.attribute_proto), used when a call does not give the attribute. */
  defaults: Map<string, AttributeValue>;
  /** The body: nodes only (no inputs, outputs or initializers); `attributeRefs` mark attributes taken from the call. */
  body: Graph;
  opsetImports: OpsetImports;
}

/** The key a call (node domain, op_type, overload) and a function share. */
export function functionKey(domain: string, name: string, overload = ''): string {
  return `${domain === 'ai.onnx' ? '' : domain}\u0000${name}\u0000${overload}`;
}

/** The model's local functions by key; empty when it has none (or was not decoded from bytes). */
export function localFunctions(model: Model): Map<string, LocalFunction> {
  const out = new Map<string, LocalFunction>();
  for (const bytes of functionProtos.get(model) ?? []) {
    const f = decodeFunctionProto(new ProtoReader(bytes));
    const key = functionKey(f.domain, f.name, f.overload);
    if (out.has(key)) throw invalid(`model-local function '${f.domain}.${f.name}'${f.overload ? ` (overload '${f.overload}')` : ''} is defined twice`);
    out.set(key, f);
  }
  return out;
}

function decodeFunctionProto(r: ProtoReader): LocalFunction {
  const f: Omit<LocalFunction, 'body'> = { name: '', domain: '', overload: '', inputs: [], outputs: [], attributes: [], defaults: new Map(), opsetImports: new Map() };
  const nodes: ProtoReader[] = [];
  const defaults: ProtoReader[] = [];
  while (r.next()) {
    if (r.wireType !== WireType.LengthDelimited) {
      r.skip();
      continue;
    }
    switch (r.field) {
      case FUNCTION.name: f.name = r.string(); break;
      case FUNCTION.domain: f.domain = r.string(); break;
      case IR10_FIELDS.functionOverload: f.overload = r.string(); break;
      case FUNCTION.input: f.inputs.push(r.string()); break;
      case FUNCTION.output: f.outputs.push(r.string()); break;
      case FUNCTION.attribute: f.attributes.push(r.string()); break;
      case IR10_FIELDS.functionAttributeProto: defaults.push(r.sub()); break;
      case FUNCTION.node: nodes.push(r.sub()); break;
      case FUNCTION.opsetImport: {
        const [domain, version] = decodeOpsetId(r.sub());
        f.opsetImports.set(domain, version);
        break;
      }
      default: r.skip();
    }
  }
  if (f.domain === 'ai.onnx') f.domain = '';
  const where = `model-local function '${f.domain ? `${f.domain}.` : ''}${f.name}'`;
  if (!f.name) throw invalid('a model-local function has no name');
  // The body decodes like a graph's nodes; its subgraphs (an If inside the function) hang off this holder.
  const body = new Graph({ name: f.name, opsetImports: f.opsetImports });
  const options = { depth: 1 };
  for (const d of defaults) {
    const decoded = decodeAttribute(d, body, options, `${where}, attribute_proto`);
    if ('ref' in decoded) throw invalid(`${where}: the default of attribute '${decoded.name}' refers to another attribute`);
    f.defaults.set(decoded[0], decoded[1]);
    if (!f.attributes.includes(decoded[0])) f.attributes.push(decoded[0]);
  }
  nodes.forEach((n, i) => decodeNode(n, body, options, i, where));
  return { ...f, body };
}
