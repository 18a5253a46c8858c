/** The protobuf wire layer against encodings from the protobuf documentation. */
import { describe, expect, test } from 'vitest';
import { SwitchyardError } from '../errors.js';
import { ProtoReader, WireType } from './wire-reader.js';
import { ProtoWriter } from './wire-writer.js';

const bytesOf = (fill: (w: ProtoWriter) => void): number[] => {
  const w = new ProtoWriter();
  fill(w);
  return Array.from(w.finish());
};

describe('ProtoWriter', () => {
  test('varints as the protobuf docs spell them', () => {
    expect(bytesOf((w) => w.int64(1, 150))).toEqual([0x08, 0x96, 0x01]);
    expect(bytesOf((w) => w.int64(1, 300))).toEqual([0x08, 0xac, 0x02]);
    // Negative int64 / int32: ten bytes of two's complement.
    expect(bytesOf((w) => w.int64(1, -1))).toEqual([0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
    expect(bytesOf((w) => w.string(2, 'testing'))).toEqual([0x12, 0x07, 0x74, 0x65, 0x73, 0x74, 0x69, 0x6e, 0x67]);
    expect(bytesOf((w) => w.float(5, 1))).toEqual([0x2d, 0x00, 0x00, 0x80, 0x3f]);
    expect(bytesOf((w) => w.packedInt64(4, [3, 270, 86942]))).toEqual([0x22, 0x06, 0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05]);
  });

  test('non-integers are refused', () => {
    expect(() => bytesOf((w) => w.int64(1, 1.5))).toThrow(SwitchyardError);
    expect(() => bytesOf((w) => w.int64(1, Number.NaN))).toThrow(SwitchyardError);
  });

  test('nested messages larger than the scratch buffer keep their bytes in order', () => {
    const big = new Uint8Array(1000).map((_, i) => i % 251);
    const out = new Uint8Array(bytesOf((w) => w.message(3, (m) => (m.bytes(1, big), m.int64(2, 7)))));
    const r = new ProtoReader(out);
    expect(r.next()).toBe(true);
    const sub = r.sub();
    expect(sub.next() && sub.field).toBe(1);
    expect(sub.bytesView()).toEqual(big);
    expect(sub.next() && sub.int64()).toBe(7);
    expect(sub.next()).toBe(false);
  });
});

describe('ProtoReader', () => {
  test('64-bit values: exact as BigInt, nearest double as number', () => {
    const values = [0n, 1n, 2n ** 31n, 2n ** 32n + 5n, 2n ** 53n - 1n, 2n ** 63n - 1n, -1n, -(2n ** 63n)];
    const out = new Uint8Array(bytesOf((w) => values.forEach((v) => w.int64(1, v))));
    const r = new ProtoReader(out);
    for (const v of values) {
      expect(r.next()).toBe(true);
      const at = r.pos;
      expect(r.int64Big()).toBe(v);
      r.pos = at;
      expect(r.int64()).toBe(Number(v));
    }
    const u = new ProtoReader(new Uint8Array(bytesOf((w) => w.int64(1, 2n ** 64n - 1n))));
    u.next();
    expect(u.uint64Big()).toBe(2n ** 64n - 1n);
  });

  test('packed and unpacked occurrences of one repeated field', () => {
    const out = new Uint8Array(bytesOf((w) => (w.int64(4, 1), w.packedInt64(4, [2, 3]), w.int64(4, 4))));
    const r = new ProtoReader(out);
    const got: number[] = [];
    while (r.next()) {
      const n = r.countRepeated(WireType.Varint);
      const before = got.length;
      r.repeated(WireType.Varint, () => got.push(r.int64()));
      expect(got.length - before).toBe(n);
    }
    expect(got).toEqual([1, 2, 3, 4]);
  });

  test('truncation and bad lengths raise INVALID_MODEL', () => {
    const cases = [[0x08], [0x12, 0x05, 0x61], [0x2d, 0x00, 0x00], [0x12, 0xff, 0xff, 0xff, 0xff, 0x7f]];
    for (const c of cases) {
      const r = new ProtoReader(Uint8Array.from(c));
      expect(() => {
        while (r.next()) r.skip();
      }).toThrow(expect.objectContaining({ code: 'INVALID_MODEL' }));
    }
  });

  test('a sub-reader cannot read past its message', () => {
    const out = new Uint8Array(bytesOf((w) => (w.message(1, (m) => m.int64(1, 5)), w.int64(2, 9))));
    const r = new ProtoReader(out);
    r.next();
    const sub = r.sub();
    expect(sub.next() && sub.int64()).toBe(5);
    expect(sub.next()).toBe(false);
    expect(r.next() && r.field).toBe(2);
  });
});
