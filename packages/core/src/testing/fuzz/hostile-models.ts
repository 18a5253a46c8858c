/**
 * Models the fuzzer builds by hand, wire field by wire field: subgraphs nested to any depth, external
 * data whose location, offset and length point anywhere (with the files and symlinks to go with it),
 * and random protobuf shaped loosely like a model. Each says what a correct run returns, when one is possible.
 */
import type { Random } from '../random-graph/random.js';
import { extremeInt } from './mutations.js';
import { pb, serializeMessage, type MessageType, type ProtoField, type ProtoMessage } from './proto-tree.js';

const FLOAT = 1;
const BOOL = 9;

function tensorType(elemType: number, dims: Array<number | string>): ProtoMessage {
  const shape = pb.msg(
    'Shape',
    dims.map((d) => pb.sub(1, pb.msg('Dimension', [typeof d === 'number' ? pb.int(1, d) : pb.str(2, d)]))),
  );
  return pb.msg('Type', [pb.sub(1, pb.msg('TensorType', [pb.int(1, elemType), pb.sub(2, shape)]))]);
}

function valueInfo(name: string, elemType: number, dims: Array<number | string>): ProtoMessage {
  return pb.msg('ValueInfo', [pb.str(1, name), pb.sub(2, tensorType(elemType, dims))]);
}

function node(op: string, inputs: string[], outputs: string[], attributes: ProtoMessage[] = []): ProtoMessage {
  return pb.msg('Node', [...inputs.map((i) => pb.str(1, i)), ...outputs.map((o) => pb.str(2, o)), pb.str(4, op), ...attributes.map((a) => pb.sub(5, a))]);
}

function model(graph: ProtoMessage, opset = 17, irVersion = 8): ProtoMessage {
  return pb.msg('Model', [pb.int(1, irVersion), pb.str(2, 'switchyard-fuzz'), pb.sub(7, graph), pb.sub(8, pb.msg('OperatorSetId', [pb.str(1, ''), pb.int(2, opset)]))]);
}

/** What a run that succeeds must return: output name → float32 values. */
export type Expected = Record<string, Float32Array>;

/**
 * `If` nodes nested `depth` deep through their then-branches, each branch reading the outer `x`; the
 * innermost then-branch is `Identity(x)`, every else-branch `Neg(x)`. With `cond` true the output is x.
 */
export function nestedIfModel(depth: number): Uint8Array {
  const branch = (level: number, negate: boolean): ProtoMessage => {
    const out = `y${level}${negate ? 'n' : ''}`;
    let body: ProtoMessage;
    if (level === depth || negate) body = node(negate ? 'Neg' : 'Identity', ['x'], [out]);
    else {
      body = node('If', ['cond'], [out], [
        pb.msg('Attribute', [pb.str(1, 'then_branch'), pb.int(20, 5), pb.sub(6, branch(level + 1, false))]),
        pb.msg('Attribute', [pb.str(1, 'else_branch'), pb.int(20, 5), pb.sub(6, branch(level + 1, true))]),
      ]);
    }
    return pb.msg('Graph', [pb.sub(1, body), pb.str(2, `g${level}${negate ? 'n' : ''}`), pb.sub(12, valueInfo(out, FLOAT, [4]))]);
  };
  const top = branch(0, false);
  top.fields.push(pb.sub(11, valueInfo('x', FLOAT, [4])), pb.sub(11, valueInfo('cond', BOOL, [])));
  return serializeMessage(model(top));
}

/** A file the case needs beside its model: bytes, a directory, or a symlink. */
export type CaseFile = { path: string; bytes: Uint8Array } | { path: string; directory: true } | { path: string; symlinkTo: string };

export interface ExternalDataCase {
  /** Relative to the case folder; the model lies at `model/model.onnx`. */
  files: CaseFile[];
  model: Uint8Array;
  what: string;
  /** x + w, when the external entry is valid (the run must then return it). */
  expected?: Expected;
  x: Float32Array;
}

/**
 * `y = Add(x, w)` with `w` (float32[n]) in external data. Its location, offset and length are drawn
 * from valid and hostile choices: paths out of the folder (`..`, absolute, through symlinks), missing
 * files, directories, offsets and lengths past the end or disagreeing with the dims.
 */
