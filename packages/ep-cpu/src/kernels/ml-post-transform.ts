/** The score transforms of ai.onnx.ml's tree and linear models, applied per row of [N, targets] scores. */
import { SwitchyardError } from '@switchyard/core';

export type PostTransform = 'NONE' | 'SOFTMAX' | 'LOGISTIC' | 'SOFTMAX_ZERO' | 'PROBIT';

/** TreeEnsemble-5 numbers its transforms; the older ops spell them out. */
export const POST_TRANSFORM_BY_NUMBER: readonly PostTransform[] = ['NONE', 'SOFTMAX', 'LOGISTIC', 'SOFTMAX_ZERO', 'PROBIT'];

export function postTransformOf(value: number, op: string): PostTransform {
  const t = POST_TRANSFORM_BY_NUMBER[value];
  if (t === undefined) throw new SwitchyardError('INVALID_MODEL', `${op}: post_transform ${value} is not one of 0–4`);
  return t;
}

function logistic(v: number): number {
  const e = 1 / (1 + Math.exp(-Math.abs(v)));
  return v < 0 ? 1 - e : e;
}

/** Winitzki's approximation of erf⁻¹, the one ONNX's reference and ONNX Runtime use for PROBIT. */
function erfInv(x: number): number {
  const sign = x < 0 ? -1 : 1;
  const t = (1 - x) * (1 + x);
  if (t === 0) return 0;
  const log = Math.log(t);
  const a = 2 / (Math.PI * 0.147) + 0.5 * log;
  const b = log / 0.147;
  return sign * Math.sqrt(-a + Math.sqrt(a * a - b));
}

/** Applies `transform` in place to each row of `width` scores. */
export function applyPostTransform(transform: PostTransform, scores: Float64Array, width: number): void {
  if (transform === 'NONE' || width === 0) return;
  for (let row = 0; row < scores.length; row += width) {
    if (transform === 'LOGISTIC') {
      for (let j = row; j < row + width; j++) scores[j] = logistic(scores[j]);
    } else if (transform === 'PROBIT') {
      for (let j = row; j < row + width; j++) scores[j] = Math.SQRT2 * erfInv(2 * scores[j] - 1);
    } else {
      let max = -Infinity;
      for (let j = row; j < row + width; j++) max = Math.max(max, scores[j]);
      let sum = 0;
      for (let j = row; j < row + width; j++) {
        const v = scores[j];
        // SOFTMAX_ZERO leaves (near-)zero scores at zero weight relative to the row's max.
        scores[j] = transform === 'SOFTMAX_ZERO' && Math.abs(v) <= 1e-7 ? v * Math.exp(-max) : Math.exp(v - max);
        sum += scores[j];
      }
      if (transform === 'SOFTMAX_ZERO' && sum === 0) scores.fill(0.5, row, row + width);
      else for (let j = row; j < row + width; j++) scores[j] /= sum;
    }
  }
}
