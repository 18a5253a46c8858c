/**
 * float16 plans: convolutions in NHWC. cuDNN's float16 tensor-core kernels work on channels-last data;
 * handed NCHW they transpose the input, the filter and the output around every call (measured on the
 * H200: ResNet-50 fp16 b32 ran 5.8 ms of GPU time against PyTorch's 4.1). This pass rewrites a built
 * step list so that Conv steps become ConvNHWC on channels-last buffers, their filters are transposed
 * once on the host (KRSC), pooling on a channels-last value stays channels-last (PoolNHWC), and a
 * Transpose step converts a value only where a step that needs the other layout reads it -- once per
 * value. A channels-last buffer's `dims` are its memory order, [n, h, w, c], so every other step's
 * shape checks keep working.
 *
 * Returns a rewritten copy, or undefined when the plan has nothing to gain (no eligible Conv) or holds
 * something the pass does not understand (then the plan stays NCHW).
 *
 * `policy: 'auto'` converts a plan only where NHWC measured faster on the H200 (cuDNN 9, legacy conv
 * API, graph replay): large batches of ungrouped convolutions. ResNet-50 fp16 b32: 2.6 ms GPU NHWC vs
 * 4.7 NCHW; but b8 3.3 vs 2.1 and b1 2.3 vs 1.7 -- cuDNN's NCHW float16 path picks faster kernels for
 * small problems -- and MobileNetV2 (depthwise convolutions) 3.3 vs 2.8 at b32, SqueezeNet b1-b3
 * slower too. So: every convolution ungrouped and batch >= AUTO_MIN_BATCH, else the plan stays NCHW.
 */
import { ONNX_DATA_TYPE } from '@switchyard/core';
import { asymmetricPads } from './conv-workspace.js';
import type { PlanBuffer, PlanDescription, PlanStepDescription } from './plan-description.js';

export type BufferRegion = 'constant' | 'input' | 'output' | 'temp';

export interface LayoutParts {
  buffers: PlanBuffer[];
  steps: PlanStepDescription[];
  constants: PlanDescription['constants'];
  region: Map<number, BufferRegion>;
}

const HALF = ONNX_DATA_TYPE.float16;
const TO_NHWC = [0, 2, 3, 1];
const TO_NCHW = [0, 3, 1, 2];
/** Unary steps that may run in place on a channels-last buffer (elementwise: layout does not matter). */
const ELEMENTWISE_IN_PLACE = new Set(['Relu', 'Sigmoid', 'Tanh', 'Clip', 'LeakyRelu', 'HardSigmoid', 'HardSwish', 'Unary']);

const permute = (dims: readonly number[], perm: readonly number[]) => perm.map((p) => dims[p]);

/** float16 filter bits reordered from [k, c, h, w] to [k, h, w, c] (KRSC). */
function filterToKrsc(src: Uint16Array, dims: readonly number[]): Uint16Array {
  const [k, c, h, w] = dims;
  const out = new Uint16Array(src.length);
  for (let o = 0; o < k; o++)
    for (let i = 0; i < c; i++)
      for (let y = 0; y < h; y++)
        for (let x = 0; x < w; x++) out[((o * h + y) * w + x) * c + i] = src[((o * c + i) * h + y) * w + x];
  return out;
}

/** Smallest batch 'auto' converts (measured: 8 slower, 32 faster; nothing in between yet). */
export const AUTO_MIN_BATCH = 16;

