import { describe, expect, it } from 'vitest';
import { KernelRegistry } from '@switchyard/core';
import { tensorKernels } from '../kernels/tensor-kernels.js';

const OPS = `Identity Constant ConstantOfShape Shape Size Reshape Flatten Squeeze Unsqueeze Transpose Concat Split Slice Gather
  GatherElements GatherND Scatter ScatterElements ScatterND Expand Tile Pad Range OneHot NonZero Trilu Compress DepthToSpace
  SpaceToDepth ReverseSequence Unique EyeLike TopK Einsum SequenceConstruct SequenceEmpty SequenceAt SequenceInsert SequenceErase
  SequenceLength SplitToSequence ConcatFromSequence Optional OptionalHasElement OptionalGetElement`.split(/\s+/);

describe('tensorKernels', () => {
  it('registers without overlaps and covers every op of the family', () => {
    const registry = new KernelRegistry();
    registry.registerAll(tensorKernels);
    const served = new Set(tensorKernels.map((d) => d.opType));
    expect(OPS.filter((op) => !served.has(op))).toEqual([]);
    for (const d of tensorKernels) expect([d.ep, d.domain]).toEqual(['cpu', '']);
  });
});
