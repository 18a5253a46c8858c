/**
 * ONNX TensorScatter (opset 24): the KV-cache write. present = past with `update` written along the
 * sequence `axis` at each batch row's `write_indices` entry (0 when absent); `circular` mode wraps
 * positions modulo the cache length, `linear` mode requires them to fit.
 */
import { SwitchyardError, defineKernel, nodeLabel, type DataType } from '@switchyard/core';
import { toNumbers } from '../math/numeric.js';

/** Element types stored one (or, for complex, two) array slots per element. */
const SCATTER_TYPES: readonly DataType[] = [
  'float32', 'float16', 'bfloat16', 'float64', 'int8', 'int16', 'int32', 'int64',
  'uint8', 'uint16', 'uint32', 'uint64', 'bool', 'string', 'complex64', 'complex128',
];

type Slots = { length: number; [i: number]: unknown };
type TypedSlots = Slots & { set(src: ArrayLike<unknown>, offset?: number): void; subarray(begin: number, end: number): TypedSlots };

/** dst[to .. to+count) = src[from .. from+count): a typed-array block copy, or element by element for strings. */
function copySlots(src: Slots, from: number, dst: Slots, to: number, count: number): void {
  if (ArrayBuffer.isView(src) && ArrayBuffer.isView(dst)) {
    (dst as unknown as TypedSlots).set((src as unknown as TypedSlots).subarray(from, from + count), to);
    return;
  }
  for (let k = 0; k < count; k++) dst[to + k] = src[from + k];
}

export const tensorScatterKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'TensorScatter',
  sinceVersion: 24,
  typeConstraints: { T: SCATTER_TYPES },
  create: ({ node, attrs }) => {
    const label = `node '${nodeLabel(node)}' (TensorScatter)`;
    const mode = attrs.string('mode', 'linear');
    if (mode !== 'linear' && mode !== 'circular') throw new SwitchyardError('INVALID_ARGUMENT', `${label}: mode must be "linear" or "circular", got "${mode}"`);
    const axisAttr = attrs.int('axis', -2);
    return {
      run(ctx) {
        const past = ctx.input(0);
        const update = ctx.input(1);
        const indices = ctx.optionalInput(2);
        const rank = past.dims.length;
        const axis = axisAttr < 0 ? axisAttr + rank : axisAttr;
        if (axis < 1 || axis >= rank) throw new SwitchyardError('INVALID_ARGUMENT', `${label}: axis ${axisAttr} must name a non-batch dim of rank ${rank}`);
        if (update.type !== past.type) throw new SwitchyardError('INVALID_ARGUMENT', `${label}: update is ${update.type} but past_cache is ${past.type}`);
        const dimsOk = update.dims.length === rank && update.dims.every((d, i) => (i === axis ? d <= past.dims[i] : d === past.dims[i]));
        if (!dimsOk) {
          throw new SwitchyardError('INVALID_SHAPE', `${label}: update [${update.dims.join(', ')}] does not fit past_cache [${past.dims.join(', ')}] along axis ${axis}`);
        }
        const batch = past.dims[0];
        let writeAt: ArrayLike<number> = new Array<number>(batch).fill(0);
        if (indices) {
          if (indices.type !== 'int64' || indices.dims.length !== 1 || indices.dims[0] !== batch) {
            throw new SwitchyardError('INVALID_ARGUMENT', `${label}: write_indices must be int64 of shape [${batch}], got ${indices.type} [${indices.dims.join(', ')}]`);
          }
          writeAt = toNumbers(indices);
        }
        const maxLen = past.dims[axis];
        const seqLen = update.dims[axis];
        for (const w of Array.from(writeAt)) {
          const bad = w < 0 || (mode === 'linear' ? w + seqLen > maxLen : false);
          if (bad) throw new SwitchyardError('INVALID_ARGUMENT', `${label}: write index ${w} with ${seqLen} update rows does not fit a cache of ${maxLen} (${mode} mode)`);
        }
        const out = ctx.output(0, past.type, past.dims, { uninitialized: true });
        const src = past.data as unknown as Slots;
        const dst = out.data as unknown as Slots;
        const upd = update.data as unknown as Slots;
        const slotsPerElement = past.size === 0 ? 1 : src.length / past.size;
        const inner = past.dims.slice(axis + 1).reduce((p, d) => p * d, 1) * slotsPerElement;
        copySlots(src, 0, dst, 0, src.length);
        const prefix = past.dims.slice(0, axis).reduce((p, d) => p * d, 1);
        const perBatch = prefix / Math.max(batch, 1);
        for (let p = 0; p < prefix; p++) {
          const w = writeAt[Math.floor(p / perBatch)];
          for (let s = 0; s < seqLen; s++) {
            const row = mode === 'circular' ? (w + s) % maxLen : w + s;
            const to = (p * maxLen + row) * inner;
            const from = (p * seqLen + s) * inner;
            copySlots(upd, from, dst, to, inner);
          }
        }
        return [out];
      },
    };
  },
});
