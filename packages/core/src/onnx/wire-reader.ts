/**
 * A protobuf wire-format reader, just enough for ONNX's proto2 messages.
 * Every read is bounds-checked against the end of the current message, so truncated or
 * foreign bytes end in a SwitchyardError instead of a RangeError, an endless loop or a huge allocation.
 */
import { SwitchyardError } from '../errors.js';

/** Protobuf wire types. */
export const WireType = {
  Varint: 0,
  Fixed64: 1,
  LengthDelimited: 2,
  StartGroup: 3,
  EndGroup: 4,
  Fixed32: 5,
} as const;
export type WireType = (typeof WireType)[keyof typeof WireType];

const TWO_32 = 2 ** 32;
const utf8 = new TextDecoder('utf-8', { fatal: false });

/** The error every malformed-bytes path raises. */
export function invalid(message: string): SwitchyardError {
  return new SwitchyardError('INVALID_MODEL', message);
}

export class ProtoReader {
  readonly bytes: Uint8Array;
  readonly view: DataView;
  pos: number;
  /** End of the message being read: nested messages narrow it with `sub()`. */
  end: number;
  /** Field number and wire type of the last `next()`. */
  field = 0;
  wireType = 0;
  /** Byte offset of the last tag, for error messages. */
  tagPos = 0;

