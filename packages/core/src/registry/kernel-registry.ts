/**
 * The kernel registry: every EP's kernel definitions, looked up by node. A failed lookup answers
 * *why* (op unknown to the EP, opset outside the range, dtype, attribute) as data.
 */
import { SwitchyardError } from '../errors.js';
import type { Graph, Node } from '../ir/graph.js';
import { formalAt, resolveSchema, type OpSchema } from '../ops/schemas.js';
import type { DeclineReason, KernelDef } from './kernel-def.js';

export type LookupResult = { ok: true; def: KernelDef; schemaVersion: number } | { ok: false; reason: DeclineReason };

/** Lookup bound to one EP's kernels. */
export type KernelLookup = (node: Node, graph: Graph) => LookupResult;

function key(ep: string, domain: string, opType: string): string {
  return `${ep}|${domain === 'ai.onnx' ? '' : domain}|${opType}`;
}

function rangeText(def: KernelDef): string {
  return def.endVersion === undefined ? `${def.sinceVersion}+` : `${def.sinceVersion}–${def.endVersion}`;
}

/**
 * Checks a node's value dtypes against a kernel's type constraints, using the schema to know which
 * inputs/outputs carry which constraint name. Unknown dtypes pass (run time checks them).
 */
function checkTypes(def: KernelDef, schema: OpSchema | undefined, node: Node, graph: Graph): DeclineReason | undefined {
  if (!def.typeConstraints || !schema) return undefined;
  const sides: Array<[string[], OpSchema['inputs'], string]> = [
    [node.inputs, schema.inputs, 'input'],
    [node.outputs, schema.outputs, 'output'],
  ];
  for (const [names, formals, side] of sides) {
    for (let i = 0; i < names.length; i++) {
      if (!names[i]) continue;
      const formal = formalAt(formals, i);
      const allowed = formal && def.typeConstraints[formal.type];
      if (!allowed) continue;
      const dtype = graph.elemTypeOf(names[i]);
      if (dtype !== undefined && !allowed.includes(dtype)) {
        return {
          kind: 'dtype',
          message: `${side} ${i} ('${formal.name}') is ${dtype}; kernel serves ${formal.type} ∈ {${allowed.join(', ')}}`,
        };
      }
    }
  }
  return undefined;
}

export class KernelRegistry {
  readonly #defs = new Map<string, KernelDef[]>();

  /** Registers a kernel. Registering an overlapping opset range for the same EP/op throws. */
  register(def: KernelDef): void {
    const k = key(def.ep, def.domain, def.opType);
    let list = this.#defs.get(k);
    if (!list) this.#defs.set(k, (list = []));
    const end = def.endVersion ?? Infinity;
    for (const other of list) {
      const otherEnd = other.endVersion ?? Infinity;
      const overlaps = def.sinceVersion <= otherEnd && other.sinceVersion <= end;
      const sameTypes = JSON.stringify(def.typeConstraints ?? null) === JSON.stringify(other.typeConstraints ?? null);
      // Two implementations of one op (a native fast path and its TS fallback) may overlap; lookup tries them in order.
      const sameImplementation = (def.implementation ?? '') === (other.implementation ?? '');
      if (overlaps && sameTypes && sameImplementation) {
        throw new SwitchyardError(
          'INVALID_ARGUMENT',
          `duplicate kernel: ${def.ep} ${def.domain || 'ai.onnx'}::${def.opType} opset ${rangeText(def)} overlaps ${rangeText(other)}`,
        );
      }
    }
    list.push(def);
  }

  registerAll(defs: readonly KernelDef[]): void {
    for (const d of defs) this.register(d);
  }

  /** Every kernel an EP registered. */
  kernelsOf(ep: string): KernelDef[] {
    const out: KernelDef[] = [];
    for (const [k, list] of this.#defs) if (k.startsWith(`${ep}|`)) out.push(...list);
    return out;
  }

  /** Finds the kernel of `ep` that serves `node`, or the reason none does. */
  lookup(ep: string, node: Node, graph: Graph): LookupResult {
    const domain = node.domain === 'ai.onnx' ? '' : node.domain;
    const list = this.#defs.get(key(ep, domain, node.opType));
    const opName = `${domain ? domain + '::' : ''}${node.opType}`;
    if (!list || list.length === 0) return { ok: false, reason: { kind: 'op', message: `${ep} has no kernel for ${opName}` } };
    const opset = graph.opsetFor(domain);
    if (opset === undefined) {
      return { ok: false, reason: { kind: 'opset', message: `the model imports no opset for domain '${domain || 'ai.onnx'}'` } };
    }
    const schema = resolveSchema(domain, node.opType, opset);
    // Kernels are versioned by schema version (the op's since_version in force), as ONNX Runtime does.
    const schemaVersion = schema?.sinceVersion ?? opset;
    const inRange = list.filter((d) => d.sinceVersion <= schemaVersion && schemaVersion <= (d.endVersion ?? Infinity));
    if (inRange.length === 0) {
      return {
        ok: false,
        reason: {
          kind: 'opset',
          message: `${opName} at opset ${opset} (schema version ${schemaVersion}) is outside ${ep}'s kernels (${list.map(rangeText).join(', ')})`,
        },
      };
    }
    let last: DeclineReason | undefined;
    for (const def of inRange) {
      const typeReason = checkTypes(def, schema, node, graph);
      if (typeReason) {
        last = typeReason;
        continue;
      }
      const ok = def.supports ? def.supports(node, graph) : true;
      if (ok === true) return { ok: true, def, schemaVersion };
      last = { kind: 'attribute', message: ok };
    }
    return { ok: false, reason: last! };
  }

  /** A lookup bound to one EP. */
  lookupFor(ep: string): KernelLookup {
    return (node, graph) => this.lookup(ep, node, graph);
  }
}
