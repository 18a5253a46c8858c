/** Checks feeds against the model's inputs: names, dtypes, ranks, fixed and symbolic dims. */
import { SwitchyardError } from '../errors.js';
import type { ValueInfo } from '../ir/graph.js';
import type { RuntimeValue } from '../registry/kernel-def.js';
import { Tensor } from '../tensor/tensor.js';

function shapeText(shape: readonly (number | string | undefined)[]): string {
  return `[${shape.map((d) => (d === undefined ? '?' : String(d))).join(', ')}]`;
}

/**
 * Checks the feeds of every run of one session. What depends only on the model (the inputs by name,
 * their symbolic axes, the list of names errors quote) is worked out once, here.
 */
export class FeedValidator {
  readonly #inputs: readonly ValueInfo[];
  readonly #optional: ReadonlySet<string>;
  readonly #byName: Map<string, ValueInfo>;
  /** Per input (in order), its symbolic axes as [axis, symbol]; empty for inputs without any. */
  readonly #symbolic: Array<Array<[number, string]>>;
  readonly #anySymbolic: boolean;

  constructor(inputs: readonly ValueInfo[], optionalInputs: ReadonlySet<string>) {
    this.#inputs = inputs;
    this.#optional = optionalInputs;
    this.#byName = new Map(inputs.map((i) => [i.name, i]));
    this.#symbolic = inputs.map((info) => {
      const shape = info.type?.kind === 'tensor' ? info.type.shape : undefined;
      const axes: Array<[number, string]> = [];
      shape?.forEach((d, axis) => typeof d === 'string' && axes.push([axis, d]));
      return axes;
    });
    this.#anySymbolic = this.#symbolic.some((a) => a.length > 0);
  }

  #expectedNames(): string {
    return this.#inputs.map((i) => `'${i.name}'`).join(', ');
  }

  /**
   * Returns the feeds as a map. Throws INVALID_ARGUMENT naming the input and what was expected when a
   * name is unknown, a required input is missing, or a tensor's dtype/shape disagrees with the model.
   */
  validate(feeds: Record<string, unknown>): Map<string, RuntimeValue> {
    if (typeof feeds !== 'object' || feeds === null || Array.isArray(feeds)) {
      throw new SwitchyardError('INVALID_ARGUMENT', 'run(feeds): feeds must be an object mapping input names to tensors');
    }
    const out = new Map<string, RuntimeValue>();
    for (const name in feeds) {
      if (!Object.prototype.hasOwnProperty.call(feeds, name)) continue;
      const info = this.#byName.get(name);
      if (!info) throw new SwitchyardError('INVALID_ARGUMENT', `run(feeds): unknown input '${name}'; the model's inputs are ${this.#expectedNames()}`);
      out.set(name, checkValue(name, feeds[name], info));
    }
    // A symbolic dim named twice must have one size across all inputs of a run.
    const symbols = this.#anySymbolic ? new Map<string, { size: number; input: string }>() : undefined;
    const inputs = this.#inputs;
    for (let k = 0; k < inputs.length; k++) {
      const info = inputs[k];
      const v = out.get(info.name);
      if (v === undefined) {
        if (this.#optional.has(info.name)) continue;
        throw new SwitchyardError('INVALID_ARGUMENT', `run(feeds): missing input '${info.name}'; the model's inputs are ${this.#expectedNames()}`);
      }
      if (!symbols || !(v instanceof Tensor)) continue;
      for (const [axis, d] of this.#symbolic[k]) {
        const seen = symbols.get(d);
        if (seen && seen.size !== v.dims[axis]) {
          throw new SwitchyardError(
            'INVALID_ARGUMENT',
            `run(feeds): dimension '${d}' is ${seen.size} in input '${seen.input}' but ${v.dims[axis]} in input '${info.name}' (axis ${axis})`,
          );
        }
        symbols.set(d, { size: v.dims[axis], input: info.name });
      }
    }
    return out;
  }
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
    let bad = shape.length !== value.dims.length;
    for (let i = 0; i < shape.length && !bad; i++) bad = typeof shape[i] === 'number' && shape[i] !== value.dims[i];
    if (bad) {
      throw new SwitchyardError(
        'INVALID_ARGUMENT',
        `run(feeds): input '${name}' expects shape ${shapeText(shape)}, got [${value.dims.join(', ')}]`,
      );
    }
  }
  return value;
}
