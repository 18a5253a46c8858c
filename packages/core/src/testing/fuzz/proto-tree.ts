/**
 * A lenient protobuf tree for the fuzzer: ONNX bytes parsed into fields (the messages the loader
 * reads become nested trees, everything else stays raw), mutated, and written back. Unlike the
 * loader's reader it never judges: whatever does not parse as a message stays bytes, so mutations can
 * produce anything the wire format can carry — negative dims, wrong lengths, unknown fields.
 */

export type WireKind = 0 | 1 | 2 | 5;

export interface ProtoField {
  field: number;
  wire: WireKind;
  /** Varints as uint64 bits; fixed32/64 and raw length-delimited values as bytes; known sub-messages as trees. */
  value: bigint | Uint8Array | ProtoMessage;
}

export interface ProtoMessage {
  /** The ONNX message this is (a key of SCHEMA). */
  type: MessageType;
  fields: ProtoField[];
}

/** Which length-delimited fields of each ONNX message are messages themselves, and of what type. */
const SCHEMA = {
  Model: { 7: 'Graph', 8: 'OperatorSetId', 14: 'StringEntry' },
  Graph: { 1: 'Node', 5: 'Tensor', 11: 'ValueInfo', 12: 'ValueInfo', 13: 'ValueInfo', 15: 'SparseTensor' },
  Node: { 5: 'Attribute' },
  Attribute: { 5: 'Tensor', 6: 'Graph', 10: 'Tensor', 11: 'Graph', 14: 'Type', 15: 'Type', 22: 'SparseTensor', 23: 'SparseTensor' },
  ValueInfo: { 2: 'Type' },
  Type: { 1: 'TensorType', 4: 'ElementType', 8: 'TensorType', 9: 'ElementType' },
  ElementType: { 1: 'Type' },
  TensorType: { 2: 'Shape' },
  Shape: { 1: 'Dimension' },
  Dimension: {},
  Tensor: { 13: 'StringEntry' },
  SparseTensor: { 1: 'Tensor', 2: 'Tensor' },
  OperatorSetId: {},
  StringEntry: {},
} as const satisfies Record<string, Record<number, string>>;

export type MessageType = keyof typeof SCHEMA;

/** Nesting beyond this stays raw bytes (the fuzzer builds deep models itself, not through parsing). */
const MAX_PARSE_DEPTH = 200;

function readVarint(bytes: Uint8Array, pos: number): [bigint, number] | undefined {
  let v = 0n;
  for (let shift = 0n; shift < 70n; shift += 7n) {
    if (pos >= bytes.length) return undefined;
    const b = bytes[pos++];
    v |= BigInt(b & 0x7f) << shift;
    if (b < 0x80) return [BigInt.asUintN(64, v), pos];
  }
  return undefined;
}

/** Parses `bytes` as a message of `type`; undefined when they are not a well-formed message. */
export function parseMessage(bytes: Uint8Array, type: MessageType, depth = 0): ProtoMessage | undefined {
  const fields: ProtoField[] = [];
  let pos = 0;
  while (pos < bytes.length) {
    const tag = readVarint(bytes, pos);
    if (!tag) return undefined;
    pos = tag[1];
    const field = Number(tag[0] >> 3n);
    const wire = Number(tag[0] & 7n);
    if (field === 0 || field > 536_870_911) return undefined;
    if (wire === 0) {
      const v = readVarint(bytes, pos);
      if (!v) return undefined;
      fields.push({ field, wire, value: v[0] });
      pos = v[1];
    } else if (wire === 1 || wire === 5) {
      const n = wire === 1 ? 8 : 4;
      if (pos + n > bytes.length) return undefined;
      fields.push({ field, wire, value: bytes.slice(pos, pos + n) });
      pos += n;
    } else if (wire === 2) {
      const len = readVarint(bytes, pos);
      if (!len || len[0] > BigInt(bytes.length - len[1])) return undefined;
      pos = len[1];
      const body = bytes.subarray(pos, pos + Number(len[0]));
      pos += body.length;
      const childType = (SCHEMA[type] as Record<number, MessageType | undefined>)[field];
      const child = childType && depth < MAX_PARSE_DEPTH ? parseMessage(body, childType, depth + 1) : undefined;
      fields.push({ field, wire, value: child ?? body.slice() });
    } else {
      return undefined;
    }
  }
  return { type, fields };
}

function varintBytes(v: bigint): number[] {
  const out: number[] = [];
  let u = BigInt.asUintN(64, v);
  while (u >= 0x80n) {
    out.push(Number(u & 0x7fn) | 0x80);
    u >>= 7n;
  }
  out.push(Number(u));
  return out;
}

/** Writes a tree back to wire bytes. */
export function serializeMessage(message: ProtoMessage): Uint8Array {
  const parts: Uint8Array[] = [];
  let total = 0;
  const push = (p: Uint8Array) => {
    parts.push(p);
    total += p.length;
  };
  for (const f of message.fields) {
    push(Uint8Array.from(varintBytes((BigInt(f.field) << 3n) | BigInt(f.wire))));
    if (f.wire === 0) push(Uint8Array.from(varintBytes(f.value as bigint)));
    else if (f.wire === 2) {
      const body = f.value instanceof Uint8Array ? f.value : serializeMessage(f.value as ProtoMessage);
      push(Uint8Array.from(varintBytes(BigInt(body.length))));
      push(body);
    } else push(f.value as Uint8Array);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/** Field constructors, for building hostile messages by hand. */
export const pb = {
  msg: (type: MessageType, fields: ProtoField[]): ProtoMessage => ({ type, fields }),
  int: (field: number, v: number | bigint): ProtoField => ({ field, wire: 0, value: BigInt.asUintN(64, BigInt(v)) }),
  str: (field: number, s: string): ProtoField => ({ field, wire: 2, value: utf8.encode(s) }),
  bytes: (field: number, b: Uint8Array): ProtoField => ({ field, wire: 2, value: b }),
  sub: (field: number, m: ProtoMessage): ProtoField => ({ field, wire: 2, value: m }),
};

/** The text of a raw length-delimited field, or undefined when it is not a message-free string. */
export function textOf(f: ProtoField): string | undefined {
  return f.wire === 2 && f.value instanceof Uint8Array ? fromUtf8.decode(f.value) : undefined;
}

export function isMessage(v: ProtoField['value']): v is ProtoMessage {
  return typeof v === 'object' && !(v instanceof Uint8Array);
}

/** Every message of the tree (the root included), depth first, with the field that holds it. */
export function messagesOf(root: ProtoMessage): ProtoMessage[] {
  const out: ProtoMessage[] = [];
  const walk = (m: ProtoMessage) => {
    out.push(m);
    for (const f of m.fields) if (isMessage(f.value)) walk(f.value);
  };
  walk(root);
  return out;
}

/** A deep copy (mutations must not reach the cached original). */
export function cloneMessage(m: ProtoMessage): ProtoMessage {
  return {
    type: m.type,
    fields: m.fields.map((f) => ({ ...f, value: isMessage(f.value) ? cloneMessage(f.value) : f.value instanceof Uint8Array ? f.value.slice() : f.value })),
  };
}
