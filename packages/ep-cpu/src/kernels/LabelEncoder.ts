/**
 * ai.onnx.ml LabelEncoder. Opset 1 maps strings to their index in `classes_strings` (int64 out) or
 * int64 indices to those strings, with `default_int64` / `default_string` for misses. Opsets 2–4
 * map each element through parallel `keys_*` / `values_*` lists (opset 4 adds `keys_tensor`,
 * `values_tensor` and `default_tensor`, which also allow int16/int32/double). NaN keys match NaN
 * inputs; a repeated key keeps its last value.
 */
import { SwitchyardError, defineKernel, type AttributeReader, type DataType, type Tensor } from '@switchyard/core';

const OP = 'LabelEncoder';

type Key = number | bigint | string;
type Value = number | bigint | string;

interface Column {
  type: DataType;
  items: Value[];
}

const LIST_TYPES = { floats: 'float32', int64s: 'int64', strings: 'string' } as const;

/** Reads the one `<prefix>_*` attribute that is set, as a typed column. */
function readColumn(attrs: AttributeReader, prefix: 'keys' | 'values', opset: number): Column {
  const present: Column[] = [];
  const tensor = opset >= 4 ? attrs.tensor(`${prefix}_tensor`) : undefined;
  if (tensor) present.push({ type: tensor.type, items: Array.from(tensor.data as ArrayLike<Value>) });
  if (attrs.has(`${prefix}_floats`)) present.push({ type: LIST_TYPES.floats, items: attrs.floats(`${prefix}_floats`) });
  if (attrs.has(`${prefix}_int64s`)) present.push({ type: LIST_TYPES.int64s, items: attrs.ints(`${prefix}_int64s`).map((v) => BigInt(v)) });
  if (attrs.has(`${prefix}_strings`)) present.push({ type: LIST_TYPES.strings, items: attrs.strings(`${prefix}_strings`) });
  if (present.length !== 1) throw new SwitchyardError('INVALID_MODEL', `${OP}: exactly one ${prefix}_* attribute must be set, found ${present.length}`);
  return present[0];
}

/** The value for keys not found: default_tensor (opset 4), else the default_* attribute of the values' type. */
function readDefault(attrs: AttributeReader, type: DataType, opset: number): Value {
  const t = opset >= 4 ? attrs.tensor('default_tensor') : undefined;
  if (t) {
    if (t.type !== type || t.size !== 1) throw new SwitchyardError('INVALID_MODEL', `${OP}: default_tensor must be one ${type} value, got ${t.type} [${t.dims.join(', ')}]`);
    return (t.data as ArrayLike<Value>)[0];
  }
  if (type === 'string') return attrs.string('default_string', '_Unused');
  if (type === 'float32' || type === 'float64') return attrs.float('default_float', -0);
  const v = attrs.int('default_int64', -1);
  return type === 'int64' ? BigInt(v) : v;
}

function mapping(keys: Column, values: Column, fallback: Value): { keyType: DataType; valueType: DataType; lookup(k: Key): Value } {
  if (keys.items.length !== values.items.length) {
    throw new SwitchyardError('INVALID_MODEL', `${OP}: ${keys.items.length} keys but ${values.items.length} values`);
  }
  // Map keys compare by SameValueZero: NaN finds NaN and −0 finds 0, as the spec's float keys want.
  const table = new Map<Key, Value>();
  keys.items.forEach((k, i) => table.set(k, values.items[i]));
  return { keyType: keys.type, valueType: values.type, lookup: (k) => table.get(k) ?? fallback };
}

/** Opset 1: the classes list read one way or the other, decided by the input's type at run time. */
function classesMapping(attrs: AttributeReader, inputType: DataType) {
  const classes = attrs.strings('classes_strings', []);
  if (inputType === 'string') {
    const index = new Map<Key, Value>();
    classes.forEach((c, i) => index.set(c, BigInt(i)));
    const fallback = BigInt(attrs.int('default_int64', -1));
    return { keyType: 'string' as DataType, valueType: 'int64' as DataType, lookup: (k: Key) => index.get(k) ?? fallback };
  }
  const fallback = attrs.string('default_string', '_Unused');
  return {
    keyType: 'int64' as DataType,
    valueType: 'string' as DataType,
    lookup: (k: Key) => {
      const i = Number(k);
      return i >= 0 && i < classes.length ? classes[i] : fallback;
    },
  };
}

export const labelEncoderKernel = defineKernel({
  ep: 'cpu',
  domain: 'ai.onnx.ml',
  opType: OP,
  sinceVersion: 1,
  implementation: 'ts',
  create({ attrs, opset }) {
    let table: ReturnType<typeof mapping> | undefined;
    if (opset >= 2) {
      const keys = readColumn(attrs, 'keys', opset);
      const values = readColumn(attrs, 'values', opset);
      table = mapping(keys, values, readDefault(attrs, values.type, opset));
    }
    return {
      run(ctx) {
        const x: Tensor = ctx.input(0);
        const m = table ?? classesMapping(attrs, x.type);
        if (x.type !== m.keyType) throw new SwitchyardError('INVALID_ARGUMENT', `${OP}: input is ${x.type} but the keys are ${m.keyType}`);
        const y = ctx.output(0, m.valueType, x.dims);
        const src = x.data as ArrayLike<Key>;
        const dst = y.data as unknown as Value[];
        for (let i = 0; i < x.size; i++) dst[i] = m.lookup(src[i]);
        return [y];
      },
    };
  },
});
