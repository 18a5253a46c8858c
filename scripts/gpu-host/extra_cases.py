"""Extra cases for the generated models, beside the generator's own (run on the GPU host after
`models/generate.py --only resnet50,bert`): ResNet-50 at batch 32, with its PyTorch reference.
Same model (the generator's spec and seeds), same input recipe (seeded normal images), reference on
the CPU in float32 like the generator's. models.mjs picks up any `<case>.in.*.npy` it finds.
    python3 scripts/gpu-host/extra_cases.py
"""
import os
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "models"))
import generate  # noqa: E402  (models/generate.py: the specs and input recipes)

torch.set_num_threads(os.cpu_count() or 1)
specs = {s.name: s for s in generate.SPECS}
started = time.time()
spec = specs["resnet50"]
folder = os.path.join(generate.HERE, spec.folder)
if not os.path.exists(os.path.join(folder, "model.onnx")):
    sys.exit(f"{folder}/model.onnx is missing: run models/generate.py --only resnet50 first")
model = spec.build().eval()
x = generate.images(26, 32)
with torch.no_grad():
    y = model(torch.from_numpy(x)).numpy().astype(np.float32)
np.save(os.path.join(folder, "b32.in.input.npy"), x, allow_pickle=False)
np.save(os.path.join(folder, "b32.out.logits.npy"), y, allow_pickle=False)
print(f"resnet50 b32: logits std {y.std():.3f}, {time.time() - started:.1f} s", flush=True)
