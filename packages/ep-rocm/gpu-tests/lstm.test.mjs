// The Lstm step's two forms (native-hip kernels/lstm.hip) on the device, as hand-written plans: the
// stepped form (projection for every step, then one launch per step; given its workspace) and the
// single-block form (no workspace), each against an LSTM written out here from the ONNX definition.
// Sizes are chosen to cover what each form's indexing could get wrong: hidden not a multiple of the
// units per block, both directions at once, a hidden past the single-block form's shared memory, and
// more batch rows than one grid dimension's 65535.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { assertClose, loaded, seeded, skip } from './lib/harness.mjs';

const FLOAT = 1;
const align = (bytes) => Math.ceil(bytes / 256) * 256;
const sigmoid = (v) => 1 / (1 + Math.exp(-v));

/** ONNX LSTM (default activations, gates i, o, f, c), float64 accumulation. */
function lstmReference({ seq, batch, input, hidden, dirs, reverse }, { x, w, r, b, h0, c0 }) {
  const y = new Float32Array(seq * dirs * batch * hidden);
  const yh = new Float32Array(dirs * batch * hidden);
  const yc = new Float32Array(dirs * batch * hidden);
  const rows = 4 * hidden;
  for (let d = 0; d < dirs; d++) {
    const back = dirs === 2 ? d === 1 : reverse;
    for (let n = 0; n < batch; n++) {
      const state = (d * batch + n) * hidden;
      let h = Float64Array.from({ length: hidden }, (_, j) => h0[state + j]);
      const c = Float64Array.from({ length: hidden }, (_, j) => c0[state + j]);
      for (let step = 0; step < seq; step++) {
        const t = back ? seq - 1 - step : step;
        const gates = new Float64Array(rows);
        for (let g = 0; g < rows; g++) {
          let acc = b[d * 2 * rows + g] + b[d * 2 * rows + rows + g];
          for (let k = 0; k < input; k++) acc += w[(d * rows + g) * input + k] * x[(t * batch + n) * input + k];
          for (let k = 0; k < hidden; k++) acc += r[(d * rows + g) * hidden + k] * h[k];
          gates[g] = acc;
        }
        const next = new Float64Array(hidden);
        for (let j = 0; j < hidden; j++) {
          const cell = sigmoid(gates[2 * hidden + j]) * c[j] + sigmoid(gates[j]) * Math.tanh(gates[3 * hidden + j]);
          c[j] = cell;
          next[j] = sigmoid(gates[hidden + j]) * Math.tanh(cell);
          y[((t * dirs + d) * batch + n) * hidden + j] = next[j];
        }
        h = next;
      }
      yh.set(h, state);
      yc.set(c, state);
    }
  }
  return { y, yh, yc };
}

/** The stepped form's workspace (launch.h LstmWorkspaceBytes). */
function workspaceBytes({ seq, batch, hidden, dirs }) {
  return align(dirs * seq * batch * 4 * hidden * 4) + 3 * align(dirs * batch * hidden * 4);
}

/** A plan of one Lstm step over host-fed X, W, R, B, h0, c0 into Y, Y_h, Y_c; `workspace` picks the form. */
function lstmPlan(shape, workspace) {
  const { seq, batch, input, hidden, dirs, reverse } = shape;
  const dims = [[seq, batch, input], [dirs, 4 * hidden, input], [dirs, 4 * hidden, hidden], [dirs, 8 * hidden], [dirs, batch, hidden], [dirs, batch, hidden],
    [seq, dirs, batch, hidden], [dirs, batch, hidden], [dirs, batch, hidden]];
  let offset = 0;
  const buffers = dims.map((d) => {
    const bytes = d.reduce((a, v) => a * v, 1) * 4;
    const b = { offset, bytes, dtype: FLOAT, dims: d };
    offset = align(offset + bytes);
    return b;
  });
  const ws = workspace ? { offset, bytes: workspaceBytes(shape) } : undefined;
  if (ws) offset += align(ws.bytes);
  return new loaded.binding.ExecutionPlan({
    deviceId: 0, arenaBytes: Math.max(offset, 256), captureGraph: false, buffers, constants: [],
    inputs: [0, 1, 2, 3, 4, 5], outputs: [6, 7, 8],
    steps: [{ op: 'Lstm', attrs: [seq, batch, input, hidden, dirs, reverse ? 1 : 0, 1, 1, 1], inputs: [0, 1, 2, 3, 4, 5], outputs: [6, 7, 8], ...(ws ? { workspace: ws } : {}) }],
  });
}

function feedsFor({ seq, batch, input, hidden, dirs }, seed) {
  const scaled = (n, s, k) => seeded(n, s).map((v) => v * k);
  return {
    x: scaled(seq * batch * input, seed, 2),
    w: scaled(dirs * 4 * hidden * input, seed + 1, 6 / Math.sqrt(input)),
    r: scaled(dirs * 4 * hidden * hidden, seed + 2, 6 / Math.sqrt(hidden)),
    b: scaled(dirs * 8 * hidden, seed + 3, 1),
    h0: scaled(dirs * batch * hidden, seed + 4, 1),
    c0: scaled(dirs * batch * hidden, seed + 5, 2),
  };
}

async function runPlan(shape, feeds, workspace) {
  const { seq, batch, hidden, dirs } = shape;
  const plan = lstmPlan(shape, workspace);
  const out = { y: new Float32Array(seq * dirs * batch * hidden), yh: new Float32Array(dirs * batch * hidden), yc: new Float32Array(dirs * batch * hidden) };
  try {
    await plan.run([feeds.x, feeds.w, feeds.r, feeds.b, feeds.h0, feeds.c0], [out.y, out.yh, out.yc]);
  } finally {
    plan.dispose();
  }
  return out;
}

function assertLstm(actual, expected, what) {
  for (const k of ['y', 'yh', 'yc']) assertClose(actual[k], expected[k], 2e-4, 2e-4, `${what} ${k}`);
}

describe('rocm LSTM step, both forms', { skip }, () => {
  for (const shape of [
    { seq: 9, batch: 3, input: 5, hidden: 37, dirs: 2, reverse: false },
    { seq: 6, batch: 2, input: 16, hidden: 8, dirs: 1, reverse: true },
    { seq: 12, batch: 1, input: 64, hidden: 128, dirs: 2, reverse: false },
  ]) {
    it(`stepped and single-block agree with the definition: ${JSON.stringify(shape)}`, async () => {
      const feeds = feedsFor(shape, 40);
      const expected = lstmReference(shape, feeds);
      assertLstm(await runPlan(shape, feeds, true), expected, 'stepped');
      assertLstm(await runPlan(shape, feeds, false), expected, 'single-block');
    });
  }

  it('runs a hidden past one block\'s shared memory in the stepped form, and the plan asks for the workspace without it', async () => {
    const shape = { seq: 3, batch: 2, input: 4, hidden: 2100, dirs: 1, reverse: false };
    const feeds = feedsFor(shape, 50);
    assertLstm(await runPlan(shape, feeds, true), lstmReference(shape, feeds), 'hidden 2100');
    assert.throws(() => lstmPlan(shape, false), new RegExp(`needs ${workspaceBytes(shape)} bytes of workspace`));
  });

  it('runs more batch rows than one grid dimension holds in the stepped form', async () => {
    const shape = { seq: 2, batch: 70000, input: 3, hidden: 4, dirs: 2, reverse: false };
    const feeds = feedsFor(shape, 60);
    assertLstm(await runPlan(shape, feeds, true), lstmReference(shape, feeds), 'batch 70000');
    assert.throws(() => lstmPlan(shape, false), /bytes of workspace/);
  });
});
