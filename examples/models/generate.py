#!/usr/bin/python3
"""Writes the demo model tiny-cnn.onnx with a seeded reference input and PyTorch's output for it.

Run with Debian's interpreter (it has python3-torch, python3-onnx, python3-numpy):

    /usr/bin/python3 examples/models/generate.py

Everything is seeded, so a second run writes the same bytes. The reference output comes from
PyTorch, not from Switchyard, so it is an independent check of any execution provider.
"""

import os
import sys

import numpy as np
import onnx
import torch
from torch import nn

HERE = os.path.dirname(os.path.abspath(__file__))
MODEL_PATH = os.path.join(HERE, "tiny-cnn.onnx")
INPUT_PATH = os.path.join(HERE, "tiny-cnn.input.npy")
EXPECTED_PATH = os.path.join(HERE, "tiny-cnn.expected.npy")

OPSET = 13
INPUT_SHAPE = (1, 3, 32, 32)
NUM_CLASSES = 10
WEIGHT_SEED = 20240601
INPUT_SEED = 7
FC_WEIGHT_SCALE = 16.0


class TinyCnn(nn.Module):
    """Conv → Relu → MaxPool → Conv → Relu → GlobalAveragePool → Flatten → Gemm → Softmax."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, kernel_size=3, padding=1)
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.conv2 = nn.Conv2d(8, 16, kernel_size=3, padding=1)
        self.gap = nn.AdaptiveAvgPool2d(1)  # exported as GlobalAveragePool
        self.fc = nn.Linear(16, NUM_CLASSES)  # exported as Gemm

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(torch.relu(self.conv1(x)))
        x = torch.relu(self.conv2(x))
        x = torch.flatten(self.gap(x), 1)
        return torch.softmax(self.fc(x), dim=1)


def main() -> int:
    # One thread and deterministic algorithms: the reference output must not depend on the machine's
    # core count.
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(WEIGHT_SEED)
    model = TinyCnn().eval()
    # PyTorch's default init gives a near-uniform softmax (every class ≈ 0.1), which would hide a
    # wrong kernel; larger classifier weights spread the probabilities out.
    with torch.no_grad():
        model.fc.weight.mul_(FC_WEIGHT_SCALE)

    rng = np.random.default_rng(INPUT_SEED)
    x = rng.standard_normal(INPUT_SHAPE).astype(np.float32)
    with torch.no_grad():
        expected = model(torch.from_numpy(x)).numpy().astype(np.float32)

    torch.onnx.export(
        model,
        (torch.from_numpy(x),),
        MODEL_PATH,
        opset_version=OPSET,
        do_constant_folding=True,
        input_names=["input"],
        output_names=["probabilities"],
        export_params=True,
        verbose=False,
    )

    # The exporter is free to change; check that what it wrote is what the README promises.
    proto = onnx.load(MODEL_PATH)
    onnx.checker.check_model(proto, full_check=True)
    ops = [node.op_type for node in proto.graph.node]
    want = ["Conv", "Relu", "MaxPool", "Conv", "Relu", "GlobalAveragePool", "Flatten", "Gemm", "Softmax"]
    if ops != want:
        print(f"unexpected op sequence {ops}, wanted {want}", file=sys.stderr)
        return 1

    # np.save writes the .npy v1.0 format whenever the header fits, which it always does here.
    np.save(INPUT_PATH, np.ascontiguousarray(x), allow_pickle=False)
    np.save(EXPECTED_PATH, np.ascontiguousarray(expected), allow_pickle=False)

    size = os.path.getsize(MODEL_PATH)
    print(f"wrote {os.path.relpath(MODEL_PATH)} ({size} bytes, opset {OPSET}, torch {torch.__version__})")
    print(f"wrote {os.path.relpath(INPUT_PATH)} {x.shape} and {os.path.relpath(EXPECTED_PATH)} {expected.shape}")
    print(f"argmax class {int(expected.argmax())}, p = {float(expected.max()):.6f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
