#!/usr/bin/python3
"""Writes real architectures as ONNX, with seeded weights, seeded inputs and PyTorch's outputs.

Run with Debian's interpreter (python3-torch 1.13, python3-torchvision 0.14, python3-onnx 1.12):

    /usr/bin/python3 models/generate.py                      # the small, committed models
    /usr/bin/python3 models/generate.py --only resnet50,bert # the large ones, into models/generated/
    /usr/bin/python3 models/generate.py --all                # everything

Each model gets a folder with `model.onnx` and, per test case, one `.npy` per input and output:
`<case>.in.<input name>.npy` and `<case>.out.<output name>.npy`. `manifest.json` lists every model
(generated or not) so tests know the files without running Python. References come from PyTorch
itself (eval mode, no_grad, float32), never from ONNX or Switchyard, so they check any EP
independently.
"""

import argparse
import hashlib
import inspect
import json
import math
import os
import shutil
import sys
import warnings
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Tuple

import numpy as np
import onnx
import torch
import torchvision
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
# Model modules (zoo_vision.py, …) import this file's helpers as `generate`; run as a script, this
# file must be that module rather than a second copy of it.
sys.modules.setdefault("generate", sys.modules[__name__])
GENERATED = "generated"  # folder under models/ for large models; git-ignored
# The highest opset torch 1.13's exporter supports; it exports LayerNorm as LayerNormalization.
OPSET = 17

Feeds = Dict[str, np.ndarray]

# torch >= 2.9 exports through torch.export (dynamo) by default, which writes another graph style
# (other op choices, no dynamic_axes names as given here). Ask for the TorchScript exporter where the
# argument exists; torch 1.13 has only that exporter and no such argument.
TORCHSCRIPT_EXPORTER = {"dynamo": False} if "dynamo" in inspect.signature(torch.onnx.export).parameters else {}


@dataclass
class ModelSpec:
    name: str
    committed: bool
    build: Callable[[], nn.Module]
    # case name → seeded inputs, in the order forward() takes them
    cases: Callable[[], Dict[str, Feeds]]
    input_names: List[str]
    output_names: List[str]
    dynamic_axes: Dict[str, Dict[int, str]] = field(default_factory=dict)
    description: str = ""
    # Inputs to trace the export with, when the first case's would pin a dynamic dim (a 0 or 1).
    export_example: Optional[Callable[[], Feeds]] = None
    # A converted copy (float16, int8): the exported float32 graph goes through `convert` before it
    # is written; its references stay torch's float32 outputs, which it only approximates, and the
    # manifest says so with `conversion` (the test then compares it with onnxruntime too).
    convert: Optional[Callable[[onnx.ModelProto], onnx.ModelProto]] = None
    conversion: str = ""
    # Written by another script (named here), not by generate(): a model that needs another torch
    # than this interpreter's (modern_export.py: torch >= 2.9's dynamo exporter). Listed in the
    # manifest with `exporter`; generate() refuses it and names the script.
    external: str = ""
    exporter: str = ""

    @property
    def folder(self) -> str:
        return self.name if self.committed else os.path.join(GENERATED, self.name)


def rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def images(seed: int, batch: int, size: int = 224) -> np.ndarray:
    return rng(seed).standard_normal((batch, 3, size, size)).astype(np.float32)


