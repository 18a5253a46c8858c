/**
 * Quantized models built in code the way onnxruntime's quantizers write them, for the fusion tests and the
 * comparison with onnxruntime-node (not exported):
 *   - dynamicConvStack: `quantize_dynamic`'s DynamicQuantizeLinear → ConvInteger → Cast → Mul(x_scale · w_scale)
 *     → Add(bias reshaped to [1, M, 1, 1]) per conv, Relu between;
 *   - qdqResNetBlock: `quantize_static`'s QDQ form: QuantizeLinear / DequantizeLinear around every conv, int8
 *     per-channel weights (axis 0), int32 bias in the scale x_scale · w_scale, a residual Add.
 */
import { Tensor, type Model } from '@switchyard/core';
import { buildModel, type NodeSpec } from '@switchyard/core/testing';
import { values } from './test-models.test-util.js';

/** Seeded integers in [lo, hi]. */
export function ints(type: 'uint8' | 'int8' | 'int32', dims: number[], seed: number, lo: number, hi: number): Tensor {
  const n = dims.reduce((a, b) => a * b, 1);
  const u = values(n, seed, 0, 1);
  const t = Tensor.zeros(type, dims);
  const d = t.data as Uint8Array | Int8Array | Int32Array;
  for (let i = 0; i < n; i++) d[i] = lo + Math.min(hi - lo, Math.floor(u[i] * (hi - lo + 1)));
  return t;
}

export const f32 = (v: ArrayLike<number>, dims: number[]) => new Tensor('float32', Float32Array.from(v), dims);

export interface DynamicConvOptions {
  layers: number;
  channels: number;
  size: number;
  /** Weights' type: 'uint8' with a zero point per tensor (quantize_dynamic's QUInt8), 'int8' symmetric per channel. */
  weightType: 'uint8' | 'int8';
  /** The w_scale constant's shape: [1, M, 1, 1] (per channel), [] (per tensor), or [M] (broadcasts along W: not fusable). */
  scaleShape?: 'channel' | 'tensor' | 'lastAxis';
  bias?: boolean;
  batch?: number | string;
  inputChannels?: number;
}

/** `layers` 3x3 convs (pads 1), each as quantize_dynamic writes it, Relu between; x [N, inputChannels, size, size]. */
export function dynamicConvStack(o: DynamicConvOptions): () => Model {
  return () => {
    const initializers: Record<string, Tensor> = {};
    const nodes: NodeSpec[] = [];
    let input = 'x';
    let c = o.inputChannels ?? o.channels;
    const m = o.channels;
    for (let l = 0; l < o.layers; l++) {
      const p = `l${l}`;
      const fanIn = c * 9;
      initializers[`${p}_w`] = o.weightType === 'uint8' ? ints('uint8', [m, c, 3, 3], 10 + l, 0, 255) : ints('int8', [m, c, 3, 3], 10 + l, -127, 127);
      if (o.weightType === 'uint8') initializers[`${p}_wz`] = ints('uint8', [], 20 + l, 100, 160);
      const scale = 1 / (127 * Math.sqrt(fanIn));
      const shape = o.scaleShape ?? 'channel';
      const scaleDims = shape === 'channel' ? [1, m, 1, 1] : shape === 'lastAxis' ? [m] : [];
      initializers[`${p}_ws`] = f32(shape === 'tensor' ? [scale] : values(m, 30 + l, 0.5 * scale, 1.5 * scale), scaleDims);
      nodes.push(
        { op: 'DynamicQuantizeLinear', inputs: [input], outputs: [`${p}_xq`, `${p}_xs`, `${p}_xz`] },
        { op: 'ConvInteger', inputs: [`${p}_xq`, `${p}_w`, `${p}_xz`, o.weightType === 'uint8' ? `${p}_wz` : ''], outputs: [`${p}_ci`], attributes: { pads: [1, 1, 1, 1] } },
        { op: 'Cast', inputs: [`${p}_ci`], outputs: [`${p}_cf`], attributes: { to: 1 } },
        { op: 'Mul', inputs: [`${p}_xs`, `${p}_ws`], outputs: [`${p}_s`] },
        { op: 'Mul', inputs: [`${p}_cf`, `${p}_s`], outputs: [`${p}_m`] },
      );
      let out = `${p}_m`;
      if (o.bias !== false) {
        initializers[`${p}_b`] = f32(values(m, 40 + l, -0.2, 0.2), [1, m, 1, 1]);
        nodes.push({ op: 'Add', inputs: [out, `${p}_b`], outputs: [`${p}_y`] });
        out = `${p}_y`;
      }
      const last = l === o.layers - 1;
      nodes.push({ op: 'Relu', inputs: [out], outputs: [last ? 'y' : `${p}_r`] });
      input = `${p}_r`;
      c = m;
    }
    const batch = o.batch ?? 1;
    return buildModel({
      inputs: [['x', 'float32', [batch, o.inputChannels ?? o.channels, o.size, o.size]]],
      outputs: [['y', 'float32', [batch, m, o.size, o.size]]],
      initializers,
      nodes,
      opset: 13,
    });
  };
}

