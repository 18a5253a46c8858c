"""Gives untrained networks a trained network's activation scale, so that a fixed tolerance
(1e-4 + 1e-3·|torch|) means for them what it means for a real model: neither loose against outputs
of std 0.1 nor unmeetable against float32 rounding of outputs in the hundreds.
"""

from typing import Callable, List

import torch
from torch import nn


def calibrate(model: nn.Module, sample: torch.Tensor, seed: int) -> None:
    """Gives every BatchNorm what training would: running statistics measured on data (one seeded
    sample batch through the network in train mode, each BatchNorm seeing the normalized output of
    the ones before it), an affine scale and shift away from the identity, and a variance off by up
    to ±40 % so that a wrong folding of it shows. With default init and made-up statistics, a deep
    network's activations shrink or grow by orders of magnitude layer by layer; measured ones keep
    them near unit scale, as in a trained network."""
    g = torch.Generator().manual_seed(seed)
    norms = [m for m in model.modules() if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d))]
    with torch.no_grad():
        for m in norms:
            c = m.num_features
            m.weight.copy_(torch.rand(c, generator=g) + 0.5)
            m.bias.copy_(torch.randn(c, generator=g) * 0.2)
            m.reset_running_stats()
            m.momentum = None  # a cumulative average: after one batch, exactly its statistics
        model.train()
        model(sample) if not isinstance(sample, tuple) else model(*sample)
        model.eval()
        for m in norms:
            m.running_var.mul_(torch.rand(m.num_features, generator=g) * 0.8 + 0.6)
            m.momentum = 0.1


def scale_output(layer: nn.Module, run: Callable[[], object], target_std: float, center: bool = False) -> None:
    """Rescales `layer` (the last before an output's activation) so its outputs over `run()` (the
    model on sample data) have `target_std`, and with `center` mean 0: untrained heads give logits of
    std 0.1 or 30 where trained ones give a few units, and against the first an absolute 1e-4 is
    loose, against the second float32 rounding is not."""
    seen: List[torch.Tensor] = []
    hook = layer.register_forward_hook(lambda _m, _i, out: seen.append(out.flatten()))
    with torch.no_grad():
        run()
        hook.remove()
        out = torch.cat(seen)
        factor = target_std / float(out.std())
        layer.weight.mul_(factor)
        layer.bias.mul_(factor)  # every head here has a bias (centring needs one)
        if center:
            layer.bias.sub_(factor * float(out.mean()))


def unit_scale(layers: List[nn.Module], run: Callable[[], object]) -> None:
    """For networks without BatchNorm: rescales each layer in turn so its output over `run()` has
    std 1, as training leaves them, rather than shrinking by default init's ~1/√3 a layer."""
    for layer in layers:
        scale_output(layer, run, 1.0)
