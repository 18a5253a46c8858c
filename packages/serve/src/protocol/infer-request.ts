/**
 * Reading an inference request: the JSON object, then, when `Inference-Header-Content-Length` says
 * the JSON is only the head of the body, the binary section that follows it. Every input is checked
 * against the model's signature (name, datatype, rank, fixed dims, element count) before it is queued,
 * so a bad request never reaches a session and never spoils a batch it would have joined.
 */
import { MAX_TENSOR_ELEMENTS, type Tensor } from '@switchyard/core';
import { datatypeOf, elementTypeOf } from './datatypes.js';
import { badRequest } from './errors.js';
import { isFixedDim, type ModelSignature, type TensorSpec } from './signature.js';
import { binaryByteLength, tensorFromBinary, tensorFromJson } from './tensor-codec.js';

export const BINARY_HEADER = 'inference-header-content-length';

export interface RequestedOutput {
  name: string;
  binary: boolean;
}

export interface InferRequest {
  id?: string;
  inputs: Record<string, Tensor>;
  /** The outputs to return, in order, and how. */
  outputs: RequestedOutput[];
}

type Json = Record<string, unknown>;

/** Splits the body into its JSON head and binary tail, as the header says. */
export function splitBody(body: Buffer, headerLength: string | undefined): { json: Buffer; binary: Buffer } {
  if (headerLength === undefined) return { json: body, binary: body.subarray(body.byteLength) };
  const n = Number(headerLength);
  if (!/^\d+$/.test(headerLength.trim()) || !Number.isSafeInteger(n)) {
    throw badRequest(`Inference-Header-Content-Length must be a non-negative integer, got '${headerLength}'`);
  }
  if (n > body.byteLength) throw badRequest(`Inference-Header-Content-Length is ${n} but the body has only ${body.byteLength} bytes`);
  return { json: body.subarray(0, n), binary: body.subarray(n) };
}

