/**
 * The activations a fused node (FusedConv, BlockedConv, the fused 1x1 + depthwise pair) applies after
 * its convolution, named in attribute `activation` with numbers in `activation_params`. onnxruntime's
 * contrib FusedConv defines Relu, LeakyRelu, Clip, Sigmoid, Tanh and HardSigmoid; the CPU EP's fusions
 * also write HardSwish, Swish (x·sigmoid(αx), what exporters write as Sigmoid + Mul), Gelu (erf),
 * FastGelu (tanh form), Elu, Softplus and Mish — every activation oneDNN 2.6 runs as a post-op. Each has
 * a TypeScript form (the ground truth and the fallback) and the addon's name.
 */
import type { Node } from '@switchyard/core';
import type { NativeActivation } from '../native/binding.js';
import { erf, sigmoid, softplus } from '../math/special.js';

export interface FusedActivation {
  /** The attribute's value ('' for none). */
  name: string;
  native: NativeActivation;
  /** LeakyRelu slope, Clip min, HardSigmoid α, Swish α, Elu α (0 when unused). */
  alpha: number;
  /** Clip max, HardSigmoid β (0 when unused). */
  beta: number;
  apply(v: number): number;
}

const SQRT_2_OVER_PI = Math.sqrt(2 / Math.PI);

interface Entry {
  native: NativeActivation;
  /** Default params; `required` when activation_params must give them all. */
  defaults: readonly number[];
  required?: boolean;
  make(alpha: number, beta: number): (v: number) => number;
}

const ACTIVATIONS: Readonly<Record<string, Entry>> = {
  Relu: { native: 'relu', defaults: [], make: () => (v) => (v < 0 ? 0 : v) },
  LeakyRelu: { native: 'leakyRelu', defaults: [0.01], make: (a) => (v) => (v < 0 ? v * a : v) },
  Clip: { native: 'clip', defaults: [-Infinity, Infinity], required: true, make: (lo, hi) => (v) => (v < lo ? lo : v > hi ? hi : v) },
  Sigmoid: { native: 'sigmoid', defaults: [], make: () => sigmoid },
  Tanh: { native: 'tanh', defaults: [], make: () => Math.tanh },
  HardSigmoid: { native: 'hardSigmoid', defaults: [0.2, 0.5], make: (a, b) => (v) => Math.max(0, Math.min(1, a * v + b)) },
  HardSwish: { native: 'hardSwish', defaults: [], make: () => (v) => v * Math.max(0, Math.min(1, v / 6 + 0.5)) },
  Swish: { native: 'swish', defaults: [1], make: (a) => (v) => v * sigmoid(a * v) },
  Gelu: { native: 'gelu', defaults: [], make: () => (v) => 0.5 * v * (1 + erf(v / Math.SQRT2)) },
  FastGelu: { native: 'geluTanh', defaults: [], make: () => (v) => 0.5 * v * (1 + Math.tanh(SQRT_2_OVER_PI * (v + 0.044715 * v * v * v))) },
  Elu: { native: 'elu', defaults: [1], make: (a) => (v) => (v < 0 ? a * (Math.exp(v) - 1) : v) },
  Softplus: { native: 'softplus', defaults: [], make: () => softplus },
  Mish: { native: 'mish', defaults: [], make: () => (v) => v * Math.tanh(softplus(v)) },
};

/** The names an `activation` attribute may hold. */
export const FUSED_ACTIVATIONS: readonly string[] = Object.keys(ACTIVATIONS);

/** An activation by name and params (as the fusions build them); a reason string when unknown or malformed. */
export function fusedActivation(name: string, params: readonly number[] = []): FusedActivation | string {
  if (name === '') return { name, native: 'none', alpha: 0, beta: 0, apply: (v) => v };
  const entry = ACTIVATIONS[name];
  if (!entry) return `unknown activation '${name}' (${FUSED_ACTIVATIONS.join(', ')} are served)`;
  if (entry.required && params.length !== entry.defaults.length) return `${name} needs activation_params [${entry.defaults.length === 2 ? 'min, max' : '…'}]`;
  const [alpha = entry.defaults[0] ?? 0, beta = entry.defaults[1] ?? 0] = params;
  return { name, native: entry.native, alpha, beta, apply: entry.make(alpha, beta) };
}

/** The activation in a node's `${prefix}activation` / `${prefix}activation_params` attributes; a reason string when unusable. */
export function nodeActivation(node: Node, prefix = ''): FusedActivation | string {
  const act = node.attributes.get(`${prefix}activation`);
  if (act !== undefined && act.type !== 'string') return `${prefix}activation must be a string`;
  const params = node.attributes.get(`${prefix}activation_params`);
  return fusedActivation(act?.value ?? '', params?.type === 'floats' ? params.value : []);
}
