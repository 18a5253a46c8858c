/**
 * LSTM through the addon (lstm_kernel.h): constant weights are packed once at creation (and their
 * initializers released); the recurrence runs as blocked matrix-vector products with the gate math
 * fused in, inline on the JS thread. It serves the common case (float32, layout 0, default activations, no
 * peepholes, no sequence_lens, input_forget 0); `supports` declines the rest with the reason, and
 * with weights given at run time, shapes that do not match go to the TS kernel (built beside this
 * one), which also produces the shape errors; with packed weights this kernel reports them itself.
 */
import { SwitchyardError, type Graph, type Kernel, type KernelDef, type KernelInit, type KernelRunContext, type Node, type RuntimeValue, type Tensor } from '@switchyard/core';
import type { NativeBinding } from './binding.js';
import { fromNativeError } from './native-errors.js';
import { float32Data, float32Reason, sameDims, teamFor } from './native-support.js';
import { lstmKernel } from '../kernels/LSTM.js';

const DEFAULT_ACTIVATIONS = ['sigmoid', 'tanh', 'tanh'];

function supportsLstm(node: Node, graph: Graph): true | string {
  const x = node.inputs[0];
  if (!x || !node.inputs[1] || !node.inputs[2]) return 'LSTM needs X, W and R';
  const dtype = float32Reason(graph, x, 'X');
  if (dtype) return dtype;
  if (node.inputs[4]) return 'sequence_lens is served by the TS kernel';
  if (node.inputs[7]) return 'peepholes (P) are served by the TS kernel';
  const attr = (name: string) => node.attributes.get(name);
  const layout = attr('layout');
  if (layout?.type === 'int' && layout.value !== 0) return 'layout 1 is served by the TS kernel';
  const inputForget = attr('input_forget');
  if (inputForget?.type === 'int' && inputForget.value !== 0) return 'input_forget is served by the TS kernel';
  if (attr('activation_alpha') || attr('activation_beta')) return 'activation_alpha/beta are served by the TS kernel';
  const acts = attr('activations');
  if (acts) {
    if (acts.type !== 'strings') return 'activations must be strings';
    const names = acts.value.map((a) => a.toLowerCase());
    const ok = names.length % 3 === 0 && names.length > 0 && names.every((n, i) => n === DEFAULT_ACTIVATIONS[i % 3]);
    if (!ok) return 'non-default activations are served by the TS kernel';
  }
  const clip = attr('clip');
  if (clip && !(clip.type === 'float' && clip.value > 0)) return 'clip <= 0 is served by the TS kernel';
  const direction = attr('direction');
  if (direction && !(direction.type === 'string' && ['forward', 'reverse', 'bidirectional'].includes(direction.value))) {
    return 'unknown direction (the TS kernel reports it)';
  }
  return true;
}

/** lstmForward writes every element of Y, Y_h and Y_c (each step, then the final states). */
const WRITES_ALL = { uninitialized: true } as const;

type Direction = 'forward' | 'reverse' | 'bidirectional';

/**
 * The team for one LSTM call, by the recurrent work of one step (batch × 4H × H multiply-adds): a team
 * meets at a barrier after every step of every direction, and a barrier waits for a thread the machine
 * has not scheduled (the addon's spin barrier burns the waiting core meanwhile). Measured on the shared
 * 2-core machine at 2 threads (interleaved, process CPU per run / wall p10 / p90): LSTM 2-layer seq32
 * H128, teamed by whole work 7.4 ms / 0.211 / 114 ms, by step work (one thread) 0.40 ms / 0.209 /
 * 2.7 ms; CRNN b1 (BiLSTM H96) 105 → 28 ms CPU per run. Steps of 2^19+ MACs (large batches, wide
 * cells) still split.
 */
function lstmTeam(binding: NativeBinding, requested: number, batch: number, hidden: number): number {
  return teamFor(binding, requested, batch * 4 * hidden * hidden);
}

/**
 * W, R (and B when present) packed once at creation when they are constants of consistent shapes:
 * runs then only read X and the states. Undefined when the weights come at run time.
 */
function packAtCreate(binding: NativeBinding, init: KernelInit, direction: Direction, dirs: number) {
  const { node, constantInputs, attrs } = init;
  if (!binding.lstmPack || !binding.lstmForwardPacked) return undefined;
  const W = constantInputs.get(1);
  const R = constantInputs.get(2);
  const B = node.inputs[3] ? constantInputs.get(3) : undefined;
  if (!W || !R || (node.inputs[3] && !B) || [W, R, B].some((t) => t && t.type !== 'float32') || W.dims.length !== 3) return undefined;
  const input = W.dims[2];
  const hidden = attrs.int('hidden_size', W.dims[1] / 4);
  const ok = Number.isInteger(hidden) && hidden >= 1 && input >= 1 &&
    W.dims.join() === [dirs, 4 * hidden, input].join() && R.dims.join() === [dirs, 4 * hidden, hidden].join() && (!B || B.size === dirs * 8 * hidden);
  if (!ok) return undefined; // the per-run path reports (or the TS kernel serves) what is wrong
  const options = { seq: 1, batch: 1, input, hidden, direction };
  try {
    const packed = binding.lstmPack(options, float32Data(node, W, 'W'), float32Data(node, R, 'R'), B ? float32Data(node, B, 'B') : null);
    return { packed, input, hidden, released: B ? [1, 2, 3] : [1, 2] };
  } catch (error) {
    throw fromNativeError(node, error);
  }
}

