/**
 * Mutations of a parsed ONNX model (proto-tree.ts). Generic ones change any field (a varint to an
 * extreme, a string to another name of the model or a path, a message dropped, duplicated or
 * swapped); targeted ones aim at what a loader or runtime must refuse: negative or huge dims, data
 * lengths that disagree with dims, cycles, dangling and missing edges, unknown ops and domains,
 * absurd opsets and IR versions.
 */
import type { Random } from '../random-graph/random.js';
import { cloneMessage, isMessage, messagesOf, pb, textOf, type ProtoField, type ProtoMessage } from './proto-tree.js';

/** Varints a careless reader mishandles: signs, 32-bit edges, beyond 2^53, the int64 extremes. */
const EXTREME_INTS: readonly bigint[] = [
  0n, 1n, 2n, 3n, 7n, 16n, 255n, -1n, -2n, -1000n, 2n ** 31n - 1n, 2n ** 31n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 40n, 2n ** 53n, 2n ** 53n + 1n, 2n ** 62n, 2n ** 63n - 1n, -(2n ** 63n), 10_000n, 100_000n,
];

const HOSTILE_STRINGS: readonly string[] = [
  '', ' ', 'x', '\0', 'a'.repeat(4096), '..', '../model.onnx', '../../../../etc/passwd', '/etc/passwd', 'C:\\Windows\\win.ini', 'ai.onnx', 'ai.onnx.ml',
  'com.microsoft', 'com.nowhere', 'NoSuchOp', 'Loop', 'If', 'Scan', 'Identity', '\u{1F600}', 'ÿ\xfe',
];

export function extremeInt(rng: Random): bigint {
  return rng.chance(0.8) ? rng.pick(EXTREME_INTS) : BigInt(rng.int(-5, 70));
}

/** Strings of the model (value, node, op names): rewiring an edge to one of them makes cycles and crossings. */
function namesOf(root: ProtoMessage): string[] {
  const names = new Set<string>();
  for (const m of messagesOf(root)) {
    if (m.type !== 'Node' && m.type !== 'ValueInfo' && m.type !== 'Tensor') continue;
    for (const f of m.fields) {
      const s = textOf(f);
      if (s !== undefined && s.length < 200) names.add(s);
    }
  }
  return [...names];
}

function randomBytes(rng: Random, n: number): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = rng.int(0, 255);
  return b;
}

function mutateBytes(rng: Random, b: Uint8Array): Uint8Array {
  switch (rng.int(0, 4)) {
    case 0:
      return b.slice(0, rng.int(0, Math.max(0, b.length - 1)));
    case 1: {
      const out = new Uint8Array(b.length + rng.int(1, 64));
      out.set(b);
      out.set(randomBytes(rng, out.length - b.length), b.length);
      return out;
    }
    case 2: {
      const out = b.slice();
      for (let k = rng.int(1, 4); k > 0 && out.length; k--) out[rng.int(0, out.length - 1)] ^= 1 << rng.int(0, 7);
      return out;
    }
    case 3:
      return randomBytes(rng, rng.int(0, 32));
    default:
      return new Uint8Array(0);
  }
}

interface Site {
  parent: ProtoMessage;
  index: number;
}

function sitesOf(root: ProtoMessage): Site[] {
  const sites: Site[] = [];
  for (const m of messagesOf(root)) m.fields.forEach((_, index) => sites.push({ parent: m, index }));
  return sites;
}

/** Changes one field anywhere in the tree. */
export function mutateAnyField(rng: Random, root: ProtoMessage): string {
  const sites = sitesOf(root);
  if (sites.length === 0) {
    root.fields.push(pb.int(rng.int(1, 30), extremeInt(rng)));
    return 'added a field to an empty message';
  }
  const { parent, index } = rng.pick(sites);
  const f = parent.fields[index];
  const where = `${parent.type}.${f.field}`;
  if (rng.chance(0.12)) {
    parent.fields.splice(index, 1);
    return `dropped ${where}`;
  }
  if (rng.chance(0.08)) {
    parent.fields.splice(index, 0, { ...f, value: isMessage(f.value) ? cloneMessage(f.value) : f.value });
    return `duplicated ${where}`;
  }
  if (rng.chance(0.05)) {
    parent.fields.push(rng.chance(0.5) ? pb.int(rng.int(1, 40), extremeInt(rng)) : pb.bytes(rng.int(1, 40), randomBytes(rng, rng.int(0, 16))));
    return `added an unknown field to ${parent.type}`;
  }
  if (f.wire === 0) {
    f.value = BigInt.asUintN(64, extremeInt(rng));
    return `set ${where} to ${BigInt.asIntN(64, f.value)}`;
  }
  if (f.wire === 1 || f.wire === 5) {
    f.value = randomBytes(rng, f.wire === 1 ? 8 : 4);
    return `randomised ${where}`;
  }
  if (isMessage(f.value)) {
    // Another message of the same type in its place (an edge crossing, a node moved), or garbage bytes.
    const same = messagesOf(root).filter((m) => m.type === (f.value as ProtoMessage).type && m !== f.value);
    if (same.length && rng.chance(0.5)) {
      f.value = cloneMessage(rng.pick(same));
      return `replaced ${where} with another ${f.value.type}`;
    }
    parent.fields.splice(index, 1);
    const swap = rng.int(0, parent.fields.length);
    parent.fields.splice(swap, 0, f);
    return `moved ${where} to position ${swap}`;
  }
  const text = textOf(f);
  if (text !== undefined && rng.chance(0.6)) {
    const names = namesOf(root);
    const next = names.length && rng.chance(0.6) ? rng.pick(names) : rng.pick(HOSTILE_STRINGS);
    f.value = new TextEncoder().encode(next);
    return `set ${where} to '${next.slice(0, 40)}'`;
  }
  f.value = mutateBytes(rng, f.value as Uint8Array);
  return `changed the bytes of ${where}`;
}

