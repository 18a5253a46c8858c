/** The activation functions RNN, GRU and LSTM accept by name, with their alpha/beta defaults. */
import { SwitchyardError } from '@switchyard/core';

export type Activation = (x: number) => number;

/** Name → [factory, number of parameters it consumes, default alpha, default beta]. */
const TABLE: Record<string, [(a: number, b: number) => Activation, number, number, number]> = {
  relu: [() => (x) => (x > 0 ? x : 0), 0, 0, 0],
  tanh: [() => Math.tanh, 0, 0, 0],
  sigmoid: [() => (x) => 1 / (1 + Math.exp(-x)), 0, 0, 0],
  affine: [(a, b) => (x) => a * x + b, 2, 1, 0],
  leakyrelu: [(a) => (x) => (x >= 0 ? x : a * x), 1, 0.01, 0],
  thresholdedrelu: [(a) => (x) => (x > a ? x : 0), 1, 1, 0],
  scaledtanh: [(a, b) => (x) => a * Math.tanh(b * x), 2, 1, 1],
  hardsigmoid: [(a, b) => (x) => Math.max(0, Math.min(1, a * x + b)), 2, 0.2, 0.5],
  elu: [(a) => (x) => (x >= 0 ? x : a * (Math.exp(x) - 1)), 1, 1, 0],
  softsign: [() => (x) => x / (1 + Math.abs(x)), 0, 0, 0],
  softplus: [() => (x) => Math.log1p(Math.exp(x)), 0, 0, 0],
};

/**
 * Resolves `activations` (or the defaults, repeated per direction), consuming activation_alpha and
 * activation_beta in order for the functions that take parameters.
 */
export function resolveActivations(op: string, names: string[], alphas: number[], betas: number[]): Activation[] {
  let ai = 0;
  let bi = 0;
  return names.map((name) => {
    const entry = TABLE[name.toLowerCase()];
    if (!entry) throw new SwitchyardError('UNSUPPORTED', `${op}: activation '${name}' is not supported`);
    const [make, params, da, db] = entry;
    const a = params >= 1 ? alphas[ai++] ?? da : da;
    const b = params >= 2 ? betas[bi++] ?? db : db;
    return make(a, b);
  });
}
