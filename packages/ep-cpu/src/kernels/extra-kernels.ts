/** Kernels added to complete the ONNX backend suite: losses, signal processing, text, sampling, training. */
import type { KernelDef } from '@switchyard/core';
import { negativeLogLikelihoodLossKernel } from './NegativeLogLikelihoodLoss.js';
import { softmaxCrossEntropyLossKernel } from './SoftmaxCrossEntropyLoss.js';
import { hannWindowKernel } from './HannWindow.js';
import { hammingWindowKernel } from './HammingWindow.js';
import { blackmanWindowKernel } from './BlackmanWindow.js';
import { shrinkKernel } from './Shrink.js';
import { detKernel } from './Det.js';
import { stringNormalizerKernel } from './StringNormalizer.js';
import { tfIdfVectorizerKernel } from './TfIdfVectorizer.js';
import { gridSampleKernel } from './GridSample.js';
import { dftKernel } from './DFT.js';
import { stftKernel } from './STFT.js';
import { melWeightMatrixKernel } from './MelWeightMatrix.js';
import { adagradKernel } from './Adagrad.js';
import { adamKernel } from './Adam.js';
import { momentumKernel } from './Momentum.js';
import { randomUniformKernel } from './RandomUniform.js';
import { randomUniformLikeKernel } from './RandomUniformLike.js';
import { randomNormalKernel } from './RandomNormal.js';
import { randomNormalLikeKernel } from './RandomNormalLike.js';
import { bernoulliKernel } from './Bernoulli.js';
import { multinomialKernel } from './Multinomial.js';
import { stringConcatKernel } from './StringConcat.js';
import { stringSplitKernel } from './StringSplit.js';
import { regexFullMatchKernel } from './RegexFullMatch.js';
import { centerCropPadKernel } from './CenterCropPad.js';
import { col2ImKernel } from './Col2Im.js';
import { affineGridKernel } from './AffineGrid.js';
import { deformConvKernel } from './DeformConv.js';

export const extraKernels: KernelDef[] = [
  negativeLogLikelihoodLossKernel,
  softmaxCrossEntropyLossKernel,
  hannWindowKernel,
  hammingWindowKernel,
  blackmanWindowKernel,
  shrinkKernel,
  detKernel,
  stringNormalizerKernel,
  tfIdfVectorizerKernel,
  gridSampleKernel,
  dftKernel,
  stftKernel,
  melWeightMatrixKernel,
  adagradKernel,
  adamKernel,
  momentumKernel,
  randomUniformKernel,
  randomUniformLikeKernel,
  randomNormalKernel,
  randomNormalLikeKernel,
  bernoulliKernel,
  multinomialKernel,
  stringConcatKernel,
  stringSplitKernel,
  regexFullMatchKernel,
  centerCropPadKernel,
  col2ImKernel,
  affineGridKernel,
  deformConvKernel,
];