function createLstm(binding: NativeBinding, lstmForward: NonNullable<NativeBinding['lstmForward']>, init: KernelInit): Kernel {
  const { node, attrs } = init;
  const fallback = lstmKernel.create(init);
  const direction = attrs.string('direction', 'forward') as Direction;
  const dirs = direction === 'bidirectional' ? 2 : 1;
  const clip = attrs.has('clip') ? attrs.float('clip') : 0;
  const prepacked = packAtCreate(binding, init, direction, dirs);
  const outs = node.outputs;

  /** Outputs allocated through the context, in node order (null where the node omits one). */
  const outputsFor = (ctx: KernelRunContext, seq: number, batch: number, H: number) => ({
    y: outs[0] ? ctx.output(0, 'float32', [seq, dirs, batch, H], WRITES_ALL) : null,
    yh: outs[1] ? ctx.output(1, 'float32', [dirs, batch, H], WRITES_ALL) : null,
    yc: outs[2] ? ctx.output(2, 'float32', [dirs, batch, H], WRITES_ALL) : null,
  });
  const data = (t: Tensor | null | undefined, what: string) => (t ? float32Data(node, t, what) : null);

  /** Packed weights: W, R and B are gone from the session, so shape problems are reported here. */
  const runPacked = (ctx: KernelRunContext, p: NonNullable<typeof prepacked>): RuntimeValue[] => {
    const X = ctx.input(0);
    const h0 = ctx.optionalInput(5);
    const c0 = ctx.optionalInput(6);
    const { input, hidden: H } = p;
    if (X.type !== 'float32' || X.dims.length !== 3 || X.dims[2] !== input || X.dims[0] < 1 || X.dims[1] < 1) {
      throw new SwitchyardError('INVALID_SHAPE', `LSTM '${node.name}': X must be float32 [seq >= 1, batch >= 1, ${input}], got ${X.type} [${X.dims.join(', ')}]`);
    }
    const [seq, batch] = X.dims;
    for (const [t, what] of [[h0, 'initial_h'], [c0, 'initial_c']] as const) {
      if (t && (t.type !== 'float32' || !sameDims(t.dims, [dirs, batch, H]))) {
        throw new SwitchyardError('INVALID_SHAPE', `LSTM '${node.name}': ${what} must be float32 [${dirs}, ${batch}, ${H}], got ${t.type} [${t.dims.join(', ')}]`);
      }
    }
    const { y, yh, yc } = outputsFor(ctx, seq, batch, H);
    try {
      binding.lstmForwardPacked!(
        { seq, batch, input, hidden: H, direction, clip, threads: lstmTeam(binding, ctx.threads, batch, H) },
        float32Data(node, X, 'X'), p.packed, data(h0, 'initial_h'), data(c0, 'initial_c'), data(y, 'Y'), data(yh, 'Y_h'), data(yc, 'Y_c'),
      );
    } catch (error) {
      throw fromNativeError(node, error);
    }
    return [y, yh, yc].slice(0, Math.max(outs.length, 1));
  };

  return {
    implementation: 'onednn',
    releasedConstants: prepacked?.released,
    // Synchronous: the call is short (inline, on the session's threads), and a promise per node costs.
    run(ctx: KernelRunContext) {
      if (prepacked) return runPacked(ctx, prepacked);
      const X = ctx.input(0);
      const W = ctx.input(1);
      const R = ctx.input(2);
      const B = ctx.optionalInput(3);
      const h0 = ctx.optionalInput(5);
      const c0 = ctx.optionalInput(6);
      const all = [X, W, R, B, h0, c0].filter((t): t is Tensor => t !== undefined);
      if (all.some((t) => t.type !== 'float32') || X.dims.length !== 3 || W.dims.length !== 3) return fallback.run(ctx);
      const [seq, batch, input] = X.dims;
      const G = W.dims[1];
      const H = attrs.int('hidden_size', G / 4);
      const state = dirs * batch * H;
      const shapesOk =
        seq >= 1 && batch >= 1 && input >= 1 && Number.isInteger(H) && H >= 1 &&
        W.dims.join() === [dirs, 4 * H, input].join() &&
        R.dims.join() === [dirs, 4 * H, H].join() &&
        (!B || B.size === dirs * 8 * H) && (!h0 || h0.size === state) && (!c0 || c0.size === state);
      if (!shapesOk) return fallback.run(ctx); // the TS kernel owns the error messages (and empty inputs)
      const { y, yh, yc } = outputsFor(ctx, seq, batch, H);
      try {
        lstmForward(
          { seq, batch, input, hidden: H, direction, clip, threads: lstmTeam(binding, ctx.threads, batch, H) },
          float32Data(node, X, 'X'), float32Data(node, W, 'W'), float32Data(node, R, 'R'),
          data(B, 'B'), data(h0, 'initial_h'), data(c0, 'initial_c'),
          data(y, 'Y'), data(yh, 'Y_h'), data(yc, 'Y_c'),
        );
      } catch (error) {
        throw fromNativeError(node, error);
      }
      return [y, yh, yc].slice(0, Math.max(outs.length, 1));
    },
    dispose() {
      fallback.dispose?.();
    },
  };
}

/** The LSTM kernel def, when the loaded addon has `lstmForward`. */
export function nativeLstmKernels(binding: NativeBinding): KernelDef[] {
  const lstmForward = binding.lstmForward?.bind(binding);
  if (!lstmForward) return [];
  return [
    {
      ep: 'cpu',
      domain: '',
      opType: 'LSTM',
      sinceVersion: 7,
      typeConstraints: { T: ['float32'], T1: ['int32'] },
      implementation: 'onednn',
      supports: supportsLstm,
      create: (init) => createLstm(binding, lstmForward, init),
    },
  ];
}
