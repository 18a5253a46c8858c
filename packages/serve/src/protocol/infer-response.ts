/**
 * Writing an inference response: plain JSON, or — when any output asked for binary data — the JSON
 * head followed by the binary outputs in order, its length in `Inference-Header-Content-Length`.
 */
import type { Tensor } from '@switchyard/core';
import { datatypeOf } from './datatypes.js';
import type { RequestedOutput } from './infer-request.js';
import { tensorToBinary, tensorToJson } from './tensor-codec.js';

export interface EncodedResponse {
  body: Buffer | string;
  contentType: string;
  /** Set when the body carries binary outputs after the JSON. */
  headerLength?: number;
}

export function encodeInferResponse(
  meta: { modelName: string; modelVersion: string; id?: string },
  requested: readonly RequestedOutput[],
  results: Readonly<Record<string, Tensor>>,
): EncodedResponse {
  const chunks: Uint8Array[] = [];
  const outputs = requested.map(({ name, binary }) => {
    const t = results[name];
    const base = { name, datatype: datatypeOf(t.type) ?? t.type, shape: [...t.dims] };
    if (!binary) return { ...base, data: tensorToJson(t) };
    const bytes = tensorToBinary(t);
    chunks.push(bytes);
    return { ...base, parameters: { binary_data_size: bytes.byteLength } };
  });
  const head = JSON.stringify({
    model_name: meta.modelName,
    model_version: meta.modelVersion,
    ...(meta.id !== undefined ? { id: meta.id } : {}),
    outputs,
  });
  if (chunks.length === 0) return { body: head, contentType: 'application/json' };
  const headBytes = Buffer.from(head, 'utf8');
  return {
    body: Buffer.concat([headBytes, ...chunks]),
    contentType: 'application/octet-stream',
    headerLength: headBytes.byteLength,
  };
}