export function parseJsonObject(bytes: Buffer, what: string): Json {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch (err) {
    throw badRequest(`${what} is not valid JSON: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw badRequest(`${what} must be a JSON object`);
  return value as Json;
}

function parametersOf(obj: Json, what: string): Json {
  const p = obj.parameters;
  if (p === undefined) return {};
  if (typeof p !== 'object' || p === null || Array.isArray(p)) throw badRequest(`${what}: 'parameters' must be an object`);
  return p as Json;
}

function checkShape(raw: unknown, what: string): number[] {
  if (!Array.isArray(raw) || !raw.every((d) => Number.isSafeInteger(d) && (d as number) >= 0)) {
    throw badRequest(`${what}: 'shape' must be an array of non-negative integers, got ${JSON.stringify(raw)}`);
  }
  return raw as number[];
}

function elementCount(dims: readonly number[], what: string): number {
  let n = 1;
  for (const d of dims) n *= d;
  if (n > MAX_TENSOR_ELEMENTS) throw badRequest(`${what}: shape [${dims.join(', ')}] has more than ${MAX_TENSOR_ELEMENTS} elements`);
  return n;
}

function matchSpec(spec: TensorSpec, datatype: unknown, dims: readonly number[], what: string): void {
  const expected = datatypeOf(spec.type);
  if (typeof datatype !== 'string' || elementTypeOf(datatype) === undefined) {
    throw badRequest(`${what}: 'datatype' must be one of the protocol's types (${expected ?? spec.type} here), got ${JSON.stringify(datatype)}`);
  }
  if (datatype !== expected) throw badRequest(`${what}: datatype is ${datatype} but the model takes ${expected ?? spec.type}`);
  if (!spec.shape) return;
  const want = spec.shape;
  const fits = want.length === dims.length && want.every((d, i) => !isFixedDim(d) || d === dims[i]);
  if (!fits) {
    throw badRequest(`${what}: shape [${dims.join(', ')}] does not fit the model's [${want.map((d) => (isFixedDim(d) ? d : -1)).join(', ')}] (-1: any size)`);
  }
}

/** Parses and validates one request against `signature`. */
export function parseInferRequest(body: Buffer, headerLength: string | undefined, signature: ModelSignature): InferRequest {
  const { json, binary } = splitBody(body, headerLength);
  const req = parseJsonObject(json, headerLength === undefined ? 'the request body' : 'the request header (JSON part)');
  const params = parametersOf(req, 'request');
  if (req.id !== undefined && typeof req.id !== 'string') throw badRequest(`'id' must be a string`);
  if (!Array.isArray(req.inputs) || req.inputs.length === 0) throw badRequest(`'inputs' must be a non-empty array`);

  const specs = new Map(signature.inputs.map((s) => [s.name, s]));
  const inputs: Record<string, Tensor> = {};
  const pending: Array<{ spec: TensorSpec; dims: number[]; size: number; bytes: number; what: string }> = [];
  for (const [i, raw] of (req.inputs as unknown[]).entries()) {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw badRequest(`inputs[${i}] must be an object`);
    const input = raw as Json;
    if (typeof input.name !== 'string') throw badRequest(`inputs[${i}]: 'name' must be a string`);
    const what = `input '${input.name}'`;
    const spec = specs.get(input.name);
    if (!spec) throw badRequest(`${what}: the model has no such input; its inputs are ${[...specs.keys()].map((n) => `'${n}'`).join(', ')}`);
    if (input.name in inputs || pending.some((p) => p.spec.name === input.name)) throw badRequest(`${what} is given twice`);
    const dims = checkShape(input.shape, what);
    matchSpec(spec, input.datatype, dims, what);
    const size = elementCount(dims, what);
    const binarySize = parametersOf(input, what).binary_data_size;
    if (binarySize !== undefined) {
      if (!Number.isSafeInteger(binarySize) || (binarySize as number) < 0) throw badRequest(`${what}: binary_data_size must be a non-negative integer`);
      if (input.data !== undefined) throw badRequest(`${what} has both 'data' and binary_data_size`);
      if (headerLength === undefined) throw badRequest(`${what} has binary_data_size but the request has no Inference-Header-Content-Length header`);
      if (spec.type !== 'string' && binarySize !== binaryByteLength(spec.type, size)) {
        throw badRequest(`${what}: binary_data_size is ${binarySize} bytes but shape [${dims.join(', ')}] of ${input.datatype} needs ${binaryByteLength(spec.type, size)}`);
      }
      pending.push({ spec, dims, size, bytes: binarySize as number, what });
    } else {
      if (input.data === undefined) throw badRequest(`${what} has neither 'data' nor binary_data_size`);
      inputs[input.name] = tensorFromJson(spec.type, dims, size, input.data, what);
    }
  }
  const binaryTotal = pending.reduce((n, p) => n + p.bytes, 0);
  if (binaryTotal !== binary.byteLength) {
    throw badRequest(`the binary section after the JSON is ${binary.byteLength} bytes but the inputs' binary_data_size add up to ${binaryTotal}`);
  }
  let at = 0;
  for (const p of pending) {
    inputs[p.spec.name] = tensorFromBinary(p.spec.type, p.dims, p.size, binary.subarray(at, at + p.bytes), p.what);
    at += p.bytes;
  }
  for (const spec of signature.inputs) {
    if (!(spec.name in inputs) && !signature.optionalInputs.has(spec.name)) throw badRequest(`input '${spec.name}' is missing`);
  }
  return { id: req.id as string | undefined, inputs, outputs: requestedOutputs(req, params, signature) };
}

function requestedOutputs(req: Json, params: Json, signature: ModelSignature): RequestedOutput[] {
  const allBinary = params.binary_data_output === true;
  if (req.outputs === undefined) return signature.outputs.map((o) => ({ name: o.name, binary: allBinary }));
  if (!Array.isArray(req.outputs)) throw badRequest(`'outputs' must be an array`);
  const known = new Set(signature.outputs.map((o) => o.name));
  const seen = new Set<string>();
  return (req.outputs as unknown[]).map((raw, i) => {
    if (typeof raw !== 'object' || raw === null || typeof (raw as Json).name !== 'string') throw badRequest(`outputs[${i}] must be an object with a 'name'`);
    const name = (raw as Json).name as string;
    if (!known.has(name)) throw badRequest(`output '${name}': the model has no such output; its outputs are ${[...known].map((n) => `'${n}'`).join(', ')}`);
    if (seen.has(name)) throw badRequest(`output '${name}' is requested twice`);
    seen.add(name);
    const binary = parametersOf(raw as Json, `output '${name}'`).binary_data;
    if (binary !== undefined && typeof binary !== 'boolean') throw badRequest(`output '${name}': binary_data must be true or false`);
    return { name, binary: binary ?? allBinary };
  });
}
