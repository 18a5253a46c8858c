/**
 * Reads a model file without holding its weights twice. Decoding the whole file from one buffer and
 * copying each initializer's raw_data out of it peaks at twice the weights (file + copies), for a
 * moment the process's high-water mark never forgets. Instead, the large raw_data payloads of the
 * main graph's initializers are read straight from the file into buffers of their own, and
 * everything else into a file-sized buffer at its own offset: the decoder sees the usual bytes
 * (the payload ranges stay zero and are never touched, so those pages cost no memory) and takes the
 * separately read payloads by offset.
 *
 * Only well-formed protobuf framing is walked; anything unexpected (groups, a length past its
 * message) reads the whole file instead, and the decoder reports the problem as usual.
 */
import * as fs from 'node:fs';
import { promisify } from 'node:util';
import { GRAPH, MODEL, TENSOR } from './fields.js';

/** raw_data payloads at least this large get their own buffer; smaller ones stay in the model buffer. */
export const HOIST_MIN_BYTES = 4096;

export interface ModelFile {
  /** The file's bytes, except that hoisted payload ranges are zero. */
  bytes: Uint8Array;
  /** Hoisted raw_data payloads by their start offset in `bytes` (exactly the payload's length). */
  rawData: Map<number, Uint8Array>;
}

class Malformed extends Error {}

const readAt = promisify(fs.read);

/**
 * Reads `path` as a ModelProto with its large initializer payloads in buffers of their own. The
 * framing (small reads) is walked synchronously; the payloads, nearly all of the bytes, are read
 * off the main thread.
 */
export async function readModelFile(path: string): Promise<ModelFile> {
  const fd = fs.openSync(path, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    // Zero-filled and untouched until read: the payload ranges never become resident.
    const bytes = new Uint8Array(size);
    const rawData = new Map<number, Uint8Array>();
    try {
      walkModel(fd, bytes, rawData);
      for (const [start, own] of rawData) {
        for (let at = 0; at < own.length; ) {
          const { bytesRead } = await readAt(fd, own, at, own.length - at, start + at);
          if (bytesRead === 0) throw new Malformed('file ended early');
          at += bytesRead;
        }
      }
    } catch (e) {
      if (!(e instanceof Malformed)) throw e;
      rawData.clear();
      readInto(fd, bytes, 0, size);
    }
    return { bytes, rawData };
  } finally {
    fs.closeSync(fd);
  }
}

function readInto(fd: number, bytes: Uint8Array, start: number, end: number): void {
  let at = start;
  while (at < end) {
    const got = fs.readSync(fd, bytes, at, end - at, at);
    if (got === 0) throw new Malformed('file ended early');
    at += got;
  }
}

interface Field {
  field: number;
  wire: number;
  /** Where the field's value (payload, for length-delimited fields) starts and ends. */
  start: number;
  end: number;
}

/** Reads the header of the field at `pos` (and, for scalars, the value) into `bytes`; returns its extent. */
function readField(fd: number, bytes: Uint8Array, pos: number, limit: number): Field {
  const headerEnd = Math.min(limit, pos + 20);
  readInto(fd, bytes, pos, headerEnd);
  let p = pos;
  const varint = (): number => {
    let v = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (p >= headerEnd) throw new Malformed('truncated varint');
      const b = bytes[p++];
      v += (b & 0x7f) * scale;
      if (b < 0x80) return v;
      scale *= 128;
    }
    throw new Malformed('varint too long');
  };
  const tag = varint();
  const field = Math.floor(tag / 8);
  const wire = tag % 8;
  let start = p;
  let end: number;
  switch (wire) {
    case 0:
      varint();
      start = end = p;
      break;
    case 1:
      end = start + 8;
      break;
    case 5:
      end = start + 4;
      break;
    case 2: {
      const len = varint();
      start = p;
      end = start + len;
      break;
    }
    default:
      throw new Malformed(`wire type ${wire}`);
  }
  if (field === 0 || end > limit || !Number.isSafeInteger(end)) throw new Malformed('field past its message');
  return { field, wire, start, end };
}

/** Walks the fields of the message in [start, end); `inner` handles the ones it wants, the rest are read whole. */
function walk(fd: number, bytes: Uint8Array, start: number, end: number, inner: (f: Field) => boolean): void {
  let pos = start;
  while (pos < end) {
    const f = readField(fd, bytes, pos, end);
    if (!inner(f)) readInto(fd, bytes, Math.min(f.start, end), f.end);
    pos = f.end;
  }
}

function walkModel(fd: number, bytes: Uint8Array, rawData: Map<number, Uint8Array>): void {
  const tensor = (f: Field): boolean => {
    if (f.field !== TENSOR.rawData || f.wire !== 2 || f.end - f.start < HOIST_MIN_BYTES) return false;
    // Filled by readModelFile once the framing is known.
    rawData.set(f.start, new Uint8Array(f.end - f.start));
    return true;
  };
  const graph = (f: Field): boolean => {
    if (f.field !== GRAPH.initializer || f.wire !== 2) return false;
    walk(fd, bytes, f.start, f.end, tensor);
    return true;
  };
  walk(fd, bytes, 0, bytes.length, (f) => {
    if (f.field !== MODEL.graph || f.wire !== 2) return false;
    walk(fd, bytes, f.start, f.end, graph);
    return true;
  });
}
