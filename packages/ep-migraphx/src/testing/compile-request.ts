/** Test fixture: a CompileRequest for the stand-in library (native/test/fake_migraphx.c), fields overridable. */
import type { CompileRequest } from '../program/program-compiler.js';

export function compileRequest(over: Partial<CompileRequest> = {}): CompileRequest {
  return {
    name: 'p0',
    onnx: new TextEncoder().encode('onnx bytes'),
    inputShapes: new Map([['x', [2, 3]], ['i64_y', [4]]]),
    defaultDimValue: 1,
    quantization: 'none',
    calibration: [],
    target: 'ref',
    offloadCopy: true,
    exhaustiveTune: false,
    fastMath: false,
    ...over,
  };
}
