#!/usr/bin/python3
"""float16 models for the CPU EP's float16 tests and benchmark, written on demand into a folder.

    /usr/bin/python3 models/float16.py OUTDIR [NAME ...]     # default: cnn, transformer
    /usr/bin/python3 models/float16.py OUTDIR resnet18       # the benchmark's model

For each NAME it writes three files:

- `NAME.onnx`: the float32 model, exported by torch (opset 17, eval mode, seeded weights);
- `NAME_fp16.onnx`: that model converted to float16 the way onnxconverter-common's
  `convert_float_to_float16(model, keep_io_types=True)` does (see `convert`), nodes in
  topological order;
- `NAME_fp16_unsorted.onnx`: the same model with the converter's node order: the Casts it adds are
  appended after every other node, as the converter leaves them (ONNX requires topological order;
  ONNX Runtime sorts on load).

Nothing is committed: tests and the benchmark write into a temporary folder. Run with Debian's
interpreter (python3-torch 1.13, python3-torchvision 0.14, python3-onnx 1.12).
"""

import os
import sys
import warnings
from typing import Dict, Iterable, List

import numpy as np
import onnx
import torch
import torchvision
from onnx import TensorProto, helper, numpy_helper
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from generate import OPSET, TORCHSCRIPT_EXPORTER, EncoderLayer, randomize_batch_norms  # noqa: E402

# The converter's defaults: float32 values outside float16's range are clamped, not sent to ±Inf/0.
MIN_POSITIVE = 5.96e-08
MAX_FINITE = 65504.0

# Ops the converter keeps in float32 by default (its DEFAULT_OP_BLOCK_LIST, the ones torch exports):
# it wraps them in Casts to float32 and back.
BLOCKED_OPS = {"TopK", "RoiAlign", "Range", "CumSum", "Min", "Max", "Upsample", "NonMaxSuppression", "RandomUniformLike"}
# Inputs ONNX types as float32 whatever the data type (the converter leaves them float32 too).
ALWAYS_FLOAT32_INPUTS = {"Resize": [2]}


def to_float16(array: np.ndarray) -> np.ndarray:
    clamped = np.where(np.abs(array) < MIN_POSITIVE, np.where(array == 0, 0, np.sign(array) * MIN_POSITIVE), array)
    clamped = np.clip(clamped, -MAX_FINITE, MAX_FINITE)
    return clamped.astype(np.float16)


def tensor_to_float16(t: TensorProto) -> TensorProto:
    if t.data_type != TensorProto.FLOAT:
        return t
    converted = numpy_helper.from_array(to_float16(numpy_helper.to_array(t)), t.name)
    return converted


def retype(value_info: onnx.ValueInfoProto) -> None:
    tt = value_info.type.tensor_type
    if value_info.type.HasField("tensor_type") and tt.elem_type == TensorProto.FLOAT:
        tt.elem_type = TensorProto.FLOAT16


def cast(name: str, src: str, dst: str, to: int) -> onnx.NodeProto:
    return helper.make_node("Cast", [src], [dst], name=name, to=to)


def convert(model: onnx.ModelProto, sort: bool) -> onnx.ModelProto:
    """float32 → float16 in onnxconverter-common's style with keep_io_types=True: every float32
    initializer, tensor attribute and intermediate becomes float16; each float32 graph input is read
    through a Cast to float16 and each float32 graph output written by a Cast to float32; ops on the
    block list stay float32 between Casts, and inputs ONNX types as float32 (Resize's scales) stay so. The added Casts go after all other nodes (unless `sort`)."""
    model = onnx.shape_inference.infer_shapes(model)
    graph = model.graph
    added: List[onnx.NodeProto] = []
    renames: Dict[str, str] = {}
    keep = {n.input[i] for n in graph.node for i in ALWAYS_FLOAT32_INPUTS.get(n.op_type, []) if i < len(n.input)}

    for i, init in enumerate(graph.initializer):
        if init.name not in keep:
            graph.initializer[i].CopyFrom(tensor_to_float16(init))
    for vi in graph.value_info:
        if vi.name not in keep:
            retype(vi)

    for i, inp in enumerate(graph.input):
        if inp.type.tensor_type.elem_type == TensorProto.FLOAT:
            renames[inp.name] = f"graph_input_cast_{i}"
            added.append(cast(f"graph_input_cast{i}", inp.name, renames[inp.name], TensorProto.FLOAT16))
    outputs = {o.name for o in graph.output if o.type.tensor_type.elem_type == TensorProto.FLOAT}
    for i, out in enumerate(graph.output):
        if out.name in outputs:
            renames[out.name] = f"graph_output_cast_{i}"
            added.append(cast(f"graph_output_cast{i}", renames[out.name], out.name, TensorProto.FLOAT))

    for node in graph.node:
        node.input[:] = [renames.get(n, n) for n in node.input]
        node.output[:] = [renames.get(n, n) for n in node.output]
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.TENSOR and not keep.intersection(node.output):
                attr.t.CopyFrom(tensor_to_float16(attr.t))
        if node.op_type in BLOCKED_OPS:
            wrap_blocked(node, graph, added)

    graph.node.extend(added)
    if sort:
        topological_sort(graph)
    return model


def float16_values(graph: onnx.GraphProto) -> set:
    names = {vi.name for vi in graph.value_info if vi.type.tensor_type.elem_type == TensorProto.FLOAT16}
    names |= {t.name for t in graph.initializer if t.data_type == TensorProto.FLOAT16}
    return names


