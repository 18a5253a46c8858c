/**
 * A protobuf wire-format writer. Nested messages are written by a callback into a child writer and
 * then length-prefixed; the chunks are joined once at the end, so large raw_data is copied only twice.
 */
import { SwitchyardError } from '../errors.js';
import { WireType } from './wire-reader.js';

const utf8 = new TextEncoder();

export class ProtoWriter {
  #chunks: Uint8Array[] = [];
  #scratch = new Uint8Array(256);
  #used = 0;
  #length = 0;

  get length(): number {
    return this.#length + this.#used;
  }

  #flush(): void {
    if (this.#used === 0) return;
    this.#chunks.push(this.#scratch.slice(0, this.#used));
    this.#length += this.#used;
    this.#used = 0;
  }

  #room(n: number): void {
    if (this.#used + n <= this.#scratch.length) return;
    this.#flush();
    if (n > this.#scratch.length) this.#scratch = new Uint8Array(Math.max(n, this.#scratch.length * 2));
  }

  /** Appends bytes as they are (already wire-encoded). */
  raw(bytes: Uint8Array): void {
    if (bytes.length <= 64) {
      this.#room(bytes.length);
      this.#scratch.set(bytes, this.#used);
      this.#used += bytes.length;
      return;
    }
    this.#flush();
    this.#chunks.push(bytes);
    this.#length += bytes.length;
  }

  /** Unsigned varint of a non-negative safe integer. */
  #varint(v: number): void {
    this.#room(10);
    const s = this.#scratch;
    while (v >= 0x80) {
      s[this.#used++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    s[this.#used++] = v;
  }

  #varintBig(v: bigint): void {
    let u = BigInt.asUintN(64, v);
    this.#room(10);
    const s = this.#scratch;
    while (u >= 0x80n) {
      s[this.#used++] = Number(u & 0x7fn) | 0x80;
      u >>= 7n;
    }
    s[this.#used++] = Number(u);
  }

  tag(field: number, wire: WireType): void {
    this.#varint(field * 8 + wire);
  }

  /** Writes an int64/int32/enum value (negative numbers as 10-byte two's complement, as protobuf does). */
  int64(field: number, v: number | bigint): void {
    this.tag(field, WireType.Varint);
    this.int64Value(v);
  }

  int64Value(v: number | bigint): void {
    if (typeof v === 'number' && !Number.isInteger(v)) {
      throw new SwitchyardError('INVALID_ARGUMENT', `cannot encode ${v} as an ONNX integer`);
    }
    if (typeof v === 'number' && v >= 0 && Number.isSafeInteger(v)) this.#varint(v);
    else this.#varintBig(typeof v === 'bigint' ? v : BigInt(v));
  }

  float(field: number, v: number): void {
    this.tag(field, WireType.Fixed32);
    this.#room(4);
    new DataView(this.#scratch.buffer).setFloat32(this.#used, v, true);
    this.#used += 4;
  }

  bytes(field: number, b: Uint8Array): void {
    this.tag(field, WireType.LengthDelimited);
    this.#varint(b.length);
    this.raw(b);
  }

  string(field: number, s: string): void {
    this.bytes(field, utf8.encode(s));
  }

  /** A nested message written by `fill`. */
  message(field: number, fill: (w: ProtoWriter) => void): void {
    const child = new ProtoWriter();
    fill(child);
    this.tag(field, WireType.LengthDelimited);
    this.#varint(child.length);
    child.#flush();
    for (const c of child.#chunks) this.raw(c);
  }

  /** A packed run of varints. */
  packedInt64(field: number, values: ArrayLike<number | bigint>): void {
    if (values.length === 0) return;
    this.message(field, (w) => {
      for (let i = 0; i < values.length; i++) w.int64Value(values[i]);
    });
  }

  /** A packed run of float32 values. */
  packedFloat(field: number, values: ArrayLike<number>): void {
    if (values.length === 0) return;
    const f = Float32Array.from(values);
    this.bytes(field, new Uint8Array(f.buffer));
  }

  finish(): Uint8Array {
    this.#flush();
    if (this.#chunks.length === 1) return this.#chunks[0];
    const out = new Uint8Array(this.#length);
    let at = 0;
    for (const c of this.#chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  }
}
