/** Kernels of the ai.onnx.ml domain (traditional machine learning). */
import type { KernelDef } from '@switchyard/core';
import { labelEncoderKernel } from './LabelEncoder.js';
import { treeEnsembleKernel } from './TreeEnsemble.js';
import { arrayFeatureExtractorKernel } from './ArrayFeatureExtractor.js';
import { binarizerKernel } from './Binarizer.js';

export const mlKernels: KernelDef[] = [labelEncoderKernel, treeEnsembleKernel, arrayFeatureExtractorKernel, binarizerKernel];
