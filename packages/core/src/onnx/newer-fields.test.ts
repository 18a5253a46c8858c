/**
 * Fields ONNX added in IR 10–14 (onnx 1.15–1.23): metadata_props on nodes, value infos, graphs and
 * tensors; node device configurations and overloads; model device configurations; FunctionProto's
 * attribute_proto, value_info, overload and metadata. Each model here is hand-written protobuf, so
 * the decoder meets exactly these fields. Unknown fields must be skipped, never fatal.
 */
import { describe, expect, test } from 'vitest';
import { ProtoWriter } from './wire-writer.js';
import { ATTRIBUTE, ATTRIBUTE_TYPE, FUNCTION, GRAPH, IR10_FIELDS, MODEL, NODE, OPSET_ID, STRING_ENTRY, TENSOR, TYPE, TYPE_TENSOR, VALUE_INFO } from './fields.js';
import { decodeModel } from './decode-model.js';
import { encodeModel } from './encode-model.js';
import { ProtoReader, WireType } from './wire-reader.js';

function entry(w: ProtoWriter, field: number, key: string, value: string): void {
  w.message(field, (e) => {
    e.string(STRING_ENTRY.key, key);
    e.string(STRING_ENTRY.value, value);
  });
}

function floatInfo(w: ProtoWriter, field: number, name: string, withMetadata: boolean): void {
  w.message(field, (v) => {
    v.string(VALUE_INFO.name, name);
    v.message(VALUE_INFO.type, (t) => t.message(TYPE.tensorType, (tt) => tt.int64(TYPE_TENSOR.elemType, 1)));
    if (withMetadata) entry(v, IR10_FIELDS.valueInfoMetadata, 'origin', 'hand-written');
  });
}

/** A FunctionProto `custom.Scale` (overload `v2`) with a typed default attribute, value info and metadata. */
function functionProto(w: ProtoWriter): void {
  w.message(MODEL.functions, (f) => {
    f.string(FUNCTION.name, 'Scale');
    f.string(FUNCTION.domain, 'custom');
    f.string(IR10_FIELDS.functionOverload, 'v2');
    f.string(FUNCTION.input, 'a');
    f.string(FUNCTION.output, 'b');
    f.string(FUNCTION.attribute, 'plain');
    f.message(IR10_FIELDS.functionAttributeProto, (a) => {
      a.string(ATTRIBUTE.name, 'alpha');
      a.int64(ATTRIBUTE.type, ATTRIBUTE_TYPE.float);
      a.float(ATTRIBUTE.f, 2);
    });
    f.message(FUNCTION.node, (n) => {
      n.string(NODE.input, 'a');
      n.string(NODE.output, 'b');
      n.string(NODE.opType, 'Identity');
    });
    f.message(FUNCTION.opsetImport, (o) => o.int64(OPSET_ID.version, 21));
    floatInfo(f, IR10_FIELDS.functionValueInfo, 'a', true);
    entry(f, IR10_FIELDS.functionMetadata, 'author', 'test');
  });
}

