/**
 * GRU and RNN through the addon (sgemm_recurrence.h): the input projections of every step as one GEMM,
 * then a GEMM of the batch's h per step and the gate math, inline on the JS thread. They serve the common
 * case (float32, layout 0, no clip, no sequence_lens; the GRU with its default activations and either
 * linear_before_reset, the RNN with one of Tanh, Relu, Sigmoid for every direction); `supports` declines
 * the rest with the reason, and shapes that do not match go to the TS kernel (built beside this one), which
 * also produces the shape errors. (The LSTM has its own kernel: lstm-native.ts.)
 */
import type { Graph, Kernel, KernelDef, KernelInit, KernelRunContext, Node, Tensor } from '@switchyard/core';
import type { NativeBinding } from './binding.js';
import { fromNativeError } from './native-errors.js';
import { float32Data, float32Reason, teamFor } from './native-support.js';
import { gruKernel } from '../kernels/GRU.js';
import { rnnKernel } from '../kernels/RNN.js';

const DEFAULT_ACTIVATIONS = ['sigmoid', 'tanh'];
const RNN_ACTIVATIONS = ['tanh', 'relu', 'sigmoid'] as const;
type RnnActivation = (typeof RNN_ACTIVATIONS)[number];

/** What both ops need the native path to take them (the op's own activation check comes after). */
function supportsRecurrence(node: Node, graph: Graph): true | string {
  const x = node.inputs[0];
  if (!x || !node.inputs[1] || !node.inputs[2]) return `${node.opType} needs X, W and R`;
  const dtype = float32Reason(graph, x, 'X');
  if (dtype) return dtype;
  if (node.inputs[4]) return 'sequence_lens is served by the TS kernel';
  const attr = (name: string) => node.attributes.get(name);
  const layout = attr('layout');
  if (layout?.type === 'int' && layout.value !== 0) return 'layout 1 is served by the TS kernel';
  if (attr('clip')) return 'clip is served by the TS kernel';
  if (attr('activation_alpha') || attr('activation_beta')) return 'activation_alpha/beta are served by the TS kernel';
  const direction = attr('direction');
  if (direction && !(direction.type === 'string' && ['forward', 'reverse', 'bidirectional'].includes(direction.value))) {
    return 'unknown direction (the TS kernel reports it)';
  }
  return true;
}

function supportsGru(node: Node, graph: Graph): true | string {
  const common = supportsRecurrence(node, graph);
  if (common !== true) return common;
  const acts = node.attributes.get('activations');
  if (acts) {
    if (acts.type !== 'strings') return 'activations must be strings';
    const names = acts.value.map((a) => a.toLowerCase());
    const ok = names.length % 2 === 0 && names.length > 0 && names.every((n, i) => n === DEFAULT_ACTIVATIONS[i % 2]);
    if (!ok) return 'non-default activations are served by the TS kernel';
  }
  return true;
}

/** The RNN's one activation (the same for every direction), or undefined when the TS kernel must serve it. */
function rnnActivation(node: Node): RnnActivation | undefined {
  const acts = node.attributes.get('activations');
  if (!acts) return 'tanh';
  if (acts.type !== 'strings' || acts.value.length === 0) return undefined;
  const names = acts.value.map((a) => a.toLowerCase());
  const first = names[0] as RnnActivation;
  return RNN_ACTIVATIONS.includes(first) && names.every((n) => n === first) ? first : undefined;
}

function supportsRnn(node: Node, graph: Graph): true | string {
  const common = supportsRecurrence(node, graph);
  if (common !== true) return common;
  return rnnActivation(node) ? true : 'activations other than one of Tanh, Relu, Sigmoid for every direction are served by the TS kernel';
}

type Direction = 'forward' | 'reverse' | 'bidirectional';

/** The op's native call on checked shapes (`gates`: 3 for the GRU, 1 for the RNN). */
type NativeCall = (
  options: { seq: number; batch: number; input: number; hidden: number; direction: Direction; threads: number },
  x: Float32Array, w: Float32Array, r: Float32Array, b: Float32Array | null, h0: Float32Array | null, y: Float32Array | null, yh: Float32Array | null,
) => void;

