"""Writes `modern_encoder` and `modern_encoder_opset23`: a small model exported by torch's current
(dynamo) ONNX exporter, at its default opset and at opset 23.

The other models come from torch 1.13's TorchScript exporter at opset 17. Current tools write newer
files: torch >= 2.9 exports through torch.export by default, at opset 18 and up, with IR version 10+
and its own graph style. This model keeps two such files in the repository (committed, ~0.5 MB each) so
the tests see what a user's fresh export looks like: at the exporter's default opset (20 for torch
2.13: Gelu, LayerNormalization; RMSNorm and attention decomposed) and at opset 23, where RMSNorm
becomes RMSNormalization and scaled_dot_product_attention the Attention op. Run it with a torch >= 2.9 that has onnxscript, e.g.

    python3 -m venv /tmp/tv && /tmp/tv/bin/pip install torch onnxscript onnx
    /tmp/tv/bin/python models/modern_export.py

Architecture (a ViT-style classifier with the pieces of current LLM-era blocks): a 4×4 stride-4 patch
Conv on 3×32×32 images (64 tokens of width 64), learned positions, 2 pre-norm blocks of RMSNorm →
4-head scaled_dot_product_attention → residual, RMSNorm → Linear-GELU(tanh)-Linear → residual, a final
LayerNorm, mean over tokens, Linear to 10 logits. Seeded weights and inputs; references from torch
itself (float32, eval, no_grad), the same for both files. The manifest entries are in generate.py
(`external`).
"""
import os
import sys

import numpy as np
import onnx
import torch
from torch import nn
from torch.nn import functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
# folder → opset_version for torch.onnx.export (None: the exporter's default)
EXPORTS = {"modern_encoder": None, "modern_encoder_opset23": 23}
DIM, HEADS, LAYERS, CLASSES = 64, 4, 2, 10


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.norm1 = nn.RMSNorm(DIM, eps=1e-6)
        self.qkv = nn.Linear(DIM, 3 * DIM)
        self.proj = nn.Linear(DIM, DIM)
        self.norm2 = nn.RMSNorm(DIM, eps=1e-6)
        self.up = nn.Linear(DIM, 4 * DIM)
        self.down = nn.Linear(4 * DIM, DIM)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, _ = x.shape
        q, k, v = self.qkv(self.norm1(x)).reshape(b, t, 3, HEADS, DIM // HEADS).permute(2, 0, 3, 1, 4)
        attended = F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(b, t, DIM)
        x = x + self.proj(attended)
        return x + self.down(F.gelu(self.up(self.norm2(x)), approximate="tanh"))


class ModernEncoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.patch = nn.Conv2d(3, DIM, kernel_size=4, stride=4)
        self.positions = nn.Parameter(torch.randn(1, 64, DIM) * 0.1)
        self.blocks = nn.ModuleList(Block() for _ in range(LAYERS))
        self.norm = nn.LayerNorm(DIM)
        self.head = nn.Linear(DIM, CLASSES)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        x = self.patch(images).flatten(2).transpose(1, 2) + self.positions
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x).mean(dim=1))


def main() -> int:
    if tuple(int(p) for p in torch.__version__.split(".")[:2]) < (2, 9):
        sys.exit(f"torch {torch.__version__} has no current exporter; run with torch >= 2.9 and onnxscript (see the docstring)")
    torch.manual_seed(20261204)
    torch.set_num_threads(1)
    model = ModernEncoder().eval()
    images = np.random.default_rng(20261205).standard_normal((2, 3, 32, 32), dtype=np.float32)
    with torch.no_grad():
        logits = model(torch.from_numpy(images)).numpy()
    for name, opset in EXPORTS.items():
        folder = os.path.join(HERE, name)
        os.makedirs(folder, exist_ok=True)
        with torch.no_grad():
            program = torch.onnx.export(model, (torch.from_numpy(images),), dynamo=True, opset_version=opset, input_names=["images"], output_names=["logits"])
        program.save(os.path.join(folder, "model.onnx"))
        np.save(os.path.join(folder, "b2.in.images.npy"), images, allow_pickle=False)
        np.save(os.path.join(folder, "b2.out.logits.npy"), np.ascontiguousarray(logits, dtype=np.float32), allow_pickle=False)
        proto = onnx.load(os.path.join(folder, "model.onnx"))
        ops = sorted({n.op_type for n in proto.graph.node})
        opsets = {o.domain or "ai.onnx": o.version for o in proto.opset_import}
        print(f"{name}: torch {torch.__version__}, IR {proto.ir_version}, opsets {opsets}, {len(proto.graph.node)} nodes: {', '.join(ops)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
