/**
 * The on-disk form of one cached program:
 *
 *   magic "SYMGXPRG" (8 bytes) | format version u32 LE | key length u32 LE | key (UTF-8)
 *   | payload length u64 LE | sha256(payload) (32 bytes) | payload (the serialized program)
 *
 * The key inside the file guards against a file that holds another key's program (a rename, a copy);
 * the length and checksum against truncation and corruption. Any mismatch makes the file unusable.
 */
import { createHash } from 'node:crypto';
import { CACHE_FORMAT_VERSION } from './cache-key.js';

export const CACHE_MAGIC = 'SYMGXPRG';
const utf8 = new TextEncoder();

export function encodeCacheFile(key: string, payload: Uint8Array): Uint8Array {
  const keyBytes = utf8.encode(key);
  const header = 8 + 4 + 4 + keyBytes.length + 8 + 32;
  const out = new Uint8Array(header + payload.length);
  const view = new DataView(out.buffer);
  out.set(utf8.encode(CACHE_MAGIC), 0);
  view.setUint32(8, CACHE_FORMAT_VERSION, true);
  view.setUint32(12, keyBytes.length, true);
  out.set(keyBytes, 16);
  let at = 16 + keyBytes.length;
  view.setBigUint64(at, BigInt(payload.length), true);
  at += 8;
  out.set(createHash('sha256').update(payload).digest(), at);
  out.set(payload, at + 32);
  return out;
}

export type DecodedCacheFile = { ok: true; payload: Uint8Array } | { ok: false; reason: string };

/** The payload when `bytes` is an intact file for `key`, else why not. */
export function decodeCacheFile(bytes: Uint8Array, key: string): DecodedCacheFile {
  const fail = (reason: string): DecodedCacheFile => ({ ok: false, reason });
  if (bytes.length < 16) return fail(`truncated header (${bytes.length} bytes)`);
  if (new TextDecoder().decode(bytes.subarray(0, 8)) !== CACHE_MAGIC) return fail('not a Switchyard MIGraphX cache file (bad magic)');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const version = view.getUint32(8, true);
  if (version !== CACHE_FORMAT_VERSION) return fail(`format version ${version}, expected ${CACHE_FORMAT_VERSION} (stale)`);
  const keyLength = view.getUint32(12, true);
  const payloadAt = 16 + keyLength + 8 + 32;
  if (keyLength > 1024 || bytes.length < payloadAt) return fail('truncated header');
  const storedKey = new TextDecoder().decode(bytes.subarray(16, 16 + keyLength));
  if (storedKey !== key) return fail(`holds the program for key ${storedKey.slice(0, 12)}…, not ${key.slice(0, 12)}… (stale)`);
  const length = view.getBigUint64(16 + keyLength, true);
  if (length !== BigInt(bytes.length - payloadAt)) return fail(`payload is ${bytes.length - payloadAt} bytes, header says ${length} (truncated or overwritten)`);
  const payload = bytes.subarray(payloadAt);
  const expected = bytes.subarray(16 + keyLength + 8, payloadAt);
  const actual = createHash('sha256').update(payload).digest();
  if (!actual.equals(expected)) return fail('checksum mismatch (corrupt)');
  return { ok: true, payload };
}
