"""PyTorch eager baseline on the GPU host: the same architectures (torchvision, random weights:
timing does not depend on weight values) on the same stored inputs, timed with CUDA events.
    python3 scripts/gpu-host/torch_bench.py OUT_DIR [iterations]
"""
import json
import os
import sys

import numpy as np
import torch
import torchvision

out = sys.argv[1] if len(sys.argv) > 1 else "."
iterations = int(sys.argv[2]) if len(sys.argv) > 2 else 50
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models")
cases = {
    "squeezenet1_1": (torchvision.models.squeezenet1_1, ["b1", "b3"]),
    "mobilenet_v2": (torchvision.models.mobilenet_v2, ["b1"]),
    "resnet50": (torchvision.models.resnet50, ["b1", "b8"]),
}
torch.backends.cudnn.benchmark = True
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
results = []
for name, (ctor, batches) in cases.items():
    for b in batches:
        folder = os.path.join(root, name)
        path = os.path.join(folder, f"{b}.in.input.npy")
        if not os.path.exists(path):
            path = os.path.join(root, "generated", name, f"{b}.in.input.npy")
        if not os.path.exists(path):
            results.append({"name": name, "case": b, "skipped": "input not present"})
            continue
        x = torch.from_numpy(np.load(path)).cuda()
        model = ctor(weights=None).eval().cuda()
        with torch.no_grad():
            for _ in range(10):
                model(x)
            torch.cuda.synchronize()
            times = []
            for _ in range(iterations):
                start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                start.record()
                model(x)
                end.record()
                end.synchronize()
                times.append(start.elapsed_time(end))
        times.sort()
        r = {"name": name, "case": b, "p50Ms": times[len(times) // 2], "p90Ms": times[int(len(times) * 0.9)], "torch": torch.__version__}
        print(json.dumps(r), flush=True)
        results.append(r)
with open(os.path.join(out, "torch.json"), "w") as f:
    json.dump(results, f, indent=1)
