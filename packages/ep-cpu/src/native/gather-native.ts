/**
 * Gather, GatherElements and ScatterElements on the addon's dtype-generic kernels: any data dtype but
 * strings, int32 or int64 indices (negative ones count from the end; an out-of-range one is an
 * INVALID_ARGUMENT error). Embedding lookups copy whole rows; the element-indexed ops walk rows of the
 * indices' last axis. ScatterElements' reductions on float16, bfloat16 and bool stay in TypeScript.
 * ReverseSequence is a Gather of whole rows (the dims after batch and time) by a computed row list.
 */
import { elementCount, type Kernel, type KernelDef, type KernelInit } from '@switchyard/core';
import type { NativeBinding, NativeElements } from './binding.js';
import { withNodeErrors } from './native-errors.js';
import { nativeBeside, nativeElements, runsInTs, teamSize, type SizeRule } from './movement-support.js';
import { SMALL_MOVE_ELEMENTS } from './native-support.js';
import { gatherKernel } from '../kernels/Gather.js';
import { gatherElementsKernel } from '../kernels/GatherElements.js';
import { scatterElementsKernel } from '../kernels/ScatterElements.js';
import { scatterKernel } from '../kernels/Scatter.js';
import { reverseSequenceKernel } from '../kernels/ReverseSequence.js';
import { normalizeAxis, product, readInts } from '../tensor-ops/indices.js';

function indexData(t: { type: string; data: unknown }): Int32Array | BigInt64Array | undefined {
  return t.type === 'int32' || t.type === 'int64' ? (t.data as Int32Array | BigInt64Array) : undefined;
}

function createGather(binding: NativeBinding, gather: NonNullable<NativeBinding['gather']>, rule: SizeRule, init: KernelInit, fallback: Kernel): Kernel {
  const { node } = init;
  const axisAttr = init.attrs.int('axis', 0);
  return {
    run(ctx) {
      const data = ctx.input(0);
      const indices = ctx.input(1);
      const src = nativeElements(data);
      const idx = indexData(indices);
      if (!src || !idx) return fallback.run(ctx);
      const axis = normalizeAxis(axisAttr, data.dims.length, 'Gather');
      const outDims = [...data.dims.slice(0, axis), ...indices.dims, ...data.dims.slice(axis + 1)];
      if (runsInTs(rule, elementCount(outDims))) return fallback.run(ctx);
      const out = ctx.output(0, data.type, outDims, { uninitialized: true });
      const outer = product(data.dims, 0, axis);
      const inner = product(data.dims, axis + 1);
      withNodeErrors(node, () => gather(src, idx, out.data as NativeElements, outer, data.dims[axis], inner, teamSize(binding, ctx)));
      return [out];
    },
  };
}

function createGatherElements(
  binding: NativeBinding,
  gatherElements: NonNullable<NativeBinding['gatherElements']>,
  rule: SizeRule,
  init: KernelInit,
  fallback: Kernel,
): Kernel {
  const { node } = init;
  const axisAttr = init.attrs.int('axis', 0);
  return {
    run(ctx) {
      const data = ctx.input(0);
      const indices = ctx.input(1);
      const src = nativeElements(data);
      const idx = indexData(indices);
      // Rank and shape mismatches get the TS kernel's errors.
      if (!src || !idx || runsInTs(rule, indices.size) || indices.dims.length !== data.dims.length) return fallback.run(ctx);
      const axis = normalizeAxis(axisAttr, data.dims.length, 'GatherElements');
      if (indices.dims.some((d, i) => i !== axis && d > data.dims[i])) return fallback.run(ctx);
      const out = ctx.output(0, data.type, indices.dims, { uninitialized: true });
      withNodeErrors(node, () => gatherElements(src, data.dims, idx, indices.dims, axis, out.data as NativeElements, teamSize(binding, ctx)));
      return [out];
    },
  };
}

/** Dtypes whose storage the addon's reductions read as what they are (not float16/bfloat16 bits, not bool). */
const NATIVE_REDUCTION_TYPES = new Set(['float32', 'float64', 'int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64']);

type Reduction = Parameters<NonNullable<NativeBinding['scatterElements']>>[6];
const REDUCTIONS: readonly string[] = ['none', 'add', 'mul', 'max', 'min'] satisfies Reduction[];