function messagesOfType(root: ProtoMessage, type: ProtoMessage['type']): ProtoMessage[] {
  return messagesOf(root).filter((m) => m.type === type);
}

function stringFields(m: ProtoMessage, field: number): ProtoField[] {
  return m.fields.filter((f) => f.field === field && textOf(f) !== undefined);
}

const utf8 = new TextEncoder();

type Targeted = (rng: Random, root: ProtoMessage) => string | undefined;

/**
 * The targeted mutations, each aimed at one rule a loader or runtime must enforce. Weights favour the
 * ones whose models still load (values, dims, attributes): they reach shape inference and the kernels.
 */
export const TARGETED: ReadonlyArray<readonly [name: string, mutate: Targeted, weight: number]> = [
  [
    'dims',
    (rng, root) => {
      // Tensor.dims (field 1), Dimension.dim_value (field 1): negative, zero, huge.
      const targets = [...messagesOfType(root, 'Tensor'), ...messagesOfType(root, 'Dimension')];
      if (!targets.length) return undefined;
      const m = rng.pick(targets);
      const dims = m.fields.filter((f) => f.field === 1 && f.wire === 0);
      const value = rng.pick([-1n, -7n, 0n, 2n ** 31n, 2n ** 40n, 2n ** 62n, -(2n ** 63n), 100_000n, 3n]);
      if (dims.length && rng.chance(0.8)) rng.pick(dims).value = BigInt.asUintN(64, value);
      else m.fields.push(pb.int(1, value));
      return `${m.type} dim set to ${value}`;
    },
    3,
  ],
  [
    'data-length',
    (rng, root) => {
      const tensors = messagesOfType(root, 'Tensor');
      if (!tensors.length) return undefined;
      const t = rng.pick(tensors);
      const data = t.fields.filter((f) => [4, 5, 6, 7, 9, 10, 11].includes(f.field));
      if (data.length && rng.chance(0.7)) {
        const f = rng.pick(data);
        if (f.value instanceof Uint8Array) f.value = mutateBytes(rng, f.value);
        else t.fields.splice(t.fields.indexOf(f), 1);
        return `tensor data field ${f.field} resized`;
      }
      t.fields.push(pb.bytes(9, randomBytes(rng, rng.int(0, 40))));
      return 'tensor given raw_data of another length';
    },
    1,
  ],
  [
    'cycle',
    (rng, root) => {
      const nodes = messagesOfType(root, 'Node');
      if (nodes.length < 1) return undefined;
      // A node reading a value made by itself or by a node after it: a cycle once the order is resolved.
      const i = rng.int(0, nodes.length - 1);
      const j = rng.int(i, nodes.length - 1);
      const inputs = stringFields(nodes[i], 1);
      const outputs = stringFields(nodes[j], 2);
      if (!inputs.length || !outputs.length) return undefined;
      rng.pick(inputs).value = (rng.pick(outputs).value as Uint8Array).slice();
      return `node ${i} reads an output of node ${j}`;
    },
    1,
  ],
  [
    'dangling',
    (rng, root) => {
      const nodes = messagesOfType(root, 'Node');
      const withInputs = nodes.filter((n) => stringFields(n, 1).length);
      if (!withInputs.length) return undefined;
      const f = rng.pick(stringFields(rng.pick(withInputs), 1));
      f.value = utf8.encode(`dangling_${rng.int(0, 99)}`);
      return 'a node input names no value';
    },
    1,
  ],
  [
    'missing-input',
    (rng, root) => {
      const holders = [...messagesOfType(root, 'Node'), ...messagesOfType(root, 'Graph')];
      if (!holders.length) return undefined;
      const m = rng.pick(holders);
      // Node inputs (1), graph inputs (11), outputs (12), initializers (5).
      const field = m.type === 'Node' ? rng.pick([1, 2]) : rng.pick([5, 11, 12]);
      const fs = m.fields.filter((f) => f.field === field);
      if (!fs.length) return undefined;
      const f = rng.pick(fs);
      if (m.type === 'Node' && rng.chance(0.5)) f.value = new Uint8Array(0);
      else m.fields.splice(m.fields.indexOf(f), 1);
      return `${m.type} field ${field} removed or emptied`;
    },
    1,
  ],
  [
    'unknown-op',
    (rng, root) => {
      const nodes = messagesOfType(root, 'Node');
      if (!nodes.length) return undefined;
      const n = rng.pick(nodes);
      const field = rng.chance(0.5) ? 4 : 7;
      const value = field === 4 ? rng.pick(['NoSuchOp', '', 'conv', 'Loop', 'If', 'Scan', 'Constant']) : rng.pick(['com.nowhere', 'ai.onnx.ml', 'com.microsoft', 'ai.onnx', '']);
      n.fields = n.fields.filter((f) => f.field !== field);
      n.fields.push(pb.str(field, value));
      return `node ${field === 4 ? 'op' : 'domain'} set to '${value}'`;
    },
    1,
  ],
  [
    'opset',
    (rng, root) => {
      const value = rng.pick([0n, -1n, 1n, 6n, 10_000n, 2n ** 62n, 17n]);
      const imports = messagesOfType(root, 'OperatorSetId');
      if (imports.length && rng.chance(0.8)) {
        const m = rng.pick(imports);
        m.fields = m.fields.filter((f) => f.field !== 2);
        m.fields.push(pb.int(2, value));
        if (rng.chance(0.3)) m.fields.push(pb.str(1, rng.pick(['com.nowhere', 'ai.onnx.ml', ''])));
        return `opset import set to ${value}`;
      }
      root.fields = root.fields.filter((f) => f.field !== 8 || rng.chance(0.5));
      return 'opset imports removed';
    },
    1,
  ],
  [
    'ir-version',
    (rng, root) => {
      const value = rng.pick([0n, -1n, 1n, 2n, 3n, 1000n, 2n ** 62n]);
      root.fields = root.fields.filter((f) => f.field !== 1);
      root.fields.unshift(pb.int(1, value));
      return `ir_version set to ${value}`;
    },
    0.5,
  ],
  [
    'tensor-values',
    (rng, root) => {
      // Same length, extreme contents: shape tensors, indices, axes, pads that a kernel reads as sizes.
      const tensors = messagesOfType(root, 'Tensor').filter((t) => t.fields.some((f) => [4, 5, 7, 9].includes(f.field)));
      if (!tensors.length) return undefined;
      const t = rng.pick(tensors);
      const data = rng.pick(t.fields.filter((f) => [4, 5, 7, 9].includes(f.field)));
      if (data.field === 9 && data.value instanceof Uint8Array && data.value.length >= 4) {
        const bytes = data.value.slice();
        const view = new DataView(bytes.buffer);
        const wide = bytes.length % 8 === 0 && rng.chance(0.6);
        for (let k = rng.int(1, 3); k > 0; k--) {
          if (wide) view.setBigInt64(8 * rng.int(0, bytes.length / 8 - 1), BigInt.asIntN(64, extremeInt(rng)), true);
          else if (rng.chance(0.5)) view.setInt32(4 * rng.int(0, Math.floor(bytes.length / 4) - 1), Number(BigInt.asIntN(32, extremeInt(rng))), true);
          else view.setFloat32(4 * rng.int(0, Math.floor(bytes.length / 4) - 1), rng.pick([NaN, Infinity, -Infinity, 1e30, -1e30, 0, -0]), true);
        }
        data.value = bytes;
        return 'raw_data elements set to extremes';
      }
      if (data.wire === 0) data.value = BigInt.asUintN(64, extremeInt(rng));
      else if (data.wire === 5) {
        const b = new Uint8Array(4);
        new DataView(b.buffer).setFloat32(0, rng.pick([NaN, Infinity, -Infinity, 1e30]), true);
        data.value = b;
      } else return undefined;
      return `tensor field ${data.field} element set to an extreme`;
    },
    4,
  ],
  [
    'attribute',
    (rng, root) => {
      const attrs = messagesOfType(root, 'Attribute');
      if (!attrs.length) return undefined;
      const a = rng.pick(attrs);
      // Its declared type (20) to another kind, or its ints (8) / int (3) to extremes.
      if (rng.chance(0.4)) {
        a.fields = a.fields.filter((f) => f.field !== 20);
        a.fields.push(pb.int(20, rng.int(0, 15)));
        return 'attribute type changed';
      }
      const ints = a.fields.filter((f) => f.field === 3 || f.field === 8);
      if (ints.length) {
        rng.pick(ints).value = BigInt.asUintN(64, extremeInt(rng));
        return 'attribute integer set to an extreme';
      }
      a.fields.push(pb.int(rng.pick([3, 8]), extremeInt(rng)));
      return 'attribute given an extra integer';
    },
    4,
  ],
];

/** Applies one targeted mutation (by name, or a random one that applies); returns what it did. */
export function mutateTargeted(rng: Random, root: ProtoMessage): string {
  for (let attempt = 0; attempt < 6; attempt++) {
    const [name, mutate] = rng.weighted(TARGETED.map((t) => [t, t[2]] as const));
    const what = mutate(rng, root);
    if (what !== undefined) return `${name}: ${what}`;
  }
  return mutateAnyField(rng, root);
}
