"""The zoo stage's Python half, on the GPU host: seeded inputs at batch 1 (and batch 8 where the
model's batch dim is symbolic), onnxruntime CPU outputs on them (a reference that does not take
minutes on the big models, as the CPU EP without its oneDNN addon does there), and PyTorch eager
times of the same architecture (models/generate.py's module) on the same inputs on the GPU.

    python3 scripts/gpu-host/zoo_prepare.py OUT_DIR CASES_DIR NAME[,NAME…] [iterations]

Writes CASES_DIR/<name>/<case>.in.<input>.npy, <case>.ort.<output>.npy, PyTorch's GPU outputs
<case>.torch.<output>.npy (for a float16 copy also the float32 module's, <case>.torch32.<output>.npy),
and OUT_DIR/zoo-torch.json.
The models must already be written (models/generate.py --only NAME). PyTorch: no_grad, TF32 off
(cuBLAS and cuDNN), cuDNN benchmark on; `eagerMs` is host wall time of one forward with the inputs
already on the GPU until the device is idle, `eagerGpuMs` CUDA events around it, `wallCopiesMs` host
wall time of inputs copied in, forward, outputs copied back (what a session.run with host tensors
includes). Medians of `iterations` after 5 warm-ups.
"""
import json
import os
import sys
import time
from typing import Dict, List, Optional

import numpy as np
import torch

out_dir, cases_dir, names_arg = sys.argv[1:4]
iterations = int(sys.argv[4]) if len(sys.argv) > 4 else 30
models_root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models")
sys.path.insert(0, models_root)
import generate  # noqa: E402 (its SPECS: the modules, cases and dynamic axes)

BATCH = 8
torch.backends.cudnn.benchmark = True
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False


def batch_axis(spec, name: str) -> Optional[int]:
    for axis, label in (spec.dynamic_axes.get(name) or {}).items():
        if label == "batch":
            return axis
    return None


def batched(spec, feeds: Dict[str, np.ndarray], batch: int, seed: int) -> Optional[Dict[str, np.ndarray]]:
    """The batch-1 feeds grown to `batch` rows along each input's symbolic batch axis: integer
    inputs (token ids, masks) repeated, float inputs repeated with seeded noise of their own scale so
    the rows differ. None when no input has a symbolic batch axis."""
    axes = {n: batch_axis(spec, n) for n in spec.input_names}
    if all(a is None for a in axes.values()):
        return None
    r = np.random.default_rng(seed)
    grown = {}
    for n in spec.input_names:
        a, axis = feeds[n], axes[n]
        if axis is None:
            grown[n] = a
            continue
        reps = [1] * a.ndim
        reps[axis] = batch
        t = np.tile(a, reps)
        if t.dtype == np.float32 and t.size:
            t = t + (0.1 * (np.std(a) or 1.0) * r.standard_normal(t.shape)).astype(np.float32)
        grown[n] = np.ascontiguousarray(t)
    return grown


def folder_of(spec) -> str:
    return os.path.join(models_root, spec.folder)


def ort_outputs(model_path: str, feeds: Dict[str, np.ndarray]) -> List[np.ndarray]:
    import onnxruntime as ort

    s = ort.InferenceSession(model_path, providers=["CPUExecutionProvider"])
    return s.run(None, feeds)


def run_module(model, xs) -> tuple:
    """One forward on the GPU, its outputs as a tuple. Factory calls inside it (GPT-2's torch.arange
    positions) must land on the GPU too."""
    with torch.device("cuda"):
        y = model(*xs)
    return y if isinstance(y, tuple) else (y,)


def torch_outputs(model, xs) -> List[np.ndarray]:
    """One forward's outputs as float32 arrays (a float16 module's rounded to float16 first)."""
    with torch.no_grad():
        return [t.float().cpu().numpy() for t in run_module(model, xs)]


