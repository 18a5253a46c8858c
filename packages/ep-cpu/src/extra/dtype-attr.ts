/** Reading an ONNX element-type number from an attribute (`dtype`, `output_datatype`) as a checked DataType. */
import { SwitchyardError, dataTypeFromOnnx, type AttributeReader, type DataType } from '@switchyard/core';

export function dtypeAttribute(attrs: AttributeReader, name: string, fallback: number, allowed: readonly DataType[], op: string): DataType {
  const num = attrs.int(name, fallback);
  const type = dataTypeFromOnnx(num);
  if (!type || !allowed.includes(type)) {
    throw new SwitchyardError('UNSUPPORTED', `${op}: ${name} ${num}${type ? ` (${type})` : ''} is not one of ${allowed.join(', ')}`);
  }
  return type;
}