/** A dynamically quantized Linear: A [..., K] → MatMulInteger with B [K, N] int8, per-column scale, + bias [N]. */
export function dynamicLinear(aDims: number[], n: number): () => Model {
  return () => {
    const k = aDims[aDims.length - 1];
    return buildModel({
      inputs: [['a', 'float32', aDims]],
      outputs: [['y', 'float32', [...aDims.slice(0, -1), n]]],
      initializers: {
        b: ints('int8', [k, n], 5, -127, 127),
        bz: new Tensor('int8', new Int8Array(n), [n]),
        bs: f32(values(n, 6, 0.002, 0.01), [n]),
        bias: f32(values(n, 7, -0.5, 0.5), [n]),
      },
      nodes: [
        { op: 'DynamicQuantizeLinear', inputs: ['a'], outputs: ['aq', 'as', 'az'] },
        { op: 'MatMulInteger', inputs: ['aq', 'b', 'az', 'bz'], outputs: ['mi'] },
        { op: 'Cast', inputs: ['mi'], outputs: ['mf'], attributes: { to: 1 } },
        { op: 'Mul', inputs: ['as', 'bs'], outputs: ['s'] },
        { op: 'Mul', inputs: ['mf', 's'], outputs: ['m'] },
        { op: 'Add', inputs: ['m', 'bias'], outputs: ['y'] },
      ],
      opset: 13,
    });
  };
}

export interface QdqConvSpec {
  name: string;
  input: string;
  output: string;
  inChannels: number;
  outChannels: number;
  kernel: number;
  stride?: number;
  relu?: boolean;
  seed: number;
  /** Scales of the quantized input and output activations. */
  xScale: number;
  yScale: number;
  activationType: 'uint8' | 'int8';
}

/** DQ(W int8 per channel) → Conv(x_f, W_f, DQ(B int32)) [→ Relu] → Q(y): QDQ nodes of one conv (x_f already dequantized). */
export function qdqConv(s: QdqConvSpec, initializers: Record<string, Tensor>): NodeSpec[] {
  const { name: p, inChannels: c, outChannels: m, kernel: k } = s;
  const fanIn = c * k * k;
  const wScales = values(m, s.seed + 1, 0.6, 1.4).map((v) => v / (127 * Math.sqrt(fanIn)) * 4);
  initializers[`${p}_w`] = ints('int8', [m, c, k, k], s.seed, -127, 127);
  initializers[`${p}_ws`] = f32(wScales, [m]);
  initializers[`${p}_wz`] = new Tensor('int8', new Int8Array(m), [m]);
  initializers[`${p}_b`] = ints('int32', [m], s.seed + 2, -2000, 2000);
  initializers[`${p}_bs`] = f32(Array.from(wScales, (w) => Math.fround(s.xScale * w)), [m]);
  initializers[`${p}_ys`] = f32([s.yScale], []);
  initializers[`${p}_yz`] = s.activationType === 'uint8' ? new Tensor('uint8', Uint8Array.of(s.relu ? 0 : 128), []) : new Tensor('int8', Int8Array.of(0), []);
  const pad = (k - 1) / 2;
  const convOut = s.relu ? `${p}_c` : `${p}_pre`;
  const nodes: NodeSpec[] = [
    { op: 'DequantizeLinear', inputs: [`${p}_w`, `${p}_ws`, `${p}_wz`], outputs: [`${p}_wf`], attributes: { axis: 0 } },
    { op: 'DequantizeLinear', inputs: [`${p}_b`, `${p}_bs`], outputs: [`${p}_bf`], attributes: { axis: 0 } },
    { op: 'Conv', inputs: [s.input, `${p}_wf`, `${p}_bf`], outputs: [convOut], attributes: { pads: [pad, pad, pad, pad], strides: [s.stride ?? 1, s.stride ?? 1] } },
  ];
  if (s.relu) nodes.push({ op: 'Relu', inputs: [convOut], outputs: [`${p}_pre`] });
  nodes.push({ op: 'QuantizeLinear', inputs: [`${p}_pre`, `${p}_ys`, `${p}_yz`], outputs: [s.output] });
  return nodes;
}

/**
 * x (float) → Q → DQ → [conv3x3 + Relu] → Q → DQ → [conv3x3] → Q → DQ → Add(x's DQ) → Relu → Q → DQ → y:
 * a ResNet basic block as quantize_static writes it. `quantizedOutput`: y is the last Q's uint8 / int8 output.
 */
