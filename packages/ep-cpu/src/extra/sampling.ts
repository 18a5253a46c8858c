/**
 * The four distribution generators: RandomUniform / RandomNormal take their shape from the `shape`
 * attribute; the *Like variants from their input (whose values are ignored). Output dtype: `dtype`,
 * else float32 (RandomUniform/Normal) or the input's type (*Like, which must then be a float type).
 */
import { SwitchyardError, elementCount, type AttributeReader, type DataType, type KernelDef } from '@switchyard/core';
import { writeNumbers } from '../math/numeric.js';
import { allocOutput, TENSOR_TYPES } from '../tensor-ops/elements.js';
import { tensorKernel } from '../tensor-ops/define.js';
import { dtypeAttribute } from './dtype-attr.js';
import { randomSourceFor, type RandomSource } from './random.js';

export const SAMPLE_TYPES: readonly DataType[] = ['float32', 'float64', 'float16'];

/** Draws one value of the distribution the node's attributes describe. */
export type Draw = (src: RandomSource) => number;

export interface GeneratorSpec {
  opType: string;
  like: boolean;
  distribution(attrs: AttributeReader): Draw;
}

export function generatorKernel(spec: GeneratorSpec): KernelDef {
  const { opType, like } = spec;
  return tensorKernel({
    opType,
    sinceVersion: 1,
    typeConstraints: like ? { T1: TENSOR_TYPES, T2: SAMPLE_TYPES } : { T: SAMPLE_TYPES },
    create({ attrs }) {
      const draw = spec.distribution(attrs);
      const src = randomSourceFor(attrs.has('seed') ? attrs.float('seed') : undefined, opType);
      const fixedType = like && !attrs.has('dtype') ? undefined : dtypeAttribute(attrs, 'dtype', 1, SAMPLE_TYPES, opType);
      const shape = like ? undefined : attrs.ints('shape');
      if (shape) elementCount(shape, `${opType} shape`);
      return {
        run(ctx) {
          let dims: readonly number[] = shape ?? [];
          let type = fixedType;
          if (like) {
            const input = ctx.input(0);
            dims = input.dims;
            if (!type && !SAMPLE_TYPES.includes(input.type)) {
              throw new SwitchyardError('INVALID_ARGUMENT', `${opType}: without a dtype attribute the input must be a float tensor, got ${input.type}`);
            }
            type ??= input.type;
          }
          if (!type) throw new SwitchyardError('INVALID_MODEL', `${opType}: no output dtype`);
          const out = allocOutput(ctx, 0, type, dims);
          const values = new Float64Array(out.size);
          for (let i = 0; i < values.length; i++) values[i] = draw(src);
          writeNumbers(out, values);
          return [out];
        },
      };
    },
  });
}
