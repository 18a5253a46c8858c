"""Dynamic int8 quantization of an ONNX model's convolutions, producing the graph onnxruntime's
`quantize_dynamic` produces for Conv (that package is not installed here):

- each Conv weight is quantized once, per tensor, to uint8 with a zero point (asymmetric over
  [min(0, w), max(0, w)], rounding half to even) — the weight type onnxruntime's CPU ConvInteger
  accepts;
- each Conv input is quantized at run time by DynamicQuantizeLinear (uint8, its own scale and zero
  point per tensor and run); a tensor feeding several Convs is quantized once;
- ConvInteger(x_q, w_q, x_zero_point, w_zero_point) with the Conv's attributes gives int32, which is
  Cast to float32, multiplied by x_scale·w_scale (a Mul of the two scales, itself a node since
  x_scale is known only at run time) and, where the Conv had a bias, added to the bias reshaped to
  [1, C, 1, …];
- other ops (ConvTranspose, pooling, …) stay float32, as onnxruntime's dynamic mode leaves them.

Node and tensor names follow onnxruntime's (`<x>_quantized`, `<x>_scale`, `<conv>_quant`, …) so the
file reads like one that tool wrote.
"""

from typing import Dict, List, Tuple

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

QMAX = 255  # uint8


def quantize_weight(w: np.ndarray) -> Tuple[np.ndarray, np.float32, np.uint8]:
    """Per-tensor asymmetric uint8: the range always includes 0, so 0 is exactly representable."""
    lo = min(0.0, float(w.min()))
    hi = max(0.0, float(w.max()))
    scale = np.float32((hi - lo) / QMAX) if hi > lo else np.float32(1.0)
    zero_point = np.uint8(np.clip(np.round(-lo / scale), 0, QMAX))
    q = np.clip(np.round(w / scale) + zero_point, 0, QMAX).astype(np.uint8)
    return q, scale, zero_point


def quantize_convs_dynamic(model: onnx.ModelProto) -> onnx.ModelProto:
    """Returns a copy of `model` whose Convs (with initializer weights) are dynamically quantized."""
    model = onnx.ModelProto.FromString(model.SerializeToString())
    graph = model.graph
    inits: Dict[str, TensorProto] = {t.name: t for t in graph.initializer}
    quantized_inputs: Dict[str, Tuple[str, str, str]] = {}  # float tensor → (q, scale, zero point)
    quantized_weights: Dict[str, Tuple[str, str, str]] = {}
    new_inits: List[TensorProto] = []
    nodes: List[onnx.NodeProto] = []
    replaced_weights = set()

    def quantized_input(name: str) -> Tuple[str, str, str]:
        if name not in quantized_inputs:
            q, s, zp = f"{name}_quantized", f"{name}_scale", f"{name}_zero_point"
            nodes.append(helper.make_node("DynamicQuantizeLinear", [name], [q, s, zp], name=f"{name}_QuantizeLinear"))
            quantized_inputs[name] = (q, s, zp)
        return quantized_inputs[name]

    def quantized_weight(name: str) -> Tuple[str, str, str]:
        if name not in quantized_weights:
            q, scale, zero_point = quantize_weight(numpy_helper.to_array(inits[name]))
            names = (f"{name}_quantized", f"{name}_scale", f"{name}_zero_point")
            new_inits.append(numpy_helper.from_array(q, names[0]))
            new_inits.append(numpy_helper.from_array(np.array(scale, dtype=np.float32), names[1]))
            new_inits.append(numpy_helper.from_array(np.array(zero_point, dtype=np.uint8), names[2]))
            quantized_weights[name] = names
            replaced_weights.add(name)
        return quantized_weights[name]

    for node in graph.node:
        if node.op_type != "Conv" or node.input[1] not in inits:
            nodes.append(node)
            continue
        out = node.output[0]
        base = f"{node.name}_quant" if node.name else out
        x_q, x_scale, x_zp = quantized_input(node.input[0])
        w_q, w_scale, w_zp = quantized_weight(node.input[1])
        nodes.append(helper.make_node("ConvInteger", [x_q, w_q, x_zp, w_zp], [f"{out}_output_quantized"], name=base, **{a.name: helper.get_attribute_value(a) for a in node.attribute}))
        nodes.append(helper.make_node("Cast", [f"{out}_output_quantized"], [f"{out}_output_quantized_cast_output"], name=f"{out}_output_quantized_cast", to=TensorProto.FLOAT))
        nodes.append(helper.make_node("Mul", [x_scale, w_scale], [f"{base}_scales_mul:0"], name=f"{base}_scales_mul"))
        has_bias = len(node.input) > 2 and node.input[2] != ""
        scaled = f"{out}_scaled" if has_bias else out
        nodes.append(helper.make_node("Mul", [f"{out}_output_quantized_cast_output", f"{base}_scales_mul:0"], [scaled], name=f"{base}_output_scale_mul"))
        if has_bias:
            rank = len(inits[node.input[1]].dims)
            shape_name = f"{out}_bias_reshape_shape"
            new_inits.append(numpy_helper.from_array(np.array([1, -1] + [1] * (rank - 2), dtype=np.int64), shape_name))
            nodes.append(helper.make_node("Reshape", [node.input[2], shape_name], [f"{out}_bias_reshape_output"], name=f"{base}_bias_reshape"))
            nodes.append(helper.make_node("Add", [scaled, f"{out}_bias_reshape_output"], [out], name=f"{base}_bias_add"))

    still_used = {n for node in nodes for n in node.input}
    kept = [t for t in graph.initializer if t.name not in replaced_weights or t.name in still_used]
    del graph.initializer[:]
    graph.initializer.extend(kept + new_inits)
    del graph.node[:]
    graph.node.extend(nodes)
    # The float32 Conv outputs' value_info (if any) still hold; the new tensors need none.
    onnx.checker.check_model(model)
    return model
