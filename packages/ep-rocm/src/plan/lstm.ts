/**
 * ONNX LSTM on rocm: what the native Lstm step (native-hip kernels/lstm.hip) serves, the node → step
 * encoding, and the step's workspace. It serves the form PyTorch's nn.LSTM exports: layout 0, the
 * default activations, no peepholes, no clip, no coupled input/forget gate, and no sequence_lens
 * (every sequence runs its full length).
 *
 * The kernel has two forms. Given a workspace (the projected gates of every step, h twice and c, all
 * float32) it projects x·Wᵀ for all steps at once and then launches once per step over the hidden
 * units: the fast form, which the plan picks whenever the workspace is at most
 * MAX_LSTM_WORKSPACE_BYTES. Past that, the single-block form (one block per batch row and direction,
 * state in shared memory) runs it if its state fits a block; if not, the workspace is given anyway.
 */
import { AttributeReader, SwitchyardError, type Graph, type Node } from '@switchyard/core';
import { given, staticDims, used } from './graph-values.js';

const DIRECTIONS = ['forward', 'reverse', 'bidirectional'];
/** Shared memory of one block of the single-block form, in floats: h, c, the 4·hidden gates and x_t (48 KiB). */
const SHARED_FLOATS = 12 * 1024;
/** The largest workspace given to an LSTM step when the single-block form could run it instead. */
export const MAX_LSTM_WORKSPACE_BYTES = 256 * 2 ** 20;
const align256 = (bytes: number) => Math.ceil(bytes / 256) * 256;

function isDefaultActivations(attrs: AttributeReader, dirs: number): boolean {
  if (!attrs.has('activations')) return true;
  const acts = attrs.strings('activations').map((a) => a.toLowerCase());
  return acts.length === 3 * dirs && acts.every((a, i) => a === (i % 3 === 0 ? 'sigmoid' : 'tanh'));
}

/** Why the LSTM kernel cannot run this node, or true. */
export function lstmLimits(node: Node, graph: Graph): true | string {
  const attrs = new AttributeReader(node);
  const direction = attrs.string('direction', 'forward');
  if (!DIRECTIONS.includes(direction)) return `LSTM direction '${direction}' is not one of ${DIRECTIONS.join(', ')}`;
  const dirs = direction === 'bidirectional' ? 2 : 1;
  if (given(node, 4)) return 'LSTM with sequence_lens (input 4) is not run on rocm: the kernel runs every sequence its full length';
  if (given(node, 7)) return 'LSTM with peepholes (input 7, P) is not run on rocm';
  if (attrs.has('clip')) return 'LSTM with clip is not run on rocm';
  if (attrs.int('input_forget', 0) !== 0) return 'LSTM with input_forget=1 is not run on rocm';
  if (attrs.int('layout', 0) !== 0) return 'LSTM with layout=1 (batch first) is not run on rocm';
  if (!isDefaultActivations(attrs, dirs)) return `LSTM activations ${JSON.stringify(attrs.strings('activations'))} are not run on rocm (only Sigmoid, Tanh, Tanh)`;
  const hidden = attrs.int('hidden_size', 0);
  if (hidden < 1) return 'LSTM without a positive hidden_size attribute';
  const w = staticDims(graph, node.inputs[1]);
  if (!w || w.length !== 3) return 'LSTM needs W of known shape [dirs, 4 * hidden, input]';
  return true;
}

interface StepLike {
  op: string;
  attrs: number[];
}

/**
 * Bytes of workspace an Lstm step gets (native-hip launch.h LstmWorkspaceBytes): the stepped form's
 * projected gates [dirs, seq·batch, 4·hidden], h twice and c [dirs, batch, hidden], float32, each
 * 256-byte aligned; 0 (the single-block form) past MAX_LSTM_WORKSPACE_BYTES when that form fits.
 */
export function lstmWorkspaceBytes(step: StepLike): number {
  if (step.op !== 'Lstm') return 0;
  const [seq, batch, input, hidden, dirs] = step.attrs;
  const state = align256(dirs * batch * hidden * 4);
  const bytes = align256(dirs * seq * batch * 4 * hidden * 4) + 3 * state;
  const singleBlockFits = batch <= 65535 && 6 * hidden + input <= SHARED_FLOATS;
  return bytes <= MAX_LSTM_WORKSPACE_BYTES || !singleBlockFits ? bytes : 0;
}

/** Attributes [seq, batch, input, hidden, dirs, reverse, hasY, hasYh, hasYc], as native-hip plan/step_ops_lstm.cc reads them. */
export function encodeLstm(node: Node, graph: Graph): { op: string; attrs: number[]; inputs: number[]; outputs: number[] } {
  const x = staticDims(graph, node.inputs[0]);
  if (!x || x.length !== 3) throw new SwitchyardError('RUNTIME', `rocm plan: LSTM '${node.name}' needs X of static shape [seq, batch, input]`);
  const attrs = new AttributeReader(node);
  const direction = attrs.string('direction', 'forward');
  const outputs = [0, 1, 2].filter((k) => used(node, k));
  if (outputs.length === 0) throw new SwitchyardError('INVALID_GRAPH', `LSTM '${node.name}' has no output`);
  const inputs = [0, 1, 2, given(node, 3) ? 3 : -1, given(node, 5) ? 5 : -1, given(node, 6) ? 6 : -1];
  while (inputs[inputs.length - 1] === -1) inputs.pop();
  return {
    op: 'Lstm',
    attrs: [x[0], x[1], x[2], attrs.int('hidden_size', 0), direction === 'bidirectional' ? 2 : 1, direction === 'reverse' ? 1 : 0, ...[0, 1, 2].map((k) => (used(node, k) ? 1 : 0))],
    inputs,
    outputs,
  };
}
