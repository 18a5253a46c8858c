/**
 * SparseTensorProto → dense Tensor. The IR has no sparse tensors, so sparse initializers are densified
 * (the dense size is bounded by MAX_TENSOR_ELEMENTS like any other tensor).
 */
import { allocateData, slotsPerElement } from '../tensor/data-type.js';
import { Tensor, elementCount } from '../tensor/tensor.js';
import { SPARSE_TENSOR } from './fields.js';
import { type DecodedTensor, type TensorDecodeOptions, decodeTensorProto } from './decode-tensor.js';
import { ProtoReader, WireType, invalid } from './wire-reader.js';

export function decodeSparseTensorProto(r: ProtoReader, options: TensorDecodeOptions): DecodedTensor {
  const dims: number[] = [];
  let values: DecodedTensor | undefined;
  let indices: DecodedTensor | undefined;
  while (r.next()) {
    if (r.field === SPARSE_TENSOR.values && r.wireType === WireType.LengthDelimited) values = decodeTensorProto(r.sub(), options);
    else if (r.field === SPARSE_TENSOR.indices && r.wireType === WireType.LengthDelimited) {
      indices = decodeTensorProto(r.sub(), { ...options, where: `indices of sparse ${options.where}` });
    } else if (r.field === SPARSE_TENSOR.dims) r.repeated(WireType.Varint, () => dims.push(r.int64()));
    else r.skip();
  }
  if (!values) throw invalid(`sparse ${options.where}: no values tensor`);
  const where = `sparse tensor '${values.name}' (${options.where})`;
  let size: number;
  try {
    size = elementCount(dims, where);
  } catch (e) {
    throw invalid(e instanceof Error ? e.message : String(e));
  }
  const v = values.tensor;
  const nnz = v.dims.length === 1 ? v.dims[0] : -1;
  if (nnz < 0) throw invalid(`${where}: values must be 1-D, got [${v.dims.join(', ')}]`);
  const dense = allocateData(v.type, size);
  if (nnz > 0) {
    if (!indices || !(indices.tensor.data instanceof BigInt64Array)) throw invalid(`${where}: indices must be an int64 tensor`);
    const idx = indices.tensor.data;
    const id = indices.tensor.dims;
    const rank = dims.length;
    const linear = id.length === 1 && id[0] === nnz;
    if (!linear && !(id.length === 2 && id[0] === nnz && id[1] === rank)) {
      throw invalid(`${where}: indices of shape [${id.join(', ')}] fit neither [${nnz}] nor [${nnz}, ${rank}]`);
    }
    const slots = slotsPerElement(v.type);
    // Every TensorData (typed arrays, string[]) indexes by number; the element type is the same on both sides.
    const src: Record<number, unknown> = v.data;
    const out: Record<number, unknown> = dense;
    for (let k = 0; k < nnz; k++) {
      let at = 0;
      if (linear) at = Number(idx[k]);
      else {
        for (let a = 0; a < rank; a++) {
          const c = Number(idx[k * rank + a]);
          if (!(c >= 0 && c < dims[a])) throw invalid(`${where}: index ${c} on axis ${a} is outside [0, ${dims[a]})`);
          at = at * dims[a] + c;
        }
      }
      if (!(at >= 0 && at < size)) throw invalid(`${where}: index ${at} is outside the ${size} elements`);
      for (let s = 0; s < slots; s++) out[at * slots + s] = src[k * slots + s];
    }
  }
  return { name: values.name, tensor: new Tensor(v.type, dense, dims), docString: values.docString };
}