def torch_times(spec, feeds: Dict[str, np.ndarray], save) -> Dict[str, float]:
    model = spec.build().eval().cuda()
    half = spec.conversion == "float16"  # the float16 copy: PyTorch's counterpart is model.half()
    if half:
        model = model.half()

    def to_device(a: np.ndarray) -> torch.Tensor:
        t = torch.from_numpy(a).cuda()
        return t.half() if half and t.dtype == torch.float32 else t

    host = [feeds[n] for n in spec.input_names]
    dev = [to_device(a) for a in host]
    # PyTorch's own outputs on the GPU: for the float16 copy also the float32 module's (same seeded
    # weights), the reference that tells float16 rounding from a wrong kernel.
    save("torch", torch_outputs(model, dev))
    if half:
        full = spec.build().eval().cuda()
        save("torch32", torch_outputs(full, [torch.from_numpy(a).cuda() for a in host]))
        del full

    def forward(xs):
        return run_module(model, xs)

    def median(xs: List[float]) -> float:
        xs = sorted(xs)
        return xs[len(xs) // 2]

    eager, events, copies = [], [], []
    with torch.no_grad():
        for _ in range(5):
            forward(dev)
        torch.cuda.synchronize()
        for _ in range(iterations):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            t = time.perf_counter()
            start.record()
            forward(dev)
            end.record()
            end.synchronize()
            eager.append((time.perf_counter() - t) * 1000)
            events.append(start.elapsed_time(end))
        for _ in range(iterations):
            t = time.perf_counter()
            ys = forward([to_device(a) for a in host])
            [y.float().cpu() for y in ys]
            copies.append((time.perf_counter() - t) * 1000)
    del model, dev
    torch.cuda.empty_cache()
    return {"eagerMs": median(eager), "eagerGpuMs": median(events), "wallCopiesMs": median(copies), "half": half}


def main() -> int:
    by_name = {s.name: s for s in generate.SPECS}
    results = []
    for name in [n for n in names_arg.split(",") if n]:
        spec = by_name.get(name)
        if spec is None:
            results.append({"name": name, "error": "not in models/generate.py's SPECS"})
            continue
        model_path = os.path.join(folder_of(spec), "model.onnx")
        if not os.path.exists(model_path):
            results.append({"name": name, "error": f"{model_path} not written"})
            continue
        first = next(iter(spec.cases().values()))  # every zoo model's first case has batch 1
        cases = {"b1": first}
        grown = batched(spec, first, BATCH, 8000 + len(results))
        if grown is not None:
            cases[f"b{BATCH}"] = grown
        target = os.path.join(cases_dir, name)
        os.makedirs(target, exist_ok=True)
        for case, feeds in cases.items():
            entry = {"name": name, "case": case, "shapes": {n: list(feeds[n].shape) for n in spec.input_names}}

            def save(tag, ys, case=case):
                """Outputs `ys` (in the spec's output order) as <case>.<tag>.<output>.npy, float32."""
                for n, y in zip(spec.output_names, ys):
                    np.save(os.path.join(target, f"{case}.{tag}.{n}.npy"), np.ascontiguousarray(y.astype(np.float32)), allow_pickle=False)

            try:
                for n in spec.input_names:
                    np.save(os.path.join(target, f"{case}.in.{n}.npy"), np.asarray(feeds[n], order="C"), allow_pickle=False)
                t = time.time()
                save("ort", ort_outputs(model_path, feeds))
                entry["ortCpuSeconds"] = round(time.time() - t, 2)
            except Exception as e:  # a failing reference must not hide the other models
                entry["ortError"] = str(e)[:500]
            try:
                entry.update(torch_times(spec, feeds, save))
                if spec.conversion == "int8-dynamic":
                    entry["note"] = "PyTorch has no GPU dynamic int8 Conv: the float32 module's time"
            except Exception as e:
                entry["torchError"] = str(e)[:500]
            print(json.dumps(entry), flush=True)
            results.append(entry)
    with open(os.path.join(out_dir, "zoo-torch.json"), "w") as f:
        json.dump({"torch": torch.__version__, "iterations": iterations, "results": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
