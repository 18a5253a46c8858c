/** Checks feeds against the model's inputs: names, dtypes, ranks, fixed and symbolic dims. */
import { SwitchyardError } from '../errors.js';
import type { ValueInfo } from '../ir/graph.js';
import type { RuntimeValue } from '../registry/kernel-def.js';
import { Tensor } from '../tensor/tensor.js';

function shapeText(shape: readonly (number | string | undefined)[]): string {
  return `[${shape.map((d) => (d === undefined ? '?' : String(d))).join(', ')}]`;
}

/**
 * Returns the feeds as a map. Throws INVALID_ARGUMENT naming the input and what was expected when a
 * name is unknown, a required input is missing, or a tensor's dtype/shape disagrees with the model.
 */
export function validateFeeds(
  feeds: Record<string, unknown>,
  inputs: readonly ValueInfo[],
  optionalInputs: ReadonlySet<string>,
): Map<string, RuntimeValue> {
  if (typeof feeds !== 'object' || feeds === null || Array.isArray(feeds)) {
    throw new SwitchyardError('INVALID_ARGUMENT', 'run(feeds): feeds must be an object mapping input names to tensors');
  }
  const byName = new Map(inputs.map((i) => [i.name, i]));
  const expectedNames = inputs.map((i) => `'${i.name}'`).join(', ');
  const out = new Map<string, RuntimeValue>();
  for (const [name, value] of Object.entries(feeds)) {
    const info = byName.get(name);
    if (!info) throw new SwitchyardError('INVALID_ARGUMENT', `run(feeds): unknown input '${name}'; the model's inputs are ${expectedNames}`);
    out.set(name, checkValue(name, value, info));
  }
  const symbols = new Map<string, { size: number; input: string }>();
  for (const info of inputs) {
    const v = out.get(info.name);
    if (v === undefined) {
      if (optionalInputs.has(info.name)) continue;
      throw new SwitchyardError('INVALID_ARGUMENT', `run(feeds): missing input '${info.name}'; the model's inputs are ${expectedNames}`);
    }
    // A symbolic dim named twice must have one size across all inputs of a run.
    if (v instanceof Tensor && info.type?.kind === 'tensor' && info.type.shape) {
      info.type.shape.forEach((d, axis) => {
        if (typeof d !== 'string') return;
        const seen = symbols.get(d);
        if (seen && seen.size !== v.dims[axis]) {
          throw new SwitchyardError(
            'INVALID_ARGUMENT',
            `run(feeds): dimension '${d}' is ${seen.size} in input '${seen.input}' but ${v.dims[axis]} in input '${info.name}' (axis ${axis})`,
          );
        }
        symbols.set(d, { size: v.dims[axis], input: info.name });
      });
    }
  }
  return out;
}

function checkValue(name: string, value: unknown, info: ValueInfo): RuntimeValue {
  const type = info.type;
  if (type?.kind === 'sequence') {
    if (!Array.isArray(value) || !value.every((t) => t instanceof Tensor)) {
      throw new SwitchyardError('INVALID_ARGUMENT', `run(feeds): input '${name}' is a sequence; pass an array of Tensors`);
    }
    return value as Tensor[];
  }
  if (type?.kind === 'optional') {
    if (value === null) return null;
    if (value instanceof Tensor || (Array.isArray(value) && value.every((t) => t instanceof Tensor))) return value as RuntimeValue;
    throw new SwitchyardError('INVALID_ARGUMENT', `run(feeds): input '${name}' is optional; pass a Tensor, an array of Tensors, or null`);
  }
  if (!(value instanceof Tensor)) {
    throw new SwitchyardError('INVALID_ARGUMENT', `run(feeds): input '${name}' must be a Tensor, got ${value === null ? 'null' : typeof value}`);
  }
  if (type?.kind !== 'tensor') return value;
  if (value.type !== type.elemType) {
    throw new SwitchyardError('INVALID_ARGUMENT', `run(feeds): input '${name}' expects ${type.elemType}, got ${value.type}`);
  }
  const shape = type.shape;
  if (shape) {
    const bad =
      shape.length !== value.dims.length || shape.some((d, i) => typeof d === 'number' && d !== value.dims[i]);
    if (bad) {
      throw new SwitchyardError(
        'INVALID_ARGUMENT',
        `run(feeds): input '${name}' expects shape ${shapeText(shape)}, got [${value.dims.join(', ')}]`,
      );
    }
  }
  return value;
}