export function externalDataCase(rng: Random, caseFolder: string): ExternalDataCase {
  const n = rng.int(1, 8);
  const pad = rng.int(0, 3) * 4;
  const data = new Float32Array(n + pad / 4);
  for (let i = 0; i < data.length; i++) data[i] = rng.int(-50, 50) / 4;
  const fileBytes = new Uint8Array(data.buffer);
  const files: CaseFile[] = [
    { path: 'model/w.bin', bytes: fileBytes },
    { path: 'outside.bin', bytes: fileBytes },
    { path: 'model/sub', directory: true },
    { path: 'model/link-out.bin', symlinkTo: rng.pick(['../outside.bin', '/etc/passwd', '/proc/self/mem', '/dev/zero']) },
    { path: 'model/link-in.bin', symlinkTo: 'w.bin' },
  ];
  const location = rng.pick([
    'w.bin', 'w.bin', 'link-in.bin', './w.bin', 'sub/../w.bin', '../outside.bin', '../../../../etc/passwd', '/etc/passwd', `${caseFolder}/model/w.bin`,
    'link-out.bin', 'missing.bin', 'sub', '', 'w.bin\0.txt', 'C:\\w.bin', '/dev/zero', 'sub/../../outside.bin',
  ]);
  const offsetChoice = rng.pick([0, 0, 0, 4, pad, fileBytes.length, fileBytes.length + 1, 2 ** 40, -1, undefined]);
  const lengthChoice = rng.pick([n * 4, n * 4, n * 4 - 1, n * 4 + 4, 0, 2 ** 40, -1, undefined]);
  const dims = rng.chance(0.85) ? [n] : [rng.pick([n + 1, 0, -1, 2 ** 31, n * 2])];
  const entry = (key: string, value: string) => pb.sub(13, pb.msg('StringEntry', [pb.str(1, key), pb.str(2, value)]));
  const tensorFields: ProtoField[] = [...dims.map((d) => pb.int(1, d)), pb.int(2, FLOAT), pb.str(8, 'w'), entry('location', location)];
  if (offsetChoice !== undefined) tensorFields.push(entry('offset', String(offsetChoice)));
  if (lengthChoice !== undefined) tensorFields.push(entry('length', String(lengthChoice)));
  if (rng.chance(0.1)) tensorFields.push(entry('checksum', 'abc'));
  const dataLocation = rng.chance(0.95) ? 1 : rng.pick([0, 2, -1]);
  tensorFields.push(pb.int(14, dataLocation));
  // raw_data as well (zeros): read only when data_location is not EXTERNAL.
  const withRaw = rng.chance(0.05);
  if (withRaw) tensorFields.push(pb.bytes(9, new Uint8Array(n * 4)));
  const graph = pb.msg('Graph', [
    pb.sub(1, node('Add', ['x', 'w'], ['y'])),
    pb.str(2, 'external'),
    pb.sub(5, pb.msg('Tensor', tensorFields)),
    pb.sub(11, valueInfo('x', FLOAT, [n])),
    pb.sub(12, valueInfo('y', FLOAT, [n])),
  ]);
  const x = new Float32Array(n).map((_, i) => i - 1);
  const offset = offsetChoice ?? 0;
  const readsInside = ['w.bin', 'link-in.bin', './w.bin', 'sub/../w.bin'].includes(location);
  const valid = readsInside && dims[0] === n && offset >= 0 && offset % 4 === 0 && offset + n * 4 <= fileBytes.length && (lengthChoice === undefined || lengthChoice === n * 4);
  let expected: Expected | undefined;
  if (dataLocation !== 1) {
    if (withRaw && dims[0] === n) expected = { y: x.slice() };
  } else if (valid && !withRaw) {
    const w = new Float32Array(fileBytes.buffer.slice(offset, offset + n * 4));
    expected = { y: x.map((v, i) => v + w[i]) };
  }
  return { files, model: serializeMessage(model(graph)), what: `external data at '${location}' offset ${offsetChoice} length ${lengthChoice} dims [${dims}]`, expected, x };
}

/** Length-delimited fields that hold sub-messages, per type (a loose copy of the schema, for generation). */
const CHILDREN: Partial<Record<MessageType, ReadonlyArray<readonly [number, MessageType]>>> = {
  Model: [[7, 'Graph'], [8, 'OperatorSetId']],
  Graph: [[1, 'Node'], [5, 'Tensor'], [11, 'ValueInfo'], [12, 'ValueInfo']],
  Node: [[5, 'Attribute']],
  Attribute: [[5, 'Tensor'], [6, 'Graph']],
  ValueInfo: [[2, 'Type']],
  Type: [[1, 'TensorType']],
  TensorType: [[2, 'Shape']],
  Shape: [[1, 'Dimension']],
};

const WORDS = ['x', 'y', 'z', 'Add', 'Relu', 'If', 'Loop', 'Conv', 'MatMul', 'Reshape', '', 'ai.onnx', 'then_branch', 'body', 'value', 'axis'];

/** A random message of `type`: known sub-messages (to `depth`), varints, strings, fixed values, unknown fields. */
export function randomMessage(rng: Random, type: MessageType, depth: number): ProtoMessage {
  const fields: ProtoField[] = [];
  const children = CHILDREN[type] ?? [];
  for (let k = rng.int(0, 6); k > 0; k--) {
    const roll = rng.next();
    if (roll < 0.35 && children.length && depth > 0) {
      const [field, child] = rng.pick(children);
      fields.push(pb.sub(field, randomMessage(rng, child, depth - 1)));
    } else if (roll < 0.6) fields.push(pb.int(rng.int(1, 25), extremeInt(rng)));
    else if (roll < 0.85) fields.push(pb.str(rng.int(1, 25), rng.pick(WORDS)));
    else if (roll < 0.95) {
      const b = new Uint8Array(rng.pick([4, 8]));
      for (let i = 0; i < b.length; i++) b[i] = rng.int(0, 255);
      fields.push({ field: rng.int(1, 25), wire: b.length === 4 ? 5 : 1, value: b });
    } else fields.push(pb.bytes(rng.int(1, 25), new Uint8Array(rng.int(0, 20)).map(() => rng.int(0, 255))));
  }
  return { type, fields };
}
