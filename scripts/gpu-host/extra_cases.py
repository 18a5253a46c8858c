"""Extra cases for the generated models, beside the generator's own (run on the GPU host after
`models/generate.py --only resnet50,bert`): batch 32 of ResNet-50, BERT and MobileNetV2, each with its
PyTorch reference. Same models (the generator's specs and seeds), same input recipes (seeded normal
images; random token ids with padding), references on the CPU in float32 like the generator's.
models.mjs picks up any `<case>.in.*.npy` it finds in the model's folder or in models/generated/<name>/.

ResNet-50's export has a symbolic batch axis, so its b32 case runs the same model.onnx. BERT and
MobileNetV2 are exported with a static batch (the generator's BERT reads its batch through x.shape in
view/reshape: with a symbolic batch the exporter writes Shape -> Gather -> Concat -> Reshape chains,
which no GPU plan can hold -- they would run on the CPU between plans): their b32 cases come with their
own static-batch export, `b32.model.onnx`, which models.mjs uses for that case.
    python3 scripts/gpu-host/extra_cases.py
"""
import os
import sys
import time

import numpy as np
import onnx
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "models"))
import generate  # noqa: E402  (models/generate.py: the specs and input recipes)

torch.set_num_threads(os.cpu_count() or 1)
specs = {s.name: s for s in generate.SPECS}
BATCH = 32


def save_case(folder, spec, case, feeds, outs):
    os.makedirs(folder, exist_ok=True)
    for n in spec.input_names:
        np.save(os.path.join(folder, f"{case}.in.{n}.npy"), np.ascontiguousarray(feeds[n]), allow_pickle=False)
    for n, t in zip(spec.output_names, outs):
        np.save(os.path.join(folder, f"{case}.out.{n}.npy"), np.ascontiguousarray(t.numpy().astype(np.float32)), allow_pickle=False)


def run_case(spec, feeds, export_to=None):
    started = time.time()
    model = spec.build().eval()
    args = tuple(torch.from_numpy(feeds[n]) for n in spec.input_names)
    with torch.no_grad():
        outs = generate.as_tuple(model(*args))
        if export_to is not None:
            # Static shapes (no dynamic_axes): the exporter folds every shape computation away.
            torch.onnx.export(model, args, export_to, opset_version=generate.OPSET, do_constant_folding=True,
                              input_names=spec.input_names, output_names=spec.output_names, export_params=True,
                              **generate.TORCHSCRIPT_EXPORTER)
            onnx.checker.check_model(export_to)
    print(f"{spec.name} b{BATCH}: {', '.join(f'{n} std {t.std():.3f}' for n, t in zip(spec.output_names, outs))}, "
          f"{time.time() - started:.1f} s", flush=True)
    return outs


def main():
    only = set(sys.argv[1].split(",")) if len(sys.argv) > 1 else {"resnet50", "bert", "mobilenet_v2"}
    if "resnet50" in only:
        spec = specs["resnet50"]
        folder = os.path.join(generate.HERE, spec.folder)
        if not os.path.exists(os.path.join(folder, "model.onnx")):
            sys.exit(f"{folder}/model.onnx is missing: run models/generate.py --only resnet50 first")
        feeds = {"input": generate.images(26, BATCH)}
        save_case(folder, spec, "b32", feeds, run_case(spec, feeds))
    if "mobilenet_v2" in only:
        spec = specs["mobilenet_v2"]
        folder = os.path.join(generate.HERE, generate.GENERATED, spec.name)  # not the committed folder
        os.makedirs(folder, exist_ok=True)
        feeds = {"input": generate.images(27, BATCH)}
        save_case(folder, spec, "b32", feeds, run_case(spec, feeds, os.path.join(folder, "b32.model.onnx")))
    if "bert" in only:
        spec = specs["bert"]
        folder = os.path.join(generate.HERE, spec.folder)
        os.makedirs(folder, exist_ok=True)
        r = generate.rng(28)
        seq = 128
        ids = r.integers(0, 30522, size=(BATCH, seq), dtype=np.int64)
        mask = np.ones((BATCH, seq), dtype=np.int64)
        for row, valid in enumerate(r.integers(16, seq + 1, size=BATCH)):
            mask[row, valid:] = 0  # padding lengths differ per row
        feeds = {"input_ids": ids, "attention_mask": mask}
        save_case(folder, spec, "b32", feeds, run_case(spec, feeds, os.path.join(folder, "b32.model.onnx")))


if __name__ == "__main__":
    main()
