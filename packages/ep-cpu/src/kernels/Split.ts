/** Split: sizes from the `split` attribute (opset 1–12) or input (1 and 13+), else equal parts per output. */
import { SwitchyardError, type AttributeReader, type KernelRunContext, type Tensor } from '@switchyard/core';
import { allocOutput, checkMovable, copyRun, TENSOR_TYPES } from '../tensor-ops/elements.js';
import { normalizeAxis, product, readInts } from '../tensor-ops/indices.js';
import { tensorKernel } from '../tensor-ops/define.js';

/**
 * Part sizes along a dim of `size`: the given ones (checked), or `parts` equal parts. With `uneven`
 * (Split 18's `num_outputs`), a dim that does not divide gets parts of ceil(size / parts) and a
 * smaller last one.
 */
export function splitSizes(size: number, given: readonly number[] | undefined, parts: number, op: string, uneven = false): number[] {
  if (given) {
    if (given.some((s) => s < 0) || given.reduce((a, b) => a + b, 0) !== size) {
      throw new SwitchyardError('INVALID_SHAPE', `${op}: split [${given.join(', ')}] does not add up to the dimension ${size}`);
    }
    return [...given];
  }
  if (uneven && parts > 0 && size % parts !== 0) {
    const chunk = Math.ceil(size / parts);
    const last = size - chunk * (parts - 1);
    if (last < 0) throw new SwitchyardError('INVALID_SHAPE', `${op}: a dimension of ${size} cannot be cut into ${parts} chunks of ${chunk}`);
    return [...new Array<number>(parts - 1).fill(chunk), last];
  }
  if (parts <= 0 || size % parts !== 0) {
    throw new SwitchyardError('INVALID_SHAPE', `${op}: a dimension of ${size} does not split into ${parts} equal parts`);
  }
  return new Array<number>(parts).fill(size / parts);
}

/** Copies each part of `x` along `axis` into a tensor from `alloc` (outputs, or sequence elements). */
export function splitInto(x: Tensor, axis: number, sizes: readonly number[], alloc: (i: number, dims: number[]) => Tensor): Tensor[] {
  const outer = product(x.dims, 0, axis);
  const inner = product(x.dims, axis + 1);
  const rowIn = x.dims[axis] * inner;
  let base = 0;
  return sizes.map((s, i) => {
    const dims = [...x.dims];
    dims[axis] = s;
    const out = alloc(i, dims);
    const run = s * inner;
    for (let o = 0; o < outer; o++) copyRun(x.data, o * rowIn + base, out.data, o * run, run);
    base += run;
    return out;
  });
}

/** Split into the node's outputs. */
export function splitTensor(ctx: KernelRunContext, x: Tensor, axis: number, sizes: readonly number[]): Tensor[] {
  checkMovable(x, ctx.node.opType);
  return splitInto(x, axis, sizes, (i, dims) => allocOutput(ctx, i, x.type, dims));
}

/** Split's axis and part sizes for one run, from the attributes (opset 2–12) or the `split` input (1, 13+). */
export function splitPlan(attrs: AttributeReader, opset: number, parts: number): (ctx: KernelRunContext, x: Tensor) => { axis: number; sizes: number[] } {
  const axisAttr = attrs.int('axis', 0);
  const splitAttr = attrs.has('split') ? attrs.ints('split') : undefined;
  // Opset 2–12 have no split input; opset 1 and 13+ do.
  const splitFromInput = opset < 2 || opset >= 13;
  // Opset 18 names the output count in `num_outputs`; then the last part may be smaller.
  const numOutputs = opset >= 18 && attrs.has('num_outputs') ? attrs.int('num_outputs') : undefined;
  if (numOutputs !== undefined && numOutputs !== parts) {
    throw new SwitchyardError('INVALID_MODEL', `Split: num_outputs is ${numOutputs} but the node has ${parts} outputs`);
  }
  return (ctx, x) => {
    const axis = normalizeAxis(axisAttr, x.dims.length, 'Split');
    const splitT = splitFromInput ? ctx.optionalInput(1) : undefined;
    if (splitT && numOutputs !== undefined) {
      throw new SwitchyardError('INVALID_MODEL', 'Split: the split input and the num_outputs attribute are exclusive');
    }
    const given = splitT ? readInts(splitT, 'Split split') : splitAttr;
    if (given && given.length !== parts) {
      throw new SwitchyardError('INVALID_SHAPE', `Split: ${given.length} sizes given for ${parts} outputs`);
    }
    return { axis, sizes: splitSizes(x.dims[axis], given, parts, 'Split', numOutputs !== undefined) };
  };
}

export const splitKernel = tensorKernel({
  opType: 'Split',
  sinceVersion: 1,
  typeConstraints: { T: TENSOR_TYPES },
  create({ attrs, opset, node }) {
    const plan = splitPlan(attrs, opset, node.outputs.length);
    return {
      run(ctx) {
        const x = ctx.input(0);
        const { axis, sizes } = plan(ctx, x);
        return splitTensor(ctx, x, axis, sizes);
      },
    };
  },
});
