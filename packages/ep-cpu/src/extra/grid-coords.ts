/**
 * Coordinate rules of GridSample (ONNX opset 16 follows torch.nn.functional.grid_sample): mapping a
 * normalized grid coordinate in [−1, 1] to a pixel position, and folding out-of-range positions back
 * for the border and reflection padding modes.
 */
export type GridPadding = 'zeros' | 'border' | 'reflection';

/** [−1, 1] → pixel position: −1/1 are the centres of the corner pixels (alignCorners) or their outer edges. */
export function unnormalize(coord: number, size: number, alignCorners: boolean): number {
  return alignCorners ? ((coord + 1) / 2) * (size - 1) : ((coord + 1) * size - 1) / 2;
}

/** Reflects x into [twiceLow/2, twiceHigh/2] as often as needed (bounds given doubled to stay integral). */
function reflect(x: number, twiceLow: number, twiceHigh: number): number {
  if (twiceLow === twiceHigh) return 0;
  const min = twiceLow / 2;
  const span = (twiceHigh - twiceLow) / 2;
  const d = Math.abs(x - min);
  const extra = d % span;
  const flips = Math.floor(d / span);
  return flips % 2 === 0 ? extra + min : span - extra + min;
}

function clip(x: number, size: number): number {
  return Math.min(size - 1, Math.max(x, 0));
}

/**
 * Applies the padding mode to a pixel position: border clamps into the image; reflection mirrors at the
 * corner-pixel centres (alignCorners) or at the image edges, then clamps; zeros leaves it (reads outside give 0).
 */
export function padCoordinate(x: number, size: number, padding: GridPadding, alignCorners: boolean): number {
  if (padding === 'border') return clip(x, size);
  if (padding === 'reflection') return clip(alignCorners ? reflect(x, 0, 2 * (size - 1)) : reflect(x, -1, 2 * size - 1), size);
  return x;
}

/** Keys' cubic convolution weights for the taps at floor(x) − 1 … floor(x) + 2, with t = x − floor(x) (A = −0.75, as PyTorch). */
export function cubicWeights(t: number, out: Float64Array): void {
  const A = -0.75;
  const near = (d: number) => ((A + 2) * d - (A + 3)) * d * d + 1; // |d| ≤ 1
  const far = (d: number) => ((A * d - 5 * A) * d + 8 * A) * d - 4 * A; // 1 < |d| < 2
  out[0] = far(t + 1);
  out[1] = near(t);
  out[2] = near(1 - t);
  out[3] = far(2 - t);
}

/** Round half to even, as C's nearbyint in the default rounding mode (PyTorch's nearest mode uses it). */
export function roundHalfToEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}