function createScatterElements(
  binding: NativeBinding,
  scatterElements: NonNullable<NativeBinding['scatterElements']>,
  rule: SizeRule,
  init: KernelInit,
  fallback: Kernel,
): Kernel {
  const { node } = init;
  const axisAttr = init.attrs.int('axis', 0);
  const reduction = init.attrs.string('reduction', 'none') as Reduction;
  return {
    run(ctx) {
      const [data, indices, updates] = [ctx.input(0), ctx.input(1), ctx.input(2)];
      const src = nativeElements(data);
      const idx = indexData(indices);
      if (!src || !idx || runsInTs(rule, data.size) || (reduction !== 'none' && !NATIVE_REDUCTION_TYPES.has(data.type))) return fallback.run(ctx);
      // Mismatched dtypes, ranks and shapes, and unknown reductions, get the TS kernel's errors.
      const rank = data.dims.length;
      if (updates.type !== data.type || indices.dims.length !== rank || updates.dims.length !== rank || !REDUCTIONS.includes(reduction)) return fallback.run(ctx);
      const axis = normalizeAxis(axisAttr, rank, node.opType);
      if (indices.dims.some((d, i) => updates.dims[i] !== d || (i !== axis && d > data.dims[i]))) return fallback.run(ctx);
      const out = ctx.output(0, data.type, data.dims, { uninitialized: true });
      const args = [src, data.dims, idx, indices.dims, updates.data as NativeElements, axis, reduction, out.data as NativeElements] as const;
      withNodeErrors(node, () => scatterElements(...args, teamSize(binding, ctx)));
      return [out];
    },
  };
}

/**
 * ReverseSequence as one Gather over x's rows (x seen as [1, B·T, inner]): output row (b, t) reads row
 * (b, lens[b] − 1 − t) for t < lens[b], else its own.
 */
function createReverseSequence(binding: NativeBinding, gather: NonNullable<NativeBinding['gather']>, rule: SizeRule, init: KernelInit, fallback: Kernel): Kernel {
  const { node } = init;
  const batchAxis = init.attrs.int('batch_axis', 1);
  const timeAxis = init.attrs.int('time_axis', 0);
  return {
    run(ctx) {
      const x = ctx.input(0);
      const src = nativeElements(x);
      if (!src || x.dims.length < 2 || runsInTs(rule, x.size)) return fallback.run(ctx);
      const lens = readInts(ctx.input(1), 'ReverseSequence sequence_lens');
      const [B, T] = [x.dims[batchAxis], x.dims[timeAxis]];
      // Bad attributes, lengths and shapes get the TS kernel's errors.
      if (lens.length !== B || lens.some((l) => !(l >= 0 && l <= T)) || B * T > 0x7fffffff || batchAxis + timeAxis !== 1 || batchAxis < 0 || timeAxis < 0) {
        return fallback.run(ctx);
      }
      const rows = new Int32Array(B * T);
      // Row (b, t) of x sits at b·T + t (batch first) or t·B + b (time first).
      const rowOf = batchAxis === 0 ? (b: number, t: number) => b * T + t : (b: number, t: number) => t * B + b;
      for (let b = 0; b < B; b++) {
        for (let t = 0; t < T; t++) rows[rowOf(b, t)] = rowOf(b, t < lens[b] ? lens[b] - 1 - t : t);
      }
      const out = ctx.output(0, x.type, x.dims, { uninitialized: true });
      const inner = product(x.dims, 2);
      withNodeErrors(node, () => gather(src, rows, out.data as NativeElements, 1, B * T, inner, teamSize(binding, ctx)));
      return [out];
    },
  };
}

/** Gather, GatherElements, ScatterElements (Scatter) and ReverseSequence defs for what the loaded addon exports. */
export function nativeGatherKernels(binding: NativeBinding, smallOpsInTs = true): KernelDef[] {
  const rule: SizeRule = { smallOpsInTs, small: SMALL_MOVE_ELEMENTS };
  const defs: KernelDef[] = [];
  const gather = binding.gather?.bind(binding);
  if (gather) {
    defs.push(nativeBeside(gatherKernel, rule, { create: (init, fallback) => createGather(binding, gather, rule, init, fallback) }));
    defs.push(nativeBeside(reverseSequenceKernel, rule, { create: (init, fallback) => createReverseSequence(binding, gather, rule, init, fallback) }));
  }
  const gatherElements = binding.gatherElements?.bind(binding);
  if (gatherElements) {
    defs.push(nativeBeside(gatherElementsKernel, rule, { create: (init, fallback) => createGatherElements(binding, gatherElements, rule, init, fallback) }));
  }
  const scatterElements = binding.scatterElements?.bind(binding);
  if (scatterElements) {
    for (const ts of [scatterElementsKernel, scatterKernel]) {
      defs.push(nativeBeside(ts, rule, { create: (init, fallback) => createScatterElements(binding, scatterElements, rule, init, fallback) }));
    }
  }
  return defs;
}
