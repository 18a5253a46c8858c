/**
 * ScatterElements (and the deprecated Scatter, opset 9–10): a copy of data with updates written at
 * the indexed positions along `axis`, combined by `reduction` (opset 16+).
 */
import { SwitchyardError, type KernelDef } from '@switchyard/core';
import { TENSOR_TYPES, INDEX_TYPES, allocOutput, checkMovable, copyRun } from '../tensor-ops/elements.js';
import { indexReader, normalizeAxis, requireIndexTensor } from '../tensor-ops/indices.js';
import { reductionFor } from '../tensor-ops/reduction.js';
import { tensorKernel } from '../tensor-ops/define.js';
import { indexRows, resolveIndex } from './GatherElements.js';

export function scatterElementsDef(opType: string, sinceVersion: number, endVersion?: number): KernelDef {
  return tensorKernel({
    opType,
    sinceVersion,
    endVersion,
    typeConstraints: { T: TENSOR_TYPES, Tind: INDEX_TYPES },
    create({ attrs }) {
      const axisAttr = attrs.int('axis', 0);
      const reduction = attrs.string('reduction', 'none');
      return {
        run(ctx) {
          const data = ctx.input(0);
          const indices = ctx.input(1);
          const updates = ctx.input(2);
          checkMovable(data, opType);
          requireIndexTensor(indices, `${opType} indices`);
          if (updates.type !== data.type) throw new SwitchyardError('RUNTIME', `${opType}: updates are ${updates.type}, data is ${data.type}`);
          if (updates.dims.length !== indices.dims.length || updates.dims.some((d, i) => d !== indices.dims[i])) {
            throw new SwitchyardError('INVALID_SHAPE', `${opType}: updates [${updates.dims.join(', ')}] must match indices [${indices.dims.join(', ')}]`);
          }
          const axis = normalizeAxis(axisAttr, data.dims.length, opType);
          const combine = reductionFor(reduction, data.type, opType);
          const out = allocOutput(ctx, 0, data.type, data.dims);
          copyRun(data.data, 0, out.data, 0, data.size);
          const dst = out.data;
          const upd = updates.data;
          const index = indexReader(indices);
          const rows = indexRows(data, indices, axis, opType);
          const { width, axisDim, axisStride, alongRow } = rows;
          // Row-major order of indices, so a repeated position takes its updates in order.
          rows.forEachRow((row, base) => {
            const k0 = row * width;
            for (let j = 0; j < width; j++) {
              const off = base + (alongRow ? 0 : j) + resolveIndex(index(k0 + j), axisDim, opType) * axisStride;
              dst[off] = combine ? combine(dst[off], upd[k0 + j]) : upd[k0 + j];
            }
          });
          return [out];
        },
      };
    },
  });
}

export const scatterElementsKernel = scatterElementsDef('ScatterElements', 11);