function createRecurrence(binding: NativeBinding, gates: number, call: NativeCall, fallbackDef: KernelDef, init: KernelInit): Kernel {
  const { node, attrs } = init;
  const fallback = fallbackDef.create(init);
  const direction = attrs.string('direction', 'forward') as Direction;
  const dirs = direction === 'bidirectional' ? 2 : 1;
  const outs = node.outputs;
  const data = (t: Tensor | null | undefined, what: string) => (t ? float32Data(node, t, what) : null);
  return {
    implementation: 'onednn',
    // Synchronous: the call is short (inline, on the session's threads), and a promise per node costs.
    run(ctx: KernelRunContext) {
      const X = ctx.input(0);
      const W = ctx.input(1);
      const R = ctx.input(2);
      const B = ctx.optionalInput(3);
      const h0 = ctx.optionalInput(5);
      const all = [X, W, R, B, h0].filter((t): t is Tensor => t !== undefined);
      if (all.some((t) => t.type !== 'float32') || X.dims.length !== 3 || W.dims.length !== 3) return fallback.run(ctx);
      const [seq, batch, input] = X.dims;
      const H = attrs.int('hidden_size', W.dims[1] / gates);
      const shapesOk =
        seq >= 1 && batch >= 1 && input >= 1 && Number.isInteger(H) && H >= 1 &&
        W.dims.join() === [dirs, gates * H, input].join() && R.dims.join() === [dirs, gates * H, H].join() &&
        (!B || B.size === dirs * 2 * gates * H) && (!h0 || h0.size === dirs * batch * H);
      if (!shapesOk) return fallback.run(ctx); // the TS kernel owns the error messages (and empty inputs)
      const writesAll = { uninitialized: true } as const;
      const y = outs[0] ? ctx.output(0, 'float32', [seq, dirs, batch, H], writesAll) : null;
      const yh = outs[1] ? ctx.output(1, 'float32', [dirs, batch, H], writesAll) : null;
      try {
        call(
          // The team by one step's recurrent work (a GEMM per step; the projection is one large GEMM either way).
          { seq, batch, input, hidden: H, direction, threads: teamFor(binding, ctx.threads, batch * gates * H * H) },
          float32Data(node, X, 'X'), float32Data(node, W, 'W'), float32Data(node, R, 'R'), data(B, 'B'), data(h0, 'initial_h'), data(y, 'Y'), data(yh, 'Y_h'),
        );
      } catch (error) {
        throw fromNativeError(node, error);
      }
      return [y, yh].slice(0, Math.max(outs.length, 1));
    },
    dispose() {
      fallback.dispose?.();
    },
  };
}

/** The GRU and RNN kernel defs, for what the loaded addon exports. */
export function nativeRecurrentKernels(binding: NativeBinding): KernelDef[] {
  const def = (opType: string, supports: KernelDef['supports'], create: KernelDef['create']): KernelDef => ({
    ep: 'cpu', domain: '', opType, sinceVersion: 7, typeConstraints: { T: ['float32'], T1: ['int32'] }, implementation: 'onednn', supports, create,
  });
  const defs: KernelDef[] = [];
  const gruForward = binding.gruForward?.bind(binding);
  if (gruForward) {
    defs.push(def('GRU', supportsGru, (init) => {
      const linearBeforeReset = init.attrs.int('linear_before_reset', 0);
      return createRecurrence(binding, 3, (o, ...args) => gruForward({ ...o, linearBeforeReset }, ...args), gruKernel, init);
    }));
  }
  const rnnForward = binding.rnnForward?.bind(binding);
  if (rnnForward) {
    defs.push(def('RNN', supportsRnn, (init) => {
      const activation = rnnActivation(init.node) ?? 'tanh';
      return createRecurrence(binding, 1, (o, ...args) => rnnForward({ ...o, activation }, ...args), rnnKernel, init);
    }));
  }
  return defs;
}
