/**
 * ONNX operator schemas as data (generated from the onnx package by scripts/gen-op-schemas.py):
 * input/output names, type constraints, attribute types, and opset history, shared by every EP.
 */
import { ONNX_SCHEMAS_JSON } from './onnx-schemas.generated.js';

export interface FormalParameter {
  name: string;
  /** A type-constraint name such as `T`, or a concrete type string such as `tensor(int64)`. */
  type: string;
  form: 'single' | 'optional' | 'variadic';
  homogeneous: boolean;
}

export interface OpSchema {
  domain: string;
  opType: string;
  sinceVersion: number;
  deprecated: boolean;
  inputs: FormalParameter[];
  outputs: FormalParameter[];
  minInputs: number;
  maxInputs: number;
  minOutputs: number;
  maxOutputs: number;
  /** Constraint name → allowed types (`float32`, `seq(float32)`, …). */
  typeConstraints: Record<string, string[]>;
  attributes: Record<string, { type: string; required: boolean }>;
}

const file = JSON.parse(ONNX_SCHEMAS_JSON) as { onnxVersion: string; schemas: OpSchema[] };

/** The onnx release the schemas came from. */
export const SCHEMA_ONNX_VERSION = file.onnxVersion;

const byOp = new Map<string, OpSchema[]>();
for (const s of file.schemas) {
  const key = `${s.domain}::${s.opType}`;
  let list = byOp.get(key);
  if (!list) byOp.set(key, (list = []));
  list.push(s);
}
for (const list of byOp.values()) list.sort((a, b) => a.sinceVersion - b.sinceVersion);

function normDomain(domain: string): string {
  return domain === 'ai.onnx' ? '' : domain;
}

/** All versions of an op's schema, oldest first (empty when ONNX defines no such op). */
export function schemaHistory(domain: string, opType: string): readonly OpSchema[] {
  return byOp.get(`${normDomain(domain)}::${opType}`) ?? [];
}

/** The schema in force for an op under an opset import version: the newest with sinceVersion ≤ opset. */
export function resolveSchema(domain: string, opType: string, opset: number): OpSchema | undefined {
  const history = schemaHistory(domain, opType);
  let found: OpSchema | undefined;
  for (const s of history) if (s.sinceVersion <= opset) found = s;
  return found;
}

/** Every op type ONNX defines in a domain. */
export function knownOpTypes(domain = ''): string[] {
  const d = normDomain(domain);
  return [...new Set(file.schemas.filter((s) => s.domain === d).map((s) => s.opType))].sort();
}

/** The formal parameter that describes actual input/output `index` (variadics repeat the last formal). */
export function formalAt(params: readonly FormalParameter[], index: number): FormalParameter | undefined {
  if (index < params.length) return params[index];
  const last = params[params.length - 1];
  return last?.form === 'variadic' ? last : undefined;
}