export function qdqResNetBlock(channels: number, size: number, activationType: 'uint8' | 'int8' = 'uint8', quantizedOutput = false): () => Model {
  return () => {
    const initializers: Record<string, Tensor> = {};
    const zero = activationType === 'uint8' ? 128 : 0;
    const zp = (v: number) => (activationType === 'uint8' ? new Tensor('uint8', Uint8Array.of(v), []) : new Tensor('int8', Int8Array.of(v - 128), []));
    initializers.in_s = f32([0.02], []);
    initializers.in_z = zp(zero);
    initializers.sum_s = f32([0.04], []);
    initializers.sum_z = zp(zero);
    const c1: QdqConvSpec = { name: 'c1', input: 'xf', output: 'c1q', inChannels: channels, outChannels: channels, kernel: 3, relu: true, seed: 100, xScale: 0.02, yScale: 0.02, activationType };
    const c2: QdqConvSpec = { name: 'c2', input: 'c1f', output: 'c2q', inChannels: channels, outChannels: channels, kernel: 3, seed: 200, xScale: 0.02, yScale: 0.03, activationType };
    const nodes: NodeSpec[] = [
      { op: 'QuantizeLinear', inputs: ['x', 'in_s', 'in_z'], outputs: ['xq'] },
      { op: 'DequantizeLinear', inputs: ['xq', 'in_s', 'in_z'], outputs: ['xf'] },
      ...qdqConv(c1, initializers),
      { op: 'DequantizeLinear', inputs: ['c1q', 'c1_ys', 'c1_yz'], outputs: ['c1f'] },
      ...qdqConv(c2, initializers),
      { op: 'DequantizeLinear', inputs: ['c2q', 'c2_ys', 'c2_yz'], outputs: ['c2f'] },
      { op: 'DequantizeLinear', inputs: ['xq', 'in_s', 'in_z'], outputs: ['xf2'] },
      { op: 'Add', inputs: ['c2f', 'xf2'], outputs: ['sum'] },
      { op: 'Relu', inputs: ['sum'], outputs: ['sumr'] },
      { op: 'QuantizeLinear', inputs: ['sumr', 'sum_s', 'sum_z'], outputs: [quantizedOutput ? 'y' : 'yq'] },
    ];
    if (!quantizedOutput) nodes.push({ op: 'DequantizeLinear', inputs: ['yq', 'sum_s', 'sum_z'], outputs: ['y'] });
    return buildModel({
      inputs: [['x', 'float32', [1, channels, size, size]]],
      outputs: [['y', quantizedOutput ? activationType : 'float32', [1, channels, size, size]]],
      initializers,
      nodes,
      opset: 13,
    });
  };
}

/** x [rows, K] → Q → DQ → MatMul / Gemm(transB) with DQ(B int8 per column) [+ bias] → Relu? → Q → y (quantized). */
export function qdqLinear(kind: 'matmul' | 'gemm', rows: number, k: number, n: number, relu: boolean): () => Model {
  return () => {
    const wScales = values(n, 3, 0.5, 1.5).map((v) => v / (127 * Math.sqrt(k)) * 4);
    const initializers: Record<string, Tensor> = {
      in_s: f32([0.02], []),
      in_z: new Tensor('uint8', Uint8Array.of(128), []),
      w: kind === 'gemm' ? ints('int8', [n, k], 4, -127, 127) : ints('int8', [k, n], 4, -127, 127),
      ws: f32(wScales, [n]),
      b: ints('int32', [n], 5, -3000, 3000),
      bs: f32(Array.from(wScales, (w) => Math.fround(0.02 * w)), [n]),
      ys: f32([0.05], []),
      yz: new Tensor('uint8', Uint8Array.of(relu ? 0 : 128), []),
    };
    const nodes: NodeSpec[] = [
      { op: 'QuantizeLinear', inputs: ['x', 'in_s', 'in_z'], outputs: ['xq'] },
      { op: 'DequantizeLinear', inputs: ['xq', 'in_s', 'in_z'], outputs: ['xf'] },
      { op: 'DequantizeLinear', inputs: ['w', 'ws'], outputs: ['wf'], attributes: { axis: kind === 'gemm' ? 0 : 1 } },
      { op: 'DequantizeLinear', inputs: ['b', 'bs'], outputs: ['bf'], attributes: { axis: 0 } },
    ];
    if (kind === 'gemm') nodes.push({ op: 'Gemm', inputs: ['xf', 'wf', 'bf'], outputs: ['p'], attributes: { transB: 1 } });
    else nodes.push({ op: 'MatMul', inputs: ['xf', 'wf'], outputs: ['mm'] }, { op: 'Add', inputs: ['mm', 'bf'], outputs: ['p'] });
    if (relu) nodes.push({ op: 'Relu', inputs: ['p'], outputs: ['pr'] });
    nodes.push({ op: 'QuantizeLinear', inputs: [relu ? 'pr' : 'p', 'ys', 'yz'], outputs: ['y'] });
    return buildModel({ inputs: [['x', 'float32', [rows, k]]], outputs: [['y', 'uint8', [rows, n]]], initializers, nodes, opset: 13 });
  };
}