  constructor(bytes: Uint8Array, start = 0, end = bytes.length) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.pos = start;
    this.end = end;
  }

  /** Reads the next tag; false at the end of the message. */
  next(): boolean {
    if (this.pos >= this.end) return false;
    this.tagPos = this.pos;
    const tag = this.uint32();
    this.field = tag >>> 3;
    this.wireType = tag & 7;
    if (this.field === 0) throw invalid(`field number 0 at byte ${this.tagPos}: not a protobuf message`);
    if (this.wireType === WireType.StartGroup || this.wireType === WireType.EndGroup || this.wireType > 5) {
      throw invalid(`unsupported wire type ${this.wireType} (field ${this.field}) at byte ${this.tagPos}: not an ONNX protobuf`);
    }
    return true;
  }

  #truncated(what: string): never {
    throw invalid(`truncated data: ${what} at byte ${this.pos} runs past the end of its message (byte ${this.end})`);
  }

  /** A varint as two 32-bit halves (lo, hi), unsigned. */
  #varint64(): [number, number] {
    let lo = 0;
    let hi = 0;
    let shift = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) this.#truncated('varint');
      const b = this.bytes[this.pos++];
      if (i < 4) lo |= (b & 0x7f) << shift;
      else if (i === 4) {
        lo |= (b & 0x0f) << 28;
        hi = (b & 0x7f) >> 4;
      } else hi |= (b & 0x7f) << (shift - 32);
      shift += 7;
      if (b < 0x80) return [lo >>> 0, hi >>> 0];
    }
    throw invalid(`malformed varint (more than 10 bytes) at byte ${this.pos}`);
  }

  /** A varint truncated to 32 bits, unsigned (tags, lengths, enums). */
  uint32(): number {
    // Fast path: most varints here are one byte.
    if (this.pos < this.end && this.bytes[this.pos] < 0x80) return this.bytes[this.pos++];
    return this.#varint64()[0];
  }

  /** int32 / enum: negative values arrive sign-extended to 10 bytes. */
  int32(): number {
    return this.#varint64()[0] | 0;
  }

  /** int64 as a JS number (exact up to 2^53; beyond that the nearest double). */
  int64(): number {
    const [lo, hi] = this.#varint64();
    return hi >= 0x80000000 ? (hi - TWO_32) * TWO_32 + lo : hi * TWO_32 + lo;
  }

  /** int64 exactly, as a BigInt. */
  int64Big(): bigint {
    const [lo, hi] = this.#varint64();
    if (hi === 0) return BigInt(lo);
    return BigInt.asIntN(64, (BigInt(hi) << 32n) | BigInt(lo));
  }

  /** uint64 exactly, as a BigInt. */
  uint64Big(): bigint {
    const [lo, hi] = this.#varint64();
    if (hi === 0) return BigInt(lo);
    return (BigInt(hi) << 32n) | BigInt(lo);
  }

  float(): number {
    if (this.pos + 4 > this.end) this.#truncated('fixed32');
    const v = this.view.getFloat32(this.pos, true);
    this.pos += 4;
    return v;
  }

  double(): number {
    if (this.pos + 8 > this.end) this.#truncated('fixed64');
    const v = this.view.getFloat64(this.pos, true);
    this.pos += 8;
    return v;
  }

  /** Reads a length prefix and returns [start, end) of the payload, moving past it. */
  span(): [number, number] {
    let len: number;
    if (this.pos < this.end && this.bytes[this.pos] < 0x80) len = this.bytes[this.pos++];
    else {
      const [lo, hi] = this.#varint64();
      if (hi !== 0) throw invalid(`length prefix of 2^32 bytes or more at byte ${this.pos}: not a valid protobuf`);
      len = lo;
    }
    const start = this.pos;
    // Lengths are < 2^32; a 2 GiB protobuf cannot exist, so anything larger than the message is corrupt.
    if (len > this.end - start) this.#truncated(`length-delimited field of ${len} bytes`);
    this.pos = start + len;
    return [start, start + len];
  }

  /** A reader over the next length-delimited payload (a nested message). */
  sub(): ProtoReader {
    const [s, e] = this.span();
    return new ProtoReader(this.bytes, s, e);
  }

  /** The next length-delimited payload, as a view (no copy). */
  bytesView(): Uint8Array {
    const [s, e] = this.span();
    return this.bytes.subarray(s, e);
  }

  string(): string {
    const [s, e] = this.span();
    return utf8.decode(this.bytes.subarray(s, e));
  }

  /** Skips the value of the current field. */
  skip(): void {
    switch (this.wireType) {
      case WireType.Varint:
        this.#varint64();
        return;
      case WireType.Fixed64:
        if (this.pos + 8 > this.end) this.#truncated('fixed64');
        this.pos += 8;
        return;
      case WireType.Fixed32:
        if (this.pos + 4 > this.end) this.#truncated('fixed32');
        this.pos += 4;
        return;
      case WireType.LengthDelimited:
        this.span();
        return;
      default:
        throw invalid(`cannot skip wire type ${this.wireType} at byte ${this.tagPos}`);
    }
  }

  /**
   * Reads one occurrence of a repeated scalar field, packed or not, calling `read` per element.
   * `scalarWire` is the field's unpacked wire type; a length-delimited occurrence is a packed run.
   */
  repeated(scalarWire: WireType, read: () => void): void {
    if (this.wireType === WireType.LengthDelimited && scalarWire !== WireType.LengthDelimited) {
      const [s, e] = this.span();
      const saved = this.end;
      this.pos = s;
      this.end = e;
      try {
        while (this.pos < e) read();
      } finally {
        this.end = saved;
      }
      this.pos = e;
      return;
    }
    this.expect(scalarWire);
    read();
  }

  /** Number of elements the current repeated field occurrence holds, without decoding them. */
  countRepeated(scalarWire: WireType): number {
    if (this.wireType !== WireType.LengthDelimited || scalarWire === WireType.LengthDelimited) return 1;
    const save = this.pos;
    const [s, e] = this.span();
    this.pos = save;
    if (scalarWire === WireType.Fixed32) return (e - s) >>> 2;
    if (scalarWire === WireType.Fixed64) return (e - s) >>> 3;
    let n = 0;
    for (let i = s; i < e; i++) if (this.bytes[i] < 0x80) n++;
    return n;
  }

  /** Throws unless the current field has wire type `w`. */
  expect(w: WireType): void {
    if (this.wireType !== w) {
      throw invalid(`field ${this.field} at byte ${this.tagPos} has wire type ${this.wireType}, expected ${w}`);
    }
  }
}
