"""PyTorch eager baseline on the GPU host: the same architectures (torchvision CNNs with random
weights -- timing does not depend on weight values -- and the generator's BERT encoder) on the same
stored inputs.
    python3 bench/gpu/torch_bench.py OUT_DIR [iterations]     (run.sh stage `torch`)

Per model, case and precision:
  p50Ms / p90Ms     CUDA events around model(x), x already on the GPU (the usual framework number)
  wallCopiesP50Ms   host wall time of x.cuda() -> model -> y.cpu() (what Switchyard's session.run
                    wall time includes: host input in, host output back)
  maxAllocatedMiB / maxReservedMiB   torch's allocator peaks for that case (no CUDA context)
fp32: TF32 off (cuDNN and cuBLAS), cuDNN benchmark on. fp16: CNNs as model.half() on half inputs;
BERT under torch.autocast(float16) (its float32 attention mask cannot be mixed with .half()).
fp16-cl: the CNNs in half with channels_last weights and inputs (PyTorch's NHWC path).
Cases: those whose inputs exist (extra_cases.py writes the batch-32 ones).
"""
import json
import os
import sys
import time

import numpy as np
import torch
import torchvision

out = sys.argv[1] if len(sys.argv) > 1 else "."
iterations = int(sys.argv[2]) if len(sys.argv) > 2 else 50
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "models")
sys.path.insert(0, root)
import generate  # noqa: E402  (the BERT encoder's definition)

torch.backends.cudnn.benchmark = True
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False


def find(name, file):
    for folder in (os.path.join(root, name), os.path.join(root, "generated", name)):
        path = os.path.join(folder, file)
        if os.path.exists(path):
            return path
    return None


def image_inputs(name, case):
    path = find(name, f"{case}.in.input.npy")
    return None if path is None else [np.load(path)]


def bert_inputs(name, case):
    paths = [find(name, f"{case}.in.{n}.npy") for n in ("input_ids", "attention_mask")]
    return None if None in paths else [np.load(p) for p in paths]


def bert_on_device(model):
    """The generator's encoder builds its position ids on the CPU (fine for export and the CPU
    references); on the GPU they must be made there. Same computation as BertEncoder.forward."""

    def forward(input_ids, attention_mask):
        positions = torch.arange(input_ids.shape[1], dtype=torch.int64, device=input_ids.device).unsqueeze(0)
        x = model.embedding_norm(model.word_embeddings(input_ids) + model.position_embeddings(positions))
        mask_bias = (1.0 - attention_mask[:, None, None, :].to(torch.float32)) * -10000.0
        for layer in model.layers:
            x = layer(x, mask_bias)
        return x, torch.tanh(model.pooler(x[:, 0]))

    model.forward = forward
    return model


CASES = [
    ("squeezenet1_1", lambda: torchvision.models.squeezenet1_1(weights=None), image_inputs, ["b1", "b3"]),
    ("mobilenet_v2", lambda: torchvision.models.mobilenet_v2(weights=None), image_inputs, ["b1", "b32"]),
    ("resnet50", lambda: torchvision.models.resnet50(weights=None), image_inputs, ["b1", "b8", "b32"]),
    ("bert", lambda: bert_on_device(generate.build_bert()), bert_inputs, ["s128", "b32"]),
]


def timed(fn):
    with torch.no_grad():
        for _ in range(10):
            fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(iterations):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
    times.sort()
    return times[len(times) // 2], times[int(len(times) * 0.9)]


def wall(fn_host):
    with torch.no_grad():
        for _ in range(3):
            fn_host()
        times = []
        for _ in range(iterations):
            t = time.perf_counter()
            fn_host()
            times.append((time.perf_counter() - t) * 1000)
    times.sort()
    return times[len(times) // 2]


results = []
for name, ctor, load, cases in CASES:
    for case in cases:
        host = load(name, case)
        if host is None:
            results.append({"name": name, "case": case, "skipped": "input not present"})
            continue
        # fp16-cl: the CNNs in half with channels_last weights and inputs (PyTorch's NHWC path).
        for precision in ("fp32", "fp16") + (("fp16-cl",) if name != "bert" else ()):
            try:
                torch.cuda.empty_cache()
                torch.cuda.reset_peak_memory_stats()
                model = ctor().eval().cuda()
                is_bert = name == "bert"
                half = precision.startswith("fp16") and not is_bert
                channels_last = precision == "fp16-cl"
                if half:
                    model = model.half()
                if channels_last:
                    model = model.to(memory_format=torch.channels_last)
                dev = [torch.from_numpy(a).cuda() for a in host]
                if half:
                    dev = [t.half() for t in dev]
                if channels_last:
                    dev = [t.contiguous(memory_format=torch.channels_last) for t in dev]

                def forward(xs=dev):
                    if precision.startswith("fp16") and is_bert:
                        with torch.autocast("cuda", dtype=torch.float16):
                            return model(*xs)
                    return model(*xs)

                def host_round_trip():
                    xs = [torch.from_numpy(a).cuda() for a in host]
                    if half:
                        xs = [t.half() for t in xs]
                    if channels_last:
                        xs = [t.contiguous(memory_format=torch.channels_last) for t in xs]
                    y = forward(xs)
                    return [t.float().cpu() for t in (y if isinstance(y, tuple) else (y,))]

                p50, p90 = timed(forward)
                r = {
                    "name": name,
                    "case": case,
                    "precision": precision,
                    "p50Ms": p50,
                    "p90Ms": p90,
                    "wallCopiesP50Ms": wall(host_round_trip),
                    "maxAllocatedMiB": torch.cuda.max_memory_allocated() / 2**20,
                    "maxReservedMiB": torch.cuda.max_memory_reserved() / 2**20,
                    "torch": torch.__version__,
                }
                del model, dev
            except Exception as e:  # one failing case must not hide the others
                r = {"name": name, "case": case, "precision": precision, "error": str(e)[:500]}
            print(json.dumps(r), flush=True)
            results.append(r)
with open(os.path.join(out, "torch.json"), "w") as f:
    json.dump(results, f, indent=1)
