/** The tensor family: shape and data-movement kernels, sequence and optional ops. */
import type { KernelDef } from '@switchyard/core';
import { compressKernel } from './Compress.js';
import { tensorScatterKernel } from './TensorScatter.js';
import { concatKernel } from './Concat.js';
import { concatFromSequenceKernel } from './ConcatFromSequence.js';
import { constantKernel } from './Constant.js';
import { constantOfShapeKernel } from './ConstantOfShape.js';
import { depthToSpaceKernel } from './DepthToSpace.js';
import { einsumKernel } from './Einsum.js';
import { expandKernel } from './Expand.js';
import { eyeLikeKernel } from './EyeLike.js';
import { flattenKernel } from './Flatten.js';
import { gatherKernel } from './Gather.js';
import { gatherElementsKernel } from './GatherElements.js';
import { gatherNDKernel } from './GatherND.js';
import { identityKernel } from './Identity.js';
import { nonZeroKernel } from './NonZero.js';
import { oneHotKernel } from './OneHot.js';
import { optionalKernel } from './Optional.js';
import { optionalGetElementKernel } from './OptionalGetElement.js';
import { optionalHasElementKernel } from './OptionalHasElement.js';
import { padKernel, padV2Kernel } from './Pad.js';
import { rangeKernel } from './Range.js';
import { reshapeKernel, reshapeV1Kernel } from './Reshape.js';
import { reverseSequenceKernel } from './ReverseSequence.js';
import { scatterKernel } from './Scatter.js';
import { scatterElementsKernel } from './ScatterElements.js';
import { scatterNDKernel } from './ScatterND.js';
import { sequenceAtKernel } from './SequenceAt.js';
import { sequenceConstructKernel } from './SequenceConstruct.js';
import { sequenceEmptyKernel } from './SequenceEmpty.js';
import { sequenceEraseKernel } from './SequenceErase.js';
import { sequenceInsertKernel } from './SequenceInsert.js';
import { sequenceLengthKernel } from './SequenceLength.js';
import { shapeKernel } from './Shape.js';
import { sizeKernel } from './Size.js';
import { sliceKernel, sliceV1Kernel } from './Slice.js';
import { spaceToDepthKernel } from './SpaceToDepth.js';
import { splitKernel } from './Split.js';
import { splitToSequenceKernel } from './SplitToSequence.js';
import { squeezeKernel, squeezeV1Kernel } from './Squeeze.js';
import { tileKernel, tileV1Kernel } from './Tile.js';
import { topKKernel } from './TopK.js';
import { transposeKernel } from './Transpose.js';
import { triluKernel } from './Trilu.js';
import { uniqueKernel } from './Unique.js';
import { unsqueezeKernel, unsqueezeV1Kernel } from './Unsqueeze.js';

export const tensorKernels: KernelDef[] = [
  compressKernel,
  concatKernel,
  concatFromSequenceKernel,
  constantKernel,
  constantOfShapeKernel,
  depthToSpaceKernel,
  einsumKernel,
  expandKernel,
  eyeLikeKernel,
  flattenKernel,
  gatherKernel,
  gatherElementsKernel,
  gatherNDKernel,
  identityKernel,
  nonZeroKernel,
  oneHotKernel,
  optionalKernel,
  optionalGetElementKernel,
  optionalHasElementKernel,
  padV2Kernel,
  padKernel,
  rangeKernel,
  reshapeV1Kernel,
  reshapeKernel,
  reverseSequenceKernel,
  scatterKernel,
  scatterElementsKernel,
  scatterNDKernel,
  sequenceAtKernel,
  sequenceConstructKernel,
  sequenceEmptyKernel,
  sequenceEraseKernel,
  sequenceInsertKernel,
  sequenceLengthKernel,
  shapeKernel,
  sizeKernel,
  sliceV1Kernel,
  sliceKernel,
  spaceToDepthKernel,
  splitKernel,
  splitToSequenceKernel,
  squeezeV1Kernel,
  squeezeKernel,
  tileV1Kernel,
  tileKernel,
  topKKernel,
  transposeKernel,
  triluKernel,
  uniqueKernel,
  unsqueezeV1Kernel,
  unsqueezeKernel,
  tensorScatterKernel,
];
