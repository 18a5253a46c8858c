/**
 * Shared shape of the ai.onnx.preview.training optimizers (Adagrad, Adam, Momentum): inputs are R (a
 * scalar learning rate), T (a scalar int64 step count), then `inputGroups` runs of n tensors each
 * (X1…Xn, G1…Gn, …); outputs are `outputGroups` runs of n tensors (X1_new…Xn_new, …). Each element of
 * each optimized tensor is updated independently, so the op is one per-element rule.
 */
import { SwitchyardError, defineKernel, type AttributeReader, type KernelDef, type Tensor } from '@switchyard/core';
import { floatData, floatOutput, type FloatArray } from '../nn/float-io.js';
import { readScalarInt } from '../tensor-ops/indices.js';

export const TRAINING_DOMAIN = 'ai.onnx.preview.training';

/** One element's update: `state` holds the element's X, G, … (input group order); write results to `out`. */
export type ElementUpdate = (r: number, t: number, state: Float64Array, out: Float64Array) => void;

export interface OptimizerSpec {
  opType: string;
  inputGroups: number;
  outputGroups: number;
  /** Reads the attributes once per node and returns the per-element rule. */
  rule(attrs: AttributeReader): ElementUpdate;
}

export function optimizerKernel(spec: OptimizerSpec): KernelDef {
  const { opType, inputGroups, outputGroups } = spec;
  return defineKernel({
    ep: 'cpu',
    domain: TRAINING_DOMAIN,
    opType,
    sinceVersion: 1,
    implementation: 'ts',
    typeConstraints: { T1: ['float32', 'float64'], T2: ['int64'], T3: ['float32', 'float64'] },
    create({ attrs, node }) {
      const update = spec.rule(attrs);
      const variadic = node.inputs.length - 2;
      const n = variadic / inputGroups;
      if (!(Number.isInteger(n) && n >= 1)) {
        throw new SwitchyardError('INVALID_MODEL', `${opType}: expects R, T and ${inputGroups} tensors per optimized variable, got ${node.inputs.length} inputs`);
      }
      if (node.outputs.length > n * outputGroups) {
        throw new SwitchyardError('INVALID_MODEL', `${opType}: ${n} optimized variable(s) give at most ${n * outputGroups} outputs, the node has ${node.outputs.length}`);
      }
      return {
        run(ctx) {
          const rT = ctx.input(0);
          if (rT.size !== 1) throw new SwitchyardError('RUNTIME', `${opType}: R must be a scalar, got shape [${rT.dims.join(', ')}]`);
          const r = floatData(rT, `${opType} R`)[0];
          const t = readScalarInt(ctx.input(1), `${opType} T`);
          const results: Tensor[] = [];
          const outputs: { data: FloatArray; commit(): Tensor }[][] = Array.from({ length: outputGroups }, () => []);
          const state = new Float64Array(inputGroups);
          const out = new Float64Array(outputGroups);
          for (let v = 0; v < n; v++) {
            const group: Tensor[] = [];
            for (let g = 0; g < inputGroups; g++) group.push(ctx.input(2 + g * n + v));
            const x = group[0];
            for (const other of group) {
              if (other.type !== x.type || other.dims.length !== x.dims.length || other.dims.some((d, i) => d !== x.dims[i])) {
                throw new SwitchyardError(
                  'INVALID_SHAPE',
                  `${opType}: the tensors of variable ${v + 1} must share X's type and shape ${x.type}[${x.dims.join(', ')}], got ${other.type}[${other.dims.join(', ')}]`,
                );
              }
            }
            const data = group.map((tensor, g) => floatData(tensor, `${opType} input ${2 + g * n + v}`));
            const outs = Array.from({ length: outputGroups }, (_, g) => floatOutput(ctx, g * n + v, x.type, x.dims));
            for (let i = 0; i < x.size; i++) {
              for (let g = 0; g < inputGroups; g++) state[g] = data[g][i];
              update(r, t, state, out);
              for (let g = 0; g < outputGroups; g++) outs[g].data[i] = out[g];
            }
            outs.forEach((o, g) => outputs[g].push(o));
          }
          for (const group of outputs) for (const o of group) results.push(o.commit());
          return results;
        },
      };
    },
  });
}
