/** Constant: every `value*` attribute form (sparse_value is declined at lookup). */
import { SwitchyardError, Tensor, type AttributeValue, type Node } from '@switchyard/core';
import { allocOutput, copyRun, LAYOUT_TYPES } from '../tensor-ops/elements.js';
import { tensorKernel } from '../tensor-ops/define.js';

const VALUE_ATTRIBUTES = ['value', 'value_float', 'value_floats', 'value_int', 'value_ints', 'value_string', 'value_strings'];

/** The tensor a Constant attribute describes. */
export function constantValue(name: string, a: AttributeValue, op = 'Constant'): Tensor {
  switch (a.type) {
    case 'tensor':
      return a.value;
    case 'float':
      return new Tensor('float32', [a.value], []);
    case 'floats':
      return new Tensor('float32', a.value, [a.value.length]);
    case 'int':
      return new Tensor('int64', [BigInt(a.value)], []);
    case 'ints':
      return new Tensor('int64', a.value.map((v) => BigInt(v)), [a.value.length]);
    case 'string':
      return new Tensor('string', [a.value], []);
    case 'strings':
      return new Tensor('string', a.value, [a.value.length]);
    default:
      throw new SwitchyardError('INVALID_MODEL', `${op}: attribute '${name}' of type ${a.type} cannot give a value`);
  }
}

function valueAttribute(node: Node): string | undefined {
  return [...node.attributes.keys()].find((k) => VALUE_ATTRIBUTES.includes(k) || k === 'sparse_value');
}

export const constantKernel = tensorKernel({
  opType: 'Constant',
  sinceVersion: 1,
  typeConstraints: { T: LAYOUT_TYPES },
  supports(node) {
    const name = valueAttribute(node);
    if (name === undefined) return 'Constant has no value attribute';
    if (name === 'sparse_value') return 'Constant with sparse_value is not supported';
    return true;
  },
  create({ node }) {
    const name = valueAttribute(node);
    if (name === undefined || name === 'sparse_value') {
      throw new SwitchyardError('UNSUPPORTED', `Constant '${node.name}': needs one of ${VALUE_ATTRIBUTES.join(', ')}`);
    }
    const value = constantValue(name, node.attributes.get(name)!);
    return {
      run(ctx) {
        // Copied per run so a consumer can never scribble on the model's attribute.
        const out = allocOutput(ctx, 0, value.type, value.dims);
        copyRun(value.data, 0, out.data, 0, value.size);
        return [out];
      },
    };
  },
});