def wrap_blocked(node: onnx.NodeProto, graph: onnx.GraphProto, added: List[onnx.NodeProto]) -> None:
    """Keeps `node` in float32: its float16 inputs go through Casts to float32, its float16 outputs
    come out of Casts back to float16."""
    halves = float16_values(graph)
    for i, name in enumerate(node.input):
        if name in halves:
            added.append(cast(f"{node.name}_input_cast{i}", name, f"{node.name}_input_cast_{i}", TensorProto.FLOAT))
            node.input[i] = f"{node.name}_input_cast_{i}"
    for i, name in enumerate(node.output):
        if name in halves:
            added.append(cast(f"{node.name}_output_cast{i}", f"{node.name}_output_cast_{i}", name, TensorProto.FLOAT16))
            node.output[i] = f"{node.name}_output_cast_{i}"


def topological_sort(graph: onnx.GraphProto) -> None:
    """Each node after the producers of its inputs, otherwise in the given order (the converter's
    Casts move to just before their first reader; the exporter's order stays as it was). Depth-first
    with an explicit stack, so a long chain does not hit Python's recursion limit."""
    producer = {o: n for n in graph.node for o in n.output}
    done: set = set()
    visiting: set = set()
    ordered: List[onnx.NodeProto] = []
    for root in list(graph.node):
        if id(root) in done:
            continue
        visiting.add(id(root))
        stack = [(root, iter(root.input))]
        while stack:
            node, inputs = stack[-1]
            for name in inputs:
                p = producer.get(name)
                if p is None or id(p) in done:
                    continue
                if id(p) in visiting:
                    raise ValueError(f"graph has a cycle through {p.name}")
                visiting.add(id(p))
                stack.append((p, iter(p.input)))
                break
            else:
                stack.pop()
                visiting.discard(id(node))
                done.add(id(node))
                ordered.append(node)
    del graph.node[:]
    graph.node.extend(ordered)


# ---------------------------------------------------------------- models


class ConvBnRelu(nn.Sequential):
    def __init__(self, cin: int, cout: int, stride: int = 1) -> None:
        super().__init__(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU())


class TinySegmenter(nn.Module):
    """A small encoder-decoder of the kind segmentation networks are: Conv+BN+ReLU, a residual
    block, Max (which the converter keeps float32), max pooling, bilinear upsampling (Resize), a skip
    Concat, HardSwish, a 1x1 head, Sigmoid."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = ConvBnRelu(3, 16)
        self.down = ConvBnRelu(16, 32, stride=2)
        self.res = nn.Sequential(ConvBnRelu(32, 32), nn.Conv2d(32, 32, 3, 1, 1), nn.BatchNorm2d(32))
        self.pool = nn.MaxPool2d(2)
        self.mid = nn.Sequential(nn.Conv2d(32, 32, 3, 1, 1), nn.Hardswish())
        self.up = nn.Upsample(scale_factor=4, mode="bilinear", align_corners=False)
        self.fuse = ConvBnRelu(48, 16)
        self.head = nn.Conv2d(16, 2, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        s = self.stem(x)
        d = self.down(s)
        d = torch.relu(d + self.res(d))
        d = torch.maximum(d, d * 0.5 - 0.1)  # Max: on the converter's block list, kept float32
        m = self.up(self.mid(self.pool(d)))
        return torch.sigmoid(self.head(self.fuse(torch.cat([s, m], dim=1))))


class TransformerBlocks(nn.Module):
    """Two post-norm encoder layers (generate.py's BERT layer: attention, LayerNorm, GELU's erf form)
    and a mean-pooled tanh head."""

    def __init__(self, hidden: int = 64, heads: int = 4, ffn: int = 128) -> None:
        super().__init__()
        self.layers = nn.ModuleList([EncoderLayer(hidden, heads, ffn) for _ in range(2)])
        self.head = nn.Linear(hidden, 8)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        bias = (1.0 - mask[:, None, None, :]) * -10000.0
        for layer in self.layers:
            x = layer(x, bias)
        return x, torch.tanh(self.head(x.mean(dim=1)))


def build(name: str):
    """(module, example inputs, input names, output names) for a model name."""
    if name == "cnn":
        torch.manual_seed(1)
        model = TinySegmenter()
        randomize_batch_norms(model, 2)
        return model, (torch.randn(1, 3, 32, 32),), ["image"], ["mask"]
    if name == "transformer":
        torch.manual_seed(3)
        model = TransformerBlocks()
        mask = torch.ones(1, 16)
        mask[0, 12:] = 0
        return model, (torch.randn(1, 16, 64), mask), ["x", "mask"], ["hidden", "pooled"]
    if name == "resnet18":
        torch.manual_seed(5)
        model = torchvision.models.resnet18(weights=None)
        randomize_batch_norms(model, 6)
        return model, (torch.randn(1, 3, 224, 224),), ["input"], ["logits"]
    raise SystemExit(f"unknown model '{name}'; expected cnn, transformer or resnet18")


def write(outdir: str, name: str) -> None:
    model, example, inputs, outputs = build(name)
    model.eval()
    path = os.path.join(outdir, f"{name}.onnx")
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the exporter's shape-inference notes, not problems
        torch.onnx.export(model, example, path, opset_version=OPSET, do_constant_folding=True, input_names=inputs, output_names=outputs, **TORCHSCRIPT_EXPORTER)
    for sort, suffix in ((True, "_fp16"), (False, "_fp16_unsorted")):
        converted = convert(onnx.load(path), sort)
        onnx.save(converted, os.path.join(outdir, f"{name}{suffix}.onnx"))


def main(argv: Iterable[str]) -> int:
    args = list(argv)
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    outdir, names = args[0], args[1:] or ["cnn", "transformer"]
    os.makedirs(outdir, exist_ok=True)
    torch.set_num_threads(1)
    for name in names:
        write(outdir, name)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
