/**
 * ConvTranspose: the gradient of Conv with respect to its input. Per (batch, group) one GEMM
 * (Wᵀ · X) produces columns that col2im scatters into the output. Output size per spatial dim:
 * stride·(in-1) + output_padding + (kernel-1)·dilation + 1 - pads, or `output_shape` with the
 * implied total padding split per auto_pad.
 */
import { SwitchyardError, defineKernel, elementCount, simpleKernel, type AttributeReader } from '@switchyard/core';
import { FLOAT_KERNEL_TYPES, floatData, floatOutput, scratchLike } from '../nn/float-io.js';
import { checkWindowAttrs, to3d, type WindowAttrs, type AutoPad } from '../nn/geometry.js';
import { gemmAccumulate } from '../nn/gemm.js';
import { col2im3d } from '../nn/col2im.js';

function fail(msg: string): never {
  throw new SwitchyardError('INVALID_ARGUMENT', `ConvTranspose: ${msg}`);
}

/**
 * Per spatial axis: the window attributes, the begin padding (negative where output_shape asks for more
 * than the full extent) and the output size, with auto_pad, output_padding and output_shape resolved.
 * The native kernel (native/conv-transpose-native.ts) builds its primitive from the same numbers.
 */
export interface ConvTransposeGeometry {
  kernel: number[];
  strides: number[];
  dilations: number[];
  padsBegin: number[];
  output: number[];
}

export function convTransposeGeometry(attrs: AttributeReader, input: readonly number[], kernelFromW: number[]): ConvTransposeGeometry {
  const n = input.length;
  const w: WindowAttrs = {
    kernel: attrs.has('kernel_shape') ? attrs.ints('kernel_shape') : kernelFromW,
    strides: attrs.ints('strides', new Array<number>(n).fill(1)),
    dilations: attrs.ints('dilations', new Array<number>(n).fill(1)),
    pads: attrs.ints('pads', new Array<number>(2 * n).fill(0)),
    autoPad: attrs.string('auto_pad', 'NOTSET') as AutoPad,
    ceilMode: false,
  };
  checkWindowAttrs('ConvTranspose', w, n);
  const outputPadding = attrs.ints('output_padding', new Array<number>(n).fill(0));
  if (outputPadding.length !== n) fail(`output_padding has ${outputPadding.length} values, expected ${n}`);
  const outputShapeAttr = attrs.has('output_shape') ? attrs.ints('output_shape').slice(-n) : undefined;
  if (outputShapeAttr && outputShapeAttr.length !== n) fail(`output_shape needs ${n} spatial sizes`);
  const padsBegin: number[] = [];
  const output: number[] = [];
  for (let i = 0; i < n; i++) {
    const s = w.strides[i];
    const op = outputPadding[i];
    if (!(op >= 0 && (op < s || op < w.dilations[i]))) fail(`output_padding ${op} must be non-negative and smaller than stride or dilation`);
    const full = s * (input[i] - 1) + op + (w.kernel[i] - 1) * w.dilations[i] + 1;
    let target: number | undefined = outputShapeAttr?.[i];
    if (target === undefined && (w.autoPad === 'SAME_UPPER' || w.autoPad === 'SAME_LOWER')) target = input[i] * s;
    let pb: number;
    let out: number;
    if (target !== undefined) {
      const total = full - target;
      if (total < 0 && outputShapeAttr === undefined) fail(`output ${target} larger than the full extent ${full}`);
      // As onnxruntime and the ONNX test data: the odd unit goes last except for SAME_LOWER; a negative
      // total (output_shape beyond the full extent) becomes trailing zeros.
      pb = w.autoPad === 'SAME_LOWER' ? total - Math.trunc(total / 2) : Math.trunc(total / 2);
      out = target;
    } else {
      pb = w.autoPad === 'VALID' ? 0 : w.pads[i];
      const pe = w.autoPad === 'VALID' ? 0 : w.pads[i + n];
      out = full - pb - pe;
    }
    if (!(out >= 1)) fail(`output size ${out} in spatial dim ${i} is empty (pads larger than the output?)`);
    padsBegin.push(pb);
    output.push(out);
  }
  return { kernel: w.kernel, strides: w.strides, dilations: w.dilations, padsBegin, output };
}

function transposeGeometry(attrs: AttributeReader, input: readonly number[], kernelFromW: number[]) {
  const { kernel, strides, dilations, padsBegin, output } = convTransposeGeometry(attrs, input, kernelFromW);
  // In col2im's terms, the image is the transposed conv's output and the window grid its input.
  const g3 = to3d('ConvTranspose', { input: output, kernel, strides, dilations, padsBegin, padsEnd: padsBegin, output: [...input] });
  return { g3, output };
}

export const convTransposeKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'ConvTranspose',
  sinceVersion: 1,
  typeConstraints: { T: FLOAT_KERNEL_TYPES },
  create: simpleKernel((ctx, init) => {
    const X = ctx.input(0);
    const W = ctx.input(1);
    const B = ctx.optionalInput(2);
    if (X.dims.length < 3 || W.dims.length !== X.dims.length) {
      throw new SwitchyardError('INVALID_SHAPE', `ConvTranspose: X [${X.dims.join(', ')}] and W [${W.dims.join(', ')}] must have the same rank ≥ 3`);
    }
    const group = init.attrs.int('group', 1);
    const [N, C] = X.dims;
    if (!(group >= 1) || C % group !== 0 || W.dims[0] !== C) fail(`W's first dim ${W.dims[0]} must equal input channels ${C}, divisible by group ${group}`);
    const cg = C / group;
    const mg = W.dims[1];
    const M = mg * group;
    if (B && B.size !== M) throw new SwitchyardError('INVALID_SHAPE', `ConvTranspose: bias has ${B.size} elements, expected ${M}`);
    const { g3, output } = transposeGeometry(init.attrs, X.dims.slice(2), W.dims.slice(2));
    const outDims = [N, M, ...output];
    elementCount(outDims, 'ConvTranspose output');
    const x = floatData(X);
    const w = floatData(W);
    const bias = B ? floatData(B) : undefined;
    const y = floatOutput(ctx, 0, X.type, outDims);
    const out = y.data;
    const outPlane = g3.inD * g3.inH * g3.inW;
    const inPlane = g3.oD * g3.oH * g3.oW;
    const kSize = g3.kD * g3.kH * g3.kW;
    for (let n = 0; n < N; n++)
      for (let m = 0; m < M; m++) out.fill(bias ? bias[m] : 0, (n * M + m) * outPlane, (n * M + m + 1) * outPlane);
    const rows = mg * kSize;
    const col = scratchLike(x, rows * inPlane);
    for (let n = 0; n < N; n++) {
      for (let gi = 0; gi < group; gi++) {
        col.fill(0);
        gemmAccumulate(
          rows, inPlane, cg, 1,
          { data: w, offset: gi * cg * rows, ld: rows, trans: true },
          { data: x, offset: (n * C + gi * cg) * inPlane, ld: inPlane, trans: false },
          col, 0, inPlane,
        );
        col2im3d(col, mg, g3, out, (n * M + gi * mg) * outPlane);
      }
    }
    return [y.commit()];
  }),
});
