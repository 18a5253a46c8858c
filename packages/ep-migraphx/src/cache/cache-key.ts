/**
 * Cache keys for compiled programs. A key covers everything that changes the generated code: the
 * compiler (MIGraphX version, target, device architecture), the partition (sha256 of its ONNX bytes),
 * the concrete input shapes, and the options that reach codegen. Anything left out could hand back
 * a program built for something else, so when in doubt a field goes in.
 */
import { createHash } from 'node:crypto';
import { BYTES_PER_ELEMENT, type Tensor } from '@switchyard/core';
import type { CalibrationSet, CompileRequest, CompilerIdentity } from '../program/program-compiler.js';

/** Bumped when the meaning of a key or the file layout changes, so older files read as stale. */
export const CACHE_FORMAT_VERSION = 1;

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function tensorBytes(t: Tensor): Uint8Array {
  const data = t.data;
  if (Array.isArray(data)) return new TextEncoder().encode(JSON.stringify(data));
  const view = data as ArrayBufferView;
  return new Uint8Array(view.buffer, view.byteOffset, t.size * BYTES_PER_ELEMENT[t.type]);
}

/** Digest of int8 calibration data: the quantization scales, hence the code, depend on it. */
export function calibrationDigest(sets: readonly CalibrationSet[]): string {
  const hash = createHash('sha256');
  for (const set of sets) {
    for (const name of Object.keys(set).sort()) {
      const t = set[name];
      hash.update(`${name}:${t.type}:[${t.dims.join(',')}]:`).update(tensorBytes(t));
    }
    hash.update('|');
  }
  return hash.digest('hex');
}

/** The fields of a key, as data (tests change each in turn). */
export interface CacheKeyParts {
  identity: CompilerIdentity;
  onnxSha256: string;
  inputShapes: ReadonlyArray<readonly [string, readonly number[]]>;
  quantization: CompileRequest['quantization'];
  calibration: string;
  offloadCopy: boolean;
  exhaustiveTune: boolean;
  fastMath: boolean;
  defaultDimValue: number;
}

export function cacheKeyParts(identity: CompilerIdentity, request: CompileRequest, onnxSha256 = sha256Hex(request.onnx)): CacheKeyParts {
  return {
    identity,
    onnxSha256,
    inputShapes: [...request.inputShapes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    quantization: request.quantization,
    calibration: request.quantization === 'int8' ? calibrationDigest(request.calibration) : '',
    offloadCopy: request.offloadCopy,
    exhaustiveTune: request.exhaustiveTune,
    fastMath: request.fastMath,
    defaultDimValue: request.defaultDimValue,
  };
}

/** A 64-hex-digit key; the canonical JSON is hashed so keys have one length and make safe file names. */
export function cacheKey(parts: CacheKeyParts): string {
  const canonical = JSON.stringify([
    CACHE_FORMAT_VERSION,
    parts.identity.version,
    parts.identity.target,
    parts.identity.deviceArch,
    parts.onnxSha256,
    parts.inputShapes.map(([n, d]) => [n, [...d]]),
    parts.quantization,
    parts.calibration,
    parts.offloadCopy,
    parts.exhaustiveTune,
    parts.fastMath,
    parts.defaultDimValue,
  ]);
  return sha256Hex(new TextEncoder().encode(canonical));
}
