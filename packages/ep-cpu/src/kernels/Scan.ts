/**
 * Scan: iterates `body` over slices of the scan inputs, threading state. Opset 8 has a batch axis and
 * optional sequence lengths; opset 9+ has per-input axes and directions.
 */
import { SwitchyardError, Tensor, defineKernel, type Graph, type KernelRunContext, type RuntimeValue } from '@switchyard/core';
import { sliceAlong, stackAlong } from '../control-flow/axis-slices.js';

interface ScanConfig {
  body: Graph;
  stateCount: number;
  scanCount: number;
  inputAxes: number[];
  inputDirections: number[];
  outputAxes: number[];
  outputDirections: number[];
}

const norm = (axis: number, rank: number) => (axis < 0 ? axis + rank : axis);

/** One scan over unbatched inputs; returns final states then stacked scan outputs. */
async function scanOnce(ctx: KernelRunContext, cfg: ScanConfig, states: Tensor[], scanInputs: Tensor[]): Promise<Tensor[]> {
  const { body, stateCount } = cfg;
  const axes = scanInputs.map((t, j) => norm(cfg.inputAxes[j] ?? 0, t.dims.length));
  const lengths = scanInputs.map((t, j) => t.dims[axes[j]]);
  if (lengths.some((l) => l !== lengths[0])) throw new SwitchyardError('RUNTIME', `Scan inputs have different lengths along their scan axes: ${lengths.join(', ')}`);
  const length = lengths[0] ?? 0;
  const outputCount = body.outputs.length - stateCount;
  const parts: Tensor[][] = Array.from({ length: outputCount }, () => []);
  let current = states;
  for (let t = 0; t < length; t++) {
    const feeds = new Map<string, RuntimeValue>();
    current.forEach((s, k) => feeds.set(body.inputs[k].name, s));
    scanInputs.forEach((x, j) => {
      const index = cfg.inputDirections[j] === 1 ? length - 1 - t : t;
      feeds.set(body.inputs[stateCount + j].name, sliceAlong(x, axes[j], index));
    });
    const outs = (await ctx.runSubgraph(body, feeds)) as Tensor[];
    current = outs.slice(0, stateCount);
    outs.slice(stateCount).forEach((v, k) => parts[k].push(v));
  }
  const stacked = parts.map((p, k) => {
    const ordered = cfg.outputDirections[k] === 1 ? [...p].reverse() : p;
    const info = body.typeOf(body.outputs[stateCount + k].name);
    const type = info?.kind === 'tensor' ? info.elemType : 'float32';
    const rank = (p[0]?.dims.length ?? 0) + 1;
    return stackAlong(ordered, norm(cfg.outputAxes[k] ?? 0, rank), type, []);
  });
  return [...current, ...stacked];
}

function config(attrs: { graph(n: string): Graph; int(n: string, d?: number): number; ints(n: string, d?: number[]): number[] }, inputCount: number): ScanConfig {
  const body = attrs.graph('body');
  const scanCount = attrs.int('num_scan_inputs');
  const stateCount = inputCount - scanCount;
  return {
    body,
    stateCount,
    scanCount,
    inputAxes: attrs.ints('scan_input_axes', []),
    inputDirections: attrs.ints('scan_input_directions', attrs.ints('directions', [])),
    outputAxes: attrs.ints('scan_output_axes', []),
    outputDirections: attrs.ints('scan_output_directions', []),
  };
}

export const scanKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Scan',
  sinceVersion: 9,
  create: ({ attrs, node }) => {
    const cfg = config(attrs, node.inputs.length);
    return {
      run: async (ctx) => {
        const states = ctx.inputs.slice(0, cfg.stateCount).map((_, k) => ctx.input(k));
        const scans = ctx.inputs.slice(cfg.stateCount).map((_, j) => ctx.input(cfg.stateCount + j));
        return scanOnce(ctx, cfg, states, scans);
      },
    };
  },
});

/** Opset 8: input 0 is optional sequence_lens; every other input has a leading batch axis; scan axis is 1. */
export const scan8Kernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Scan',
  sinceVersion: 8,
  endVersion: 8,
  create: ({ attrs, node }) => {
    const cfg = config(attrs, node.inputs.length - 1);
    cfg.inputAxes = [];
    return {
      run: async (ctx) => {
        if (ctx.optionalInput(0)) throw new SwitchyardError('UNSUPPORTED', 'Scan-8 with sequence_lens is not supported');
        const states = Array.from({ length: cfg.stateCount }, (_, k) => ctx.input(1 + k));
        const scans = Array.from({ length: cfg.scanCount }, (_, j) => ctx.input(1 + cfg.stateCount + j));
        const batch = (states[0] ?? scans[0]).dims[0];
        const perBatch: Tensor[][] = [];
        for (let b = 0; b < batch; b++) {
          perBatch.push(await scanOnce(ctx, cfg, states.map((s) => sliceAlong(s, 0, b)), scans.map((x) => sliceAlong(x, 0, b))));
        }
        const count = cfg.body.outputs.length;
        return Array.from({ length: count }, (_, k) => {
          const info = cfg.body.typeOf(cfg.body.outputs[k].name);
          return stackAlong(perBatch.map((r) => r[k]), 0, info?.kind === 'tensor' ? info.elemType : 'float32', []);
        });
      },
    };
  },
});