def randomize_batch_norms(model: nn.Module, seed: int) -> None:
    """Fresh BatchNorms are identities in eval mode (mean 0, var 1, γ 1, β 0), which would hide a
    wrong folding of them; give them seeded statistics of the size a trained network has."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                c = m.num_features
                m.running_mean.copy_(torch.randn(c, generator=g) * 0.1)
                m.running_var.copy_(torch.rand(c, generator=g) + 0.5)
                m.weight.copy_(torch.rand(c, generator=g) + 0.5)
                m.bias.copy_(torch.randn(c, generator=g) * 0.1)


def torchvision_model(factory: Callable[..., nn.Module], seed: int, adjust: Callable[[nn.Module], None] = lambda m: None) -> Callable[[], nn.Module]:
    def build() -> nn.Module:
        torch.manual_seed(seed)
        model = factory(weights=None)
        randomize_batch_norms(model, seed + 1)
        with torch.no_grad():
            adjust(model)
        return model

    return build


def damp_residual_branches(model: nn.Module) -> None:
    """Untrained, every ResNet bottleneck adds a unit-scale branch to the residual stream, which
    grows to std ≈ 400 and logits of ±1000; then float32 rounding alone (in PyTorch as much as in
    any EP) exceeds an absolute 1e-4 on the logits that cancel to near zero. Trained ResNets have
    small last-BatchNorm scales in each block (the reason for torchvision's zero_init_residual);
    scaling them by 0.2 keeps the stream near unit scale, as in a trained network."""
    for m in model.modules():
        if isinstance(m, torchvision.models.resnet.Bottleneck):
            m.bn3.weight.mul_(0.2)
            m.bn3.bias.mul_(0.2)


def sharpen_classifier(factor: float) -> Callable[[nn.Module], None]:
    """Untrained classifiers give logits of std 0.07 (MobileNet) to 0.2 (ResNet), against which an
    absolute tolerance of 1e-4 is loose; scaling the final Linear brings them to a trained
    network's scale (std ≈ 2)."""

    def adjust(model: nn.Module) -> None:
        for m in model.modules():
            if isinstance(m, nn.Linear):
                m.weight.mul_(factor)

    return adjust


def trained_scale_resnet(model: nn.Module) -> None:
    damp_residual_branches(model)
    sharpen_classifier(10.0)(model)


# ---------------------------------------------------------------- BERT-base-style encoder


class SelfAttention(nn.Module):
    def __init__(self, hidden: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.head_dim = hidden // heads
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)
        self.value = nn.Linear(hidden, hidden)
        self.output = nn.Linear(hidden, hidden)

    def split(self, x: torch.Tensor) -> torch.Tensor:
        b, s, _ = x.shape
        return x.view(b, s, self.heads, self.head_dim).transpose(1, 2)

    def forward(self, x: torch.Tensor, mask_bias: torch.Tensor) -> torch.Tensor:
        q, k, v = self.split(self.query(x)), self.split(self.key(x)), self.split(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim) + mask_bias
        context = torch.matmul(torch.softmax(scores, dim=-1), v)
        b, _, s, _ = context.shape
        return self.output(context.transpose(1, 2).reshape(b, s, self.heads * self.head_dim))


class EncoderLayer(nn.Module):
    def __init__(self, hidden: int, heads: int, ffn: int) -> None:
        super().__init__()
        self.attention = SelfAttention(hidden, heads)
        self.attention_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.intermediate = nn.Linear(hidden, ffn)
        self.gelu = nn.GELU()  # the erf form; exported as Div, Erf, Add, Mul, Mul
        self.ffn_output = nn.Linear(ffn, hidden)
        self.output_norm = nn.LayerNorm(hidden, eps=1e-12)

    def forward(self, x: torch.Tensor, mask_bias: torch.Tensor) -> torch.Tensor:
        x = self.attention_norm(x + self.attention(x, mask_bias))
        return self.output_norm(x + self.ffn_output(self.gelu(self.intermediate(x))))


class BertEncoder(nn.Module):
    """BERT-base's shape (post-norm, learned positions) in plain torch: there is no transformers
    package here, and plain modules export without the tracing detours transformers takes."""

    def __init__(self, vocab: int = 30522, hidden: int = 768, layers: int = 12, heads: int = 12, ffn: int = 3072, max_positions: int = 512) -> None:
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab, hidden)
        self.position_embeddings = nn.Embedding(max_positions, hidden)
        self.embedding_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.layers = nn.ModuleList([EncoderLayer(hidden, heads, ffn) for _ in range(layers)])
        self.pooler = nn.Linear(hidden, hidden)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        positions = torch.arange(input_ids.shape[1], dtype=torch.int64).unsqueeze(0)
        x = self.embedding_norm(self.word_embeddings(input_ids) + self.position_embeddings(positions))
        # [batch, seq] of 1 (attend) / 0 (padding) → an additive bias broadcast over heads and queries.
        mask_bias = (1.0 - attention_mask[:, None, None, :].to(torch.float32)) * -10000.0
        for layer in self.layers:
            x = layer(x, mask_bias)
        return x, torch.tanh(self.pooler(x[:, 0]))


def build_bert() -> nn.Module:
    torch.manual_seed(20240611)
    model = BertEncoder()
    # Default init gives attention scores of std ≈ 0.3, a near-uniform softmax; sharper scores make
    # a wrong mask, scale or softmax axis show in the output.
    with torch.no_grad():
        for layer in model.layers:
            layer.attention.query.weight.mul_(2.5)
            layer.attention.key.weight.mul_(2.5)
    return model


def bert_cases() -> Dict[str, Feeds]:
    r = rng(11)
    seq = 128
    ids = r.integers(0, 30522, size=(1, seq), dtype=np.int64)
    mask = np.ones((1, seq), dtype=np.int64)
    mask[:, 100:] = 0  # the last 28 tokens are padding
    return {"s128": {"input_ids": ids, "attention_mask": mask}}


# ---------------------------------------------------------------- LSTM


