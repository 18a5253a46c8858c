/**
 * Element types from the op schema alone, for every op with or without a shape rule: an output typed
 * by a constraint that also types an input takes that input's type; a constraint that allows a single
 * type, or a concrete `tensor(int64)`, gives that type.
 */
import type { ValueType } from '../ir/graph.js';
import { formalAt, resolveSchema } from '../ops/schemas.js';
import { isDataType } from '../tensor/data-type.js';
import type { InferContext } from './context.js';

/** ONNX's spelling inside `tensor(…)` where it differs from ours. */
const ONNX_SPELLING: Record<string, string> = { float: 'float32', double: 'float64', float16: 'float16' };

/** A schema type string (`int64`, `tensor(float)`, `seq(float32)`, `optional(seq(int8))`) as a ValueType. */
export function parseSchemaType(text: string): ValueType | undefined {
  const inner = /^(tensor|seq|optional)\((.*)\)$/.exec(text);
  if (inner) {
    const [, kind, arg] = inner;
    if (kind === 'tensor') {
      const name = ONNX_SPELLING[arg] ?? arg;
      return isDataType(name) ? { kind: 'tensor', elemType: name } : undefined;
    }
    const elem = parseSchemaType(arg);
    return { kind: kind === 'seq' ? 'sequence' : 'optional', elem };
  }
  if (text.startsWith('map(')) return { kind: 'map' };
  return isDataType(text) ? { kind: 'tensor', elemType: text } : undefined;
}

/** The type with shapes dropped, since a constraint ties element types, not shapes. */
export function withoutShape(t: ValueType | undefined): ValueType | undefined {
  if (!t) return undefined;
  if (t.kind === 'tensor') return { kind: 'tensor', elemType: t.elemType };
  if (t.kind === 'sequence' || t.kind === 'optional') return { kind: t.kind, elem: withoutShape(t.elem) };
  return t;
}

/** Fills `ctx.outputs` with what the schema says about each output's type. */
export function applySchemaTypes(ctx: InferContext): void {
  const schema = resolveSchema(ctx.node.domain, ctx.node.opType, ctx.opset);
  if (!schema) return;
  ctx.hasSchema = true;
  for (let o = 0; o < ctx.outputs.length; o++) {
    const formal = formalAt(schema.outputs, o);
    if (!formal) continue;
    const allowed = schema.typeConstraints[formal.type];
    if (!allowed) {
      ctx.outputs[o] = parseSchemaType(formal.type);
      continue;
    }
    if (allowed.length === 1) {
      ctx.outputs[o] = parseSchemaType(allowed[0]);
      continue;
    }
    for (let i = 0; i < ctx.inputCount; i++) {
      if (formalAt(schema.inputs, i)?.type !== formal.type) continue;
      const t = withoutShape(ctx.type(i));
      if (t && t.kind !== 'unknown') {
        ctx.outputs[o] = t;
        break;
      }
    }
  }
}
