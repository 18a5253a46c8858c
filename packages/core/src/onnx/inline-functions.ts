/**
 * Expands every call of a model-local function into the function's body, before anything else looks at
 * the graph (placement, optimization and kernels then see ordinary ops), as onnxruntime does. Each call
 * gets its own copy of the body: formal inputs and outputs become the call's values, values inside the
 * body get names of their own (`<call>/<value>`), attributes marked `ref_attr_name` take the call's
 * attribute (or the function's default, or are left out), and calls inside a body expand in turn.
 */
import { SwitchyardError } from '../errors.js';
import type { AttributeValue, Graph, Model, Node } from '../ir/graph.js';
import { Tensor } from '../tensor/tensor.js';
import { functionKey, localFunctions, type LocalFunction } from './local-functions.js';
import { invalid } from './wire-reader.js';

/** Calls nested deeper than this (a function calling itself, directly or not) are refused. */
export const MAX_FUNCTION_DEPTH = 32;

/** Expands the calls of `model`'s local functions in place; returns how many calls were expanded. */
export function inlineLocalFunctions(model: Model): number {
  const functions = localFunctions(model);
  if (functions.size === 0) return 0;
  const taken = new Set<string>();
  collectNames(model.graph, taken);
  const fresh = (wanted: string): string => {
    let name = wanted;
    for (let k = 2; taken.has(name); k++) name = `${wanted}#${k}`;
    taken.add(name);
    return name;
  };
  let calls = 0;

  const expandGraph = (graph: Graph, stack: readonly string[]): void => {
    const out: Node[] = [];
    const visit = (node: Node, stack: readonly string[]): void => {
      const key = functionKey(node.domain, node.opType, node.overload ?? '');
      const fn = functions.get(key);
      if (!fn) {
        for (const sub of subgraphsOf(node)) expandGraph(sub, stack);
        out.push(node);
        return;
      }
      const label = `${fn.domain ? `${fn.domain}.` : ''}${fn.name}`;
      if (stack.includes(key)) throw invalid(`model-local function '${label}' calls itself (through ${stack.length} call(s)); recursion cannot be expanded`);
      if (stack.length >= MAX_FUNCTION_DEPTH) throw invalid(`model-local function calls nested deeper than ${MAX_FUNCTION_DEPTH} levels at '${label}'`);
      adoptOpsets(model, fn, label);
      calls++;
      for (const n of instantiate(fn, node, graph, fresh, label)) visit(n, [...stack, key]);
    };
    for (const node of graph.nodes) visit(node, stack);
    graph.nodes = out;
  };
  expandGraph(model.graph, []);
  return calls;
}

/** The body's nodes for one call, with the call's values and attributes substituted. */
function instantiate(fn: LocalFunction, call: Node, graph: Graph, fresh: (wanted: string) => string, label: string): Node[] {
  const where = `node '${call.name || call.opType}' calling model-local function '${label}'`;
  if (call.inputs.length > fn.inputs.length) throw invalid(`${where}: ${call.inputs.length} inputs given, the function takes ${fn.inputs.length}`);
  if (call.outputs.length > fn.outputs.length) throw invalid(`${where}: ${call.outputs.length} outputs given, the function has ${fn.outputs.length}`);
  const prefix = call.name || `${fn.name}_${call.id}`;
  const rename = new Map<string, string>();
  fn.inputs.forEach((formal, i) => rename.set(formal, call.inputs[i] ?? ''));
  const nodes: Node[] = [];
  fn.outputs.forEach((formal, j) => {
    const actual = call.outputs[j] || fresh(`${prefix}/${formal}`);
    // An output that is one of the inputs passed through: ONNX allows it, an Identity makes it a value of its own.
    if (fn.inputs.includes(formal)) nodes.push(makeNode(graph, { name: `${prefix}/${formal}_passthrough`, opType: 'Identity', domain: '', inputs: [rename.get(formal)!], outputs: [actual] }));
    else rename.set(formal, actual);
  });
  for (const [index, body] of fn.body.nodes.entries()) {
    const inputs = body.inputs.map((v) => {
      if (v === '') return '';
      const actual = rename.get(v);
      if (actual === undefined) throw invalid(`${where}: the body's node '${body.name || body.opType}' reads '${v}', which is neither an input of the function nor computed before it`);
      return actual;
    });
    const outputs = body.outputs.map((v) => {
      if (v === '') return '';
      if (fn.outputs.includes(v) && !fn.inputs.includes(v)) return rename.get(v)!;
      const actual = fresh(`${prefix}/${v}`);
      rename.set(v, actual);
      return actual;
    });
    const attributes = new Map<string, AttributeValue>();
    for (const [name, value] of body.attributes) attributes.set(name, ownCopy(value, where));
    for (const [name, ref] of body.attributeRefs ?? []) {
      const value = call.attributes.get(ref) ?? fn.defaults.get(ref);
      if (value) attributes.set(name, ownCopy(value, where));
    }
    const node = makeNode(graph, { name: `${prefix}/${body.name || `${body.opType}_${index}`}`, opType: body.opType, domain: body.domain, inputs, outputs, attributes });
    if (body.overload) node.overload = body.overload;
    nodes.push(node);
  }
  return nodes;
}

function makeNode(graph: Graph, init: Omit<Node, 'id' | 'attributes'> & { attributes?: Map<string, AttributeValue> }): Node {
  return { id: graph.nextNodeId(), ...init, attributes: init.attributes ?? new Map() };
}

/**
 * A copy of an attribute for one call: tensors are copied (a session may release a constant's buffer once a
 * kernel has packed it, which must not reach another call's copy). Subgraphs would need their outer-scope
 * names renamed per call, which no exporter we know of needs: refused.
 */
function ownCopy(value: AttributeValue, where: string): AttributeValue {
  const copy = (t: Tensor): Tensor => new Tensor(t.type, t.data.slice() as Tensor['data'], t.dims);
  switch (value.type) {
    case 'tensor': return { type: 'tensor', value: copy(value.value) };
    case 'tensors': return { type: 'tensors', value: value.value.map(copy) };
    case 'graph':
    case 'graphs':
      throw new SwitchyardError('UNSUPPORTED', `${where}: a function body with subgraph attributes (If/Loop/Scan inside the function) is not supported`);
    default: return value;
  }
}

/** The function's opset imports join the model's; a domain imported at two versions cannot be honoured. */
function adoptOpsets(model: Model, fn: LocalFunction, label: string): void {
  for (const [domain, version] of fn.opsetImports) {
    const have = model.opsetImports.get(domain);
    if (have === undefined) {
      model.opsetImports.set(domain, version);
      if (model.graph.opsetImports !== model.opsetImports) model.graph.opsetImports.set(domain, version);
    } else if (have !== version) {
      throw new SwitchyardError('UNSUPPORTED', `model-local function '${label}' imports ${domain || 'ai.onnx'} version ${version}, the model version ${have}: expanding it would run its ops at another version`);
    }
  }
}

function subgraphsOf(node: Node): Graph[] {
  const out: Graph[] = [];
  for (const a of node.attributes.values()) {
    if (a.type === 'graph') out.push(a.value);
    else if (a.type === 'graphs') out.push(...a.value);
  }
  return out;
}

function collectNames(graph: Graph, into: Set<string>): void {
  for (const v of graph.inputs) into.add(v.name);
  for (const v of graph.outputs) into.add(v.name);
  for (const name of graph.initializers.keys()) into.add(name);
  for (const node of graph.nodes) {
    for (const o of node.outputs) if (o) into.add(o);
    for (const sub of subgraphsOf(node)) collectNames(sub, into);
  }
}