class TwoLayerLstm(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lstm = nn.LSTM(input_size=64, hidden_size=128, num_layers=2)

    def forward(self, x: torch.Tensor, h0: torch.Tensor, c0: torch.Tensor):
        y, (h, c) = self.lstm(x, (h0, c0))
        return y, h, c


def build_lstm() -> nn.Module:
    torch.manual_seed(20240612)
    model = TwoLayerLstm()
    # Default init (±1/√128) keeps every gate near 0.5; larger weights drive the sigmoids and tanhs
    # into their curved and saturated ranges.
    with torch.no_grad():
        for p in model.parameters():
            p.mul_(3.0)
    return model


def lstm_cases() -> Dict[str, Feeds]:
    r = rng(12)
    return {
        "s32": {
            "input": r.standard_normal((32, 1, 64)).astype(np.float32),
            "h0": (0.5 * r.standard_normal((2, 1, 128))).astype(np.float32),
            "c0": (0.5 * r.standard_normal((2, 1, 128))).astype(np.float32),
        }
    }


# ---------------------------------------------------------------- the list

IMAGE_AXES = {"input": {0: "batch"}, "logits": {0: "batch"}}

SPECS: List[ModelSpec] = [
    ModelSpec(
        name="squeezenet1_1",
        committed=True,
        build=torchvision_model(torchvision.models.squeezenet1_1, 20240613),
        cases=lambda: {"b1": {"input": images(21, 1)}, "b3": {"input": images(22, 3)}},
        input_names=["input"],
        output_names=["logits"],
        dynamic_axes=IMAGE_AXES,
        description="torchvision squeezenet1_1, 224×224, symbolic batch dim 'batch' (cases b1, b3)",
    ),
    ModelSpec(
        name="mobilenet_v2",
        committed=True,
        build=torchvision_model(torchvision.models.mobilenet_v2, 20240614, sharpen_classifier(30.0)),
        cases=lambda: {"b1": {"input": images(23, 1)}},
        input_names=["input"],
        output_names=["logits"],
        description="torchvision mobilenet_v2, 224×224, static batch 1",
    ),
    ModelSpec(
        name="lstm2",
        committed=True,
        build=build_lstm,
        cases=lstm_cases,
        input_names=["input", "h0", "c0"],
        output_names=["output", "h_n", "c_n"],
        description="nn.LSTM(64→128, 2 layers), seq 32, batch 1, initial states as inputs; exported as two ONNX LSTM ops",
    ),
    ModelSpec(
        name="resnet50",
        committed=False,
        build=torchvision_model(torchvision.models.resnet50, 20240615, trained_scale_resnet),
        cases=lambda: {"b1": {"input": images(24, 1)}, "b8": {"input": images(25, 8)}},
        input_names=["input"],
        output_names=["logits"],
        dynamic_axes=IMAGE_AXES,
        description="torchvision resnet50, 224×224, symbolic batch dim 'batch' (cases b1, b8)",
    ),
    ModelSpec(
        name="bert",
        committed=False,
        build=build_bert,
        cases=bert_cases,
        input_names=["input_ids", "attention_mask"],
        output_names=["last_hidden_state", "pooler_output"],
        description="BERT-base-style encoder: 12 layers, hidden 768, 12 heads, FFN 3072, GELU (erf), seq 128, batch 1, 28 padded tokens",
    ),
]

import zoo_vision  # noqa: E402 -- it uses the helpers above
import zoo_custom  # noqa: E402 -- likewise

SPECS += zoo_vision.SPECS + zoo_custom.SPECS


def modern_export_spec(name: str, opset_note: str) -> ModelSpec:
    return ModelSpec(
        name=name,
        committed=True,
        build=lambda: None,  # never called: external
        cases=lambda: {"b2": {}},
        input_names=["images"],
        output_names=["logits"],
        description=f"ViT-style encoder (RMSNorm, SDPA attention, GELU tanh) exported by torch 2.13's dynamo exporter, {opset_note}, IR 10; images [2, 3, 32, 32]",
        external="modern_export.py",
        exporter="torch 2.13 dynamo",
    )


SPECS += [
    modern_export_spec("modern_encoder", "its default opset 20 (Gelu, LayerNormalization)"),
    modern_export_spec("modern_encoder_opset23", "opset 23 (Attention, RMSNormalization)"),
]


def case_files(spec: ModelSpec, case: str) -> Dict[str, Dict[str, str]]:
    return {
        "inputs": {n: f"{case}.in.{n}.npy" for n in spec.input_names},
        "outputs": {n: f"{case}.out.{n}.npy" for n in spec.output_names},
    }


def write_manifest() -> None:
    """Static data about every model, so a test can find (or ask for) files without Python."""
    models = []
    for spec in SPECS:
        models.append(
            {
                "name": spec.name,
                "description": spec.description,
                "committed": spec.committed,
                "folder": spec.folder.replace(os.sep, "/"),
                "model": "model.onnx",
                "cases": {case: case_files(spec, case) for case in spec.cases()},
                **({"conversion": spec.conversion} if spec.conversion else {}),
                **({"exporter": spec.exporter} if spec.exporter else {}),
            }
        )
    text = json.dumps({"opset": OPSET, "torch": torch.__version__, "models": models}, indent=2, ensure_ascii=False) + "\n"
    with open(os.path.join(HERE, "manifest.json"), "w", encoding="utf-8") as f:
        f.write(text)


def as_tuple(out) -> Tuple[torch.Tensor, ...]:
    return out if isinstance(out, tuple) else (out,)


def generate(spec: ModelSpec) -> None:
    if spec.external:
        raise SystemExit(f"{spec.name} is written by models/{spec.external} (see its docstring), not by generate.py")
    started = time.time()
    folder = os.path.join(HERE, spec.folder)
    # Everything is written to a scratch folder and moved in at the end, model.onnx last: an
    # interrupted run never leaves a truncated file that a test would take for a finished one. The
    # folder is per process, so two test runs generating at once do not trip over each other; each
    # file's os.replace is atomic and both write the same bytes.
    scratch = f"{folder}.partial-{os.getpid()}"
    os.makedirs(scratch)
    model = spec.build().eval()
    cases = spec.cases()

    for case, feeds in cases.items():
        args = tuple(torch.from_numpy(feeds[n]) for n in spec.input_names)
        with torch.no_grad():
            outs = as_tuple(model(*args))
        files = case_files(spec, case)
        for n in spec.input_names:
            # np.asarray, not np.ascontiguousarray: the latter turns a scalar input (shape []) into [1].
            np.save(os.path.join(scratch, files["inputs"][n]), np.asarray(feeds[n], order="C"), allow_pickle=False)
        for n, t in zip(spec.output_names, outs):
            np.save(os.path.join(scratch, files["outputs"][n]), np.ascontiguousarray(t.numpy().astype(np.float32)), allow_pickle=False)

    first = spec.export_example() if spec.export_example else next(iter(cases.values()))
    with torch.no_grad():
        torch.onnx.export(
            model,
            tuple(torch.from_numpy(first[n]) for n in spec.input_names),
            os.path.join(scratch, "model.onnx"),
            opset_version=OPSET,
            do_constant_folding=True,
            input_names=spec.input_names,
            output_names=spec.output_names,
            dynamic_axes=spec.dynamic_axes or None,
            export_params=True,
            **TORCHSCRIPT_EXPORTER,
        )
    proto = onnx.load(os.path.join(scratch, "model.onnx"))
    onnx.checker.check_model(proto)
    if spec.convert:  # checked by the converter: onnx.checker rejects a float16 copy's node order
        proto = spec.convert(proto)
        onnx.save(proto, os.path.join(scratch, "model.onnx"))

    os.makedirs(folder, exist_ok=True)
    names = sorted(os.listdir(scratch), key=lambda n: n == "model.onnx")
    for name in names:
        os.replace(os.path.join(scratch, name), os.path.join(folder, name))
    shutil.rmtree(scratch)

    model_path = os.path.join(folder, "model.onnx")
    ops: Dict[str, int] = {}
    for node in proto.graph.node:
        ops[node.op_type] = ops.get(node.op_type, 0) + 1
    with open(model_path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:16]
    size = os.path.getsize(model_path)
    print(f"{spec.name}: {size / 1e6:.1f} MB, {len(proto.graph.node)} nodes, sha256 {digest}, {time.time() - started:.1f} s", flush=True)
    print(f"  ops: {', '.join(f'{k}×{v}' for k, v in sorted(ops.items()))}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", help="comma-separated model names: " + ", ".join(s.name for s in SPECS))
    parser.add_argument("--all", action="store_true", help="the large models too")
    args = parser.parse_args()
    by_name = {s.name: s for s in SPECS}
    if args.only:
        names = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in names if n not in by_name]
        if unknown:
            parser.error(f"unknown model(s) {', '.join(unknown)}; known: {', '.join(by_name)}")
        chosen = [by_name[n] for n in names]
    else:
        chosen = [s for s in SPECS if (args.all or s.committed) and not s.external]

    # Known, harmless exporter notes: the LSTM's initial states are inputs (the batch-size warning's
    # own advice), and prim::Constant shape inference only affects value_info, which is optional.
    warnings.filterwarnings("ignore", message=".*batch_size other than 1.*")
    warnings.filterwarnings("ignore", message=".*shape inference of prim::Constant.*")
    # One thread and deterministic algorithms: the references must not depend on the machine.
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    write_manifest()
    for spec in chosen:
        generate(spec)
    return 0


if __name__ == "__main__":
    sys.exit(main())
