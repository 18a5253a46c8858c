/**
 * Names for symbolic dims that an op derives from another symbolic dim (a stride-2 convolution of
 * `H`, ConvTranspose doubling it). The name spells the function and every parameter that decides its
 * value, so two values derived the same way from the same symbol get the same name — and one name
 * always means one size, as ONNX requires of a dim_param. That is what lets passes see that a
 * residual connection's two inputs have one shape in a model with dynamic H and W (each went through
 * the same strided convolutions), where an unknown dim would match nothing.
 *
 * The names are never parsed: a symbol no graph input binds is sized at run time, as an unknown dim is.
 */

/** Signed integer term: `+3`, `-2`, or '' for 0. */
function term(n: number): string {
  return n === 0 ? '' : n > 0 ? `+${n}` : `${n}`;
}

/** `floor((d + padTotal - effKernel) / stride) + 1`: a window's output size, floor mode. */
export function windowDim(input: string, padTotal: number, effKernel: number, stride: number): string {
  if (stride === 1) return `${input}${term(padTotal - effKernel + 1)}`;
  return `floor((${input}${term(padTotal - effKernel)})/${stride})+1`;
}

/** ceil_mode's size also depends on the begin pad (the last window must start inside the input or its begin pad). */
export function ceilWindowDim(input: string, padBegin: number, padTotal: number, effKernel: number, stride: number): string {
  return `ceil_window(${input},p${padBegin}/${padTotal},k${effKernel},s${stride})`;
}

/** auto_pad SAME_*: `ceil(d / stride)`. */
export function sameDim(input: string, stride: number): string {
  return stride === 1 ? input : `ceil(${input}/${stride})`;
}

/** ConvTranspose: `stride · (d − 1) + outputPadding + effKernel − padTotal`. */
export function transposedDim(input: string, stride: number, outputPadding: number, effKernel: number, padTotal: number): string {
  const offset = outputPadding + effKernel - padTotal - stride;
  return stride === 1 ? `${input}${term(offset)}` : `${stride}*${input}${term(offset)}`;
}

/** ConvTranspose with auto_pad SAME_*: `d · stride`. */
export function scaledDim(input: string, factor: number): string {
  return factor === 1 ? input : `${factor}*${input}`;
}