function modelBytes(irVersion: number): Uint8Array {
  const w = new ProtoWriter();
  w.int64(MODEL.irVersion, irVersion);
  w.message(MODEL.graph, (g) => {
    g.string(GRAPH.name, 'g');
    g.message(GRAPH.node, (n) => {
      n.string(NODE.input, 'x');
      n.string(NODE.output, 'y');
      n.string(NODE.opType, 'Scale');
      n.string(NODE.domain, 'custom');
      n.string(NODE.overload, 'v2');
      entry(n, IR10_FIELDS.nodeMetadata, 'note', 'calls overload v2');
      // A NodeDeviceConfigurationProto: configuration_id (1), sharding_spec (2, skipped content), pipeline_stage (3).
      n.message(IR10_FIELDS.nodeDeviceConfigurations, (d) => {
        d.string(1, 'mesh');
        d.message(2, (s) => s.string(1, 'x'));
        d.int64(3, 0);
      });
    });
    g.message(GRAPH.initializer, (t) => {
      t.int64(TENSOR.dims, 1);
      t.int64(TENSOR.dataType, 1);
      t.string(TENSOR.name, 'w');
      t.bytes(TENSOR.rawData, new Uint8Array(new Float32Array([3]).buffer));
      entry(t, IR10_FIELDS.tensorMetadata, 'quantized', 'no');
    });
    floatInfo(g, GRAPH.input, 'x', true);
    floatInfo(g, GRAPH.output, 'y', true);
    entry(g, IR10_FIELDS.graphMetadata, 'stage', 'main');
    // Fields from a future IR: a varint and a message under numbers no proto defines today.
    g.int64(99, 7);
    g.message(98, (m) => m.string(1, 'future'));
  });
  w.message(MODEL.opsetImport, (o) => o.int64(OPSET_ID.version, 21));
  w.message(MODEL.opsetImport, (o) => {
    o.string(OPSET_ID.domain, 'custom');
    o.int64(OPSET_ID.version, 1);
  });
  // A DeviceConfigurationProto: name (1), num_devices (2), device (3).
  w.message(IR10_FIELDS.modelConfiguration, (c) => {
    c.string(1, 'mesh');
    c.int64(2, 2);
    c.string(3, 'gpu0');
    c.string(3, 'gpu1');
  });
  functionProto(w);
  w.int64(97, 1);
  return w.finish();
}

/** The string value of `field` in each FunctionProto of encoded model bytes. */
function functionStrings(bytes: Uint8Array, field: number): string[] {
  const out: string[] = [];
  const r = new ProtoReader(bytes);
  while (r.next()) {
    if (r.field !== MODEL.functions) {
      r.skip();
      continue;
    }
    const f = r.sub();
    while (f.next()) {
      if (f.field === field && f.wireType === WireType.LengthDelimited) out.push(f.string());
      else f.skip();
    }
  }
  return out;
}

describe('fields of IR 10–14', () => {
  for (const ir of [10, 11, 12, 13, 14]) {
    test(`IR ${ir}: a model with every newer field decodes`, () => {
      const m = decodeModel(modelBytes(ir));
      expect(m.irVersion).toBe(ir);
      expect(m.opsetImports).toEqual(new Map([['', 21], ['custom', 1]]));
      expect(m.graph.nodes).toHaveLength(1);
      expect(m.graph.nodes[0]).toMatchObject({ opType: 'Scale', domain: 'custom', overload: 'v2', inputs: ['x'], outputs: ['y'] });
      expect(m.graph.inputs.map((v) => v.name)).toEqual(['x']);
      expect(m.graph.inputs[0].type).toEqual({ kind: 'tensor', elemType: 'float32' });
      expect(Array.from(m.graph.initializers.get('w')!.data as Float32Array)).toEqual([3]);
      expect(m.functionNames).toEqual(['Scale']);
    });
  }

  test('encoding keeps the node overload and the function body with its overload and attribute_proto', () => {
    const m = decodeModel(modelBytes(10));
    const bytes = encodeModel(m);
    const back = decodeModel(bytes);
    expect(back.graph.nodes[0].overload).toBe('v2');
    expect(functionStrings(bytes, IR10_FIELDS.functionOverload)).toEqual(['v2']);
    expect(functionStrings(bytes, FUNCTION.domain)).toEqual(['custom']);
    // attribute_proto survives as a message: its name is the first field inside.
    const attrs: string[] = [];
    const r = new ProtoReader(bytes);
    while (r.next()) {
      if (r.field !== MODEL.functions) {
        r.skip();
        continue;
      }
      const f = r.sub();
      while (f.next()) {
        if (f.field !== IR10_FIELDS.functionAttributeProto) {
          f.skip();
          continue;
        }
        const a = f.sub();
        while (a.next()) {
          if (a.field === ATTRIBUTE.name) attrs.push(a.string());
          else a.skip();
        }
      }
    }
    expect(attrs).toEqual(['alpha']);
  });

  test('IR 15 is refused with a coded error rather than half-read', () => {
    expect(() => decodeModel(modelBytes(15))).toThrow(/IR version 15 is not supported/);
  });
});
