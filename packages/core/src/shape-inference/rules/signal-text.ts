/** Signal processing (DFT, STFT) and the text ops (StringNormalizer, TfIdfVectorizer). */
import type { ShapeRule } from '../context.js';
import type { Dim } from '../../ir/graph.js';
import { mapDim, normalizeAxis } from '../dims.js';

/** DFT (opset 17): the transformed axis becomes `dft_length` (halved + 1 when onesided); last dim is 2. */
const dft: ShapeRule = (ctx) => {
  const x = ctx.shape(0);
  if (!x || x.length < 2) return;
  const axis = normalizeAxis(ctx.attrs.int('axis', 1), x.length - 1);
  if (axis === undefined) return;
  const out = [...x];
  const length: Dim = ctx.hasInput(1) ? ctx.scalar(1) : x[axis];
  const onesided = ctx.attrs.int('onesided', 0) === 1 && ctx.attrs.int('inverse', 0) === 0;
  out[axis] = onesided ? mapDim(length, (n) => Math.floor(n / 2) + 1) : length;
  out[x.length - 1] = 2;
  ctx.setShape(0, out);
};

/** STFT: `[batch, frames, bins, 2]`, frames from the signal length, frame step and frame length. */
const stft: ShapeRule = (ctx) => {
  const signal = ctx.shape(0);
  if (!signal || signal.length !== 3) return;
  const step = ctx.scalar(1);
  const frameLength = ctx.hasInput(3) ? ctx.scalar(3) : ctx.shape(2)?.[0];
  const length = signal[1];
  const frames =
    typeof length === 'number' && typeof frameLength === 'number' && step !== undefined && step > 0
      ? Math.floor((length - frameLength) / step) + 1
      : undefined;
  const onesided = ctx.attrs.int('onesided', 1) === 1;
  const bins = onesided ? mapDim(frameLength, (n) => Math.floor(n / 2) + 1) : frameLength;
  ctx.setShape(0, [signal[0], frames, bins, 2]);
};

/** StringNormalizer may drop stopwords, so the string count is unknown; a `[1, C]` input stays 2-D. */
const stringNormalizer: ShapeRule = (ctx) => {
  const x = ctx.shape(0);
  ctx.setShape(0, x?.length === 2 ? [1, undefined] : [undefined], 'string');
};

const tfIdfVectorizer: ShapeRule = (ctx) => {
  const x = ctx.shape(0);
  const indexes = ctx.attrs.ints('ngram_indexes', []);
  const size = indexes.length > 0 ? Math.max(...indexes) + 1 : undefined;
  if (!x) return;
  ctx.setShape(0, x.length === 2 ? [x[0], size] : [size], 'float32');
};

export const signalTextRules: Record<string, ShapeRule> = {
  DFT: dft,
  STFT: stft,
  StringNormalizer: stringNormalizer,
  TfIdfVectorizer: tfIdfVectorizer,
};
