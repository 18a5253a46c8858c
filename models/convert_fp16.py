"""float32 → float16 conversion of an ONNX model, producing the graph that onnxconverter-common's
`convert_float_to_float16(model, keep_io_types=True)` produces (that package is not installed here,
and the zoo wants its exact output style, not merely a float16 model):

- every float32 initializer, Constant value and intermediate tensor becomes float16, values clamped
  into float16's range the same way (|x| below 1e-7 → ±1e-7, above 1e4 → ±1e4, 0/inf/NaN kept);
- Cast nodes to float32 become Casts to float16;
- float32 graph inputs and outputs stay float32: a Cast to float16 after each input and a Cast to
  float32 before each output, those Casts APPENDED after all other nodes — the node list is then not
  in topological order (ONNX only requires a graph to be sortable), which is how such files look;
- value_info entries are float16 where their tensors now are, plus entries for the Casts' tensors.

The converter's op block list (ops left in float32 behind Casts) holds ops the zoo's converted
models do not contain; meeting one is an error rather than a silent difference.
"""

import itertools
from typing import Dict, Iterable, Set

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

# onnxconverter-common's defaults: values the float16 copy clamps to keep sign and finiteness.
MIN_POSITIVE = 1e-7
MAX_FINITE = 1e4
# Ops that converter leaves in float32 (wrapping them in Casts); not supported here, see above.
BLOCKED_OPS = {"Resize", "Upsample", "Range", "CumSum", "Min", "Max", "TopK", "NonMaxSuppression", "RoiAlign"}


def to_float16(values: np.ndarray) -> np.ndarray:
    x = values.astype(np.float32)
    tiny = (np.abs(x) < MIN_POSITIVE) & (x != 0)
    huge = np.isfinite(x) & (np.abs(x) > MAX_FINITE)
    x = np.where(tiny, np.sign(x) * MIN_POSITIVE, x)
    x = np.where(huge, np.sign(x) * MAX_FINITE, x)
    return x.astype(np.float16)


def convert_tensor(t: TensorProto) -> None:
    if t.data_type != TensorProto.FLOAT:
        return
    converted = numpy_helper.from_array(to_float16(numpy_helper.to_array(t)), t.name)
    t.CopyFrom(converted)


def tensor_types(infos: Iterable[onnx.ValueInfoProto]) -> Iterable[onnx.TypeProto.Tensor]:
    for info in infos:
        if info.type.HasField("tensor_type"):
            yield info.type.tensor_type
        elif info.type.HasField("sequence_type") and info.type.sequence_type.elem_type.HasField("tensor_type"):
            yield info.type.sequence_type.elem_type.tensor_type


def convert_graph(graph: onnx.GraphProto, kept_float32: Set[str]) -> None:
    """Converts one graph's tensors, then its subgraphs' (If/Loop/Scan bodies)."""
    for node in graph.node:
        if node.op_type in BLOCKED_OPS:
            raise ValueError(f"convert_fp16: {node.op_type} ({node.name}) would stay float32 behind Casts in onnxconverter-common; not implemented")
        for attr in node.attribute:
            if node.op_type == "Cast" and attr.name == "to" and attr.i == TensorProto.FLOAT and node.name not in kept_float32:
                attr.i = TensorProto.FLOAT16
            if attr.type == onnx.AttributeProto.TENSOR:
                convert_tensor(attr.t)
            for t in attr.tensors:
                convert_tensor(t)
            if attr.type == onnx.AttributeProto.GRAPH:
                convert_graph(attr.g, kept_float32)
            for g in attr.graphs:
                convert_graph(g, kept_float32)
    for init in graph.initializer:
        convert_tensor(init)
    for info in itertools.chain(graph.input, graph.output, graph.value_info):
        if info.name in kept_float32:
            continue
        for tt in tensor_types([info]):
            if tt.elem_type == TensorProto.FLOAT:
                tt.elem_type = TensorProto.FLOAT16


def convert_float_to_float16(model: onnx.ModelProto) -> onnx.ModelProto:
    """keep_io_types=True's conversion of `model` (returns a new model; the argument is untouched)."""
    model = onnx.shape_inference.infer_shapes(model)  # value_info for every intermediate, to convert
    graph = model.graph
    renamed: Dict[str, str] = {}
    casts = []
    kept_float32 = set()  # the graph inputs and outputs, and the Casts that keep them float32
    for i, inp in enumerate(graph.input):
        if inp.type.tensor_type.elem_type != TensorProto.FLOAT:
            continue
        renamed[inp.name] = f"graph_input_cast_{i}"
        casts.append(helper.make_node("Cast", [inp.name], [renamed[inp.name]], name=f"graph_input_cast{i}", to=TensorProto.FLOAT16))
        info = graph.value_info.add()
        info.CopyFrom(inp)
        info.name = renamed[inp.name]
        kept_float32.add(inp.name)
    for i, out in enumerate(graph.output):
        if out.type.tensor_type.elem_type != TensorProto.FLOAT:
            continue
        renamed[out.name] = f"graph_output_cast_{i}"
        cast = helper.make_node("Cast", [renamed[out.name]], [out.name], name=f"graph_output_cast{i}", to=TensorProto.FLOAT)
        casts.append(cast)
        info = graph.value_info.add()
        info.CopyFrom(out)
        info.name = renamed[out.name]
        kept_float32.update([out.name, cast.name])
    # Producers and consumers of the kept tensors now use the float16 copies.
    for node in graph.node:
        node.input[:] = [renamed.get(n, n) for n in node.input]
        node.output[:] = [renamed.get(n, n) for n in node.output]
    graph.node.extend(casts)  # after everything else: the graph is no longer topologically sorted
    convert_graph(graph, kept_float32)
    check_sortable(model)
    return model


def check_sortable(model: onnx.ModelProto) -> None:
    """onnx.checker insists on topological order; check a copy with the input Casts moved first and
    the output Casts last, which is the order the graph can run in."""
    copy = onnx.ModelProto.FromString(model.SerializeToString())
    nodes = list(copy.graph.node)
    first = [n for n in nodes if n.name.startswith("graph_input_cast")]
    last = [n for n in nodes if n.name.startswith("graph_output_cast")]
    rest = [n for n in nodes if n not in first and n not in last]
    del copy.graph.node[:]
    copy.graph.node.extend(first + rest + last)
    onnx.checker.check_model(copy)