export function convsToNhwc(parts: LayoutParts, policy: 'auto' | 'always' = 'always'): LayoutParts | undefined {
  const buffers = parts.buffers.map((b) => ({ ...b, dims: [...b.dims] }));
  const region = new Map(parts.region);
  const constants = [...parts.constants];
  const is4dHalf = (id: number) => id >= 0 && buffers[id].dtype === HALF && buffers[id].dims.length === 4;

  // Eligible convolutions: float16, 4-D, a temp output, a constant filter no other step reads, even pads.
  const filterUses = new Map<number, number>();
  for (const s of parts.steps) for (const id of s.inputs) if (id >= 0) filterUses.set(id, (filterUses.get(id) ?? 0) + 1);
  const convs = new Set<PlanStepDescription>();
  const convsOfFilter = new Map<number, number>();
  for (const s of parts.steps) {
    if (s.op !== 'Conv' || !is4dHalf(s.inputs[0]) || !is4dHalf(s.inputs[1]) || region.get(s.outputs[0]) !== 'temp') continue;
    if (region.get(s.inputs[1]) !== 'constant') continue;
    if (asymmetricPads(s)) continue; // only the NCHW GEMM form runs those (conv-workspace.ts)
    convs.add(s);
    convsOfFilter.set(s.inputs[1], (convsOfFilter.get(s.inputs[1]) ?? 0) + 1);
  }
  for (const s of [...convs]) if (convsOfFilter.get(s.inputs[1]) !== filterUses.get(s.inputs[1])) convs.delete(s);
  if (convs.size === 0) return undefined;
  if (policy === 'auto') {
    const all = parts.steps.filter((st) => st.op === 'Conv');
    const big = (st: PlanStepDescription) => st.attrs[0] === 1 && parts.buffers[st.inputs[0]].dims[0] >= AUTO_MIN_BATCH;
    if (all.some((st) => !convs.has(st) || !big(st))) return undefined;
  }

  const nhwc = new Set<number>();
  const twinNhwc = new Map<number, number>();
  const twinNchw = new Map<number, number>();
  const steps: PlanStepDescription[] = [];
  const addTemp = (from: number, dims: number[], suffix: string) => {
    buffers.push({ offset: -1, bytes: buffers[from].bytes, dtype: buffers[from].dtype, dims, name: `${buffers[from].name}:${suffix}` });
    const id = buffers.length - 1;
    region.set(id, 'temp');
    return id;
  };
  const asNhwc = (id: number, node: string): number => {
    if (nhwc.has(id)) return id;
    let twin = twinNhwc.get(id);
    if (twin === undefined) {
      twin = addTemp(id, permute(buffers[id].dims, TO_NHWC), 'nhwc');
      nhwc.add(twin);
      twinNhwc.set(id, twin);
      steps.push({ op: 'Transpose', attrs: TO_NHWC, inputs: [id], outputs: [twin], node: `${node} (to NHWC)` });
    }
    return twin;
  };
  const asNchw = (id: number, node: string): number => {
    let twin = twinNchw.get(id);
    if (twin === undefined) {
      twin = addTemp(id, permute(buffers[id].dims, TO_NCHW), 'nchw');
      twinNchw.set(id, twin);
      steps.push({ op: 'Transpose', attrs: TO_NCHW, inputs: [id], outputs: [twin], node: `${node} (to NCHW)` });
    }
    return twin;
  };
  const makeNhwc = (id: number) => {
    buffers[id].dims = permute(buffers[id].dims, TO_NHWC);
    nhwc.add(id);
  };

  const transposed = new Set<number>();
  for (const original of parts.steps) {
    const s: PlanStepDescription = { ...original, inputs: [...original.inputs], outputs: [...original.outputs] };
    if (convs.has(original)) {
      s.inputs[0] = asNhwc(s.inputs[0], s.node);
      if (s.inputs.length > 3 && s.inputs[3] >= 0) {
        if (!is4dHalf(s.inputs[3])) return undefined;
        s.inputs[3] = asNhwc(s.inputs[3], s.node);
      }
      const w = s.inputs[1];
      if (!transposed.has(w)) {
        const at = constants.findIndex((c) => c.buffer === w);
        const data = at < 0 ? undefined : constants[at].data;
        if (!(data instanceof Uint16Array)) return undefined;
        constants[at] = { buffer: w, data: filterToKrsc(data, buffers[w].dims) };
        buffers[w].dims = permute(buffers[w].dims, TO_NHWC);
        transposed.add(w);
      }
      makeNhwc(s.outputs[0]);
      s.op = 'ConvNHWC';
    } else if (s.op === 'Pool' && nhwc.has(s.inputs[0]) && region.get(s.outputs[0]) === 'temp' && is4dHalf(s.outputs[0])) {
      makeNhwc(s.outputs[0]);
      s.op = 'PoolNHWC';
    } else if (s.outputs.some((o) => nhwc.has(o))) {
      // Only an elementwise step in place on one channels-last buffer may write one.
      const inPlace = s.outputs.length === 1 && s.inputs.every((i) => i === s.outputs[0]) && ELEMENTWISE_IN_PLACE.has(s.op);
      if (!inPlace) return undefined;
    } else {
      s.inputs = s.inputs.map((id) => {
        if (id < 0 || !nhwc.has(id)) return id;
        // A byte copy (Reshape/Flatten) of a [n, 1, 1, c] value reads the same bytes in either layout.
        const d = buffers[id].dims;
        if (s.op === 'Copy' && d[1] === 1 && d[2] === 1) return id;
        return asNchw(id, s.node);
      });
    }
    steps.push(s);
  }
  return { buffers, steps, constants, region };
}
