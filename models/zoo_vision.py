"""The public model zoo, part 1: torchvision's mobile CNNs, ConvNeXt, ViT and DeepLabV3, and a
GPT-2-style decoder with a key/value cache (gpt2_decoder.py), as their real exports look: symbolic
batch, dynamic image sizes, dynamic sequence and cache lengths.

generate.py imports this module and appends `SPECS` to its own list; the helpers used here are its.
"""

from typing import Callable, Dict, List

import numpy as np
import torch
import torch.nn.functional as F
import torchvision
from torch import nn

import gpt2_decoder
from generate import Feeds, ModelSpec, images, randomize_batch_norms, rng, torchvision_model


def randomize_layer_norms(model: nn.Module, seed: int) -> None:
    """Fresh LayerNorms are identities (γ 1, β 0), which would hide a wrong scale or shift or a
    wrong normalised axis; give them seeded affine parameters as a trained network has."""
    g = torch.Generator().manual_seed(seed)
    for m in model.modules():
        if isinstance(m, nn.LayerNorm) and m.elementwise_affine:
            m.weight.copy_(torch.rand(m.weight.shape, generator=g) + 0.5)
            m.bias.copy_(torch.randn(m.bias.shape, generator=g) * 0.1)


def scale_last(module: nn.Module, kind: type, factor: float) -> None:
    """Untrained heads give logits of std 0.01–0.1, against which an absolute 1e-4 is loose;
    scaling only the last layer of `kind` brings them to a trained network's std ≈ 2."""
    last = [m for m in module.modules() if isinstance(m, kind)][-1]
    last.weight.mul_(factor)


def trained_scale_mobilenet_v3(model: nn.Module) -> None:
    """torchvision initialises both classifier Linears at std 0.01: the HardSwish between them
    would see inputs of std 0.04 (its nearly linear middle) and the logits have std 0.008.
    ×30 and ×8 put the HardSwish input near unit scale and the logits near std 2."""
    model.classifier[0].weight.mul_(30.0)
    scale_last(model.classifier, nn.Linear, 8.0)


def trained_scale_efficientnet(model: nn.Module) -> None:
    scale_last(model.classifier, nn.Linear, 30.0)


def trained_scale_convnext(model: nn.Module) -> None:
    """torchvision starts every block's layer scale at 1e-6, so an untrained ConvNeXt is its stem
    and downsamplers with near-identity blocks that would hide any error in them. Trained layer
    scales are of order 0.1–1; seeded ones in [0.1, 0.6] keep the residual stream near unit scale."""
    g = torch.Generator().manual_seed(20240632)
    randomize_layer_norms(model, 20240633)
    for m in model.modules():
        if isinstance(m, torchvision.models.convnext.CNBlock):
            m.layer_scale.copy_(torch.rand(m.layer_scale.shape, generator=g) * 0.5 + 0.1)
    scale_last(model.classifier, nn.Linear, 4.0)


class ExplicitAttention(nn.MultiheadAttention):
    """nn.MultiheadAttention that always takes its composed path (MatMul, Softmax, …). In eval mode
    under no_grad torch 1.13 takes a fused kernel, _native_multi_head_attention, which its ONNX
    exporter cannot write; the composed path is the same arithmetic and what real exports contain."""

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None, average_attn_weights=True):
        q, k, v = (t.transpose(0, 1) for t in (query, key, value))  # batch_first → [seq, batch, dim]
        out, weights = F.multi_head_attention_forward(
            q, k, v, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias,
            self.bias_k, self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, average_attn_weights=average_attn_weights,
        )
        return out.transpose(0, 1), weights


def trained_scale_vit(model: nn.Module) -> None:
    """torchvision zero-initialises ViT's head (all logits 0) and its class token; both get seeded
    values here. The query and key rows of each in-projection are ×2.5, as in BERT, so attention is
    sharp rather than near-uniform."""
    g = torch.Generator().manual_seed(20240634)
    randomize_layer_norms(model, 20240635)
    model.class_token.copy_(torch.randn(model.class_token.shape, generator=g) * 0.5)
    head = model.heads.head
    head.weight.copy_(torch.randn(head.weight.shape, generator=g) * 0.08)
    head.bias.copy_(torch.randn(head.bias.shape, generator=g) * 0.1)
    for block in model.encoder.layers:
        attention = block.self_attention
        assert type(attention) is nn.MultiheadAttention and attention.batch_first
        attention.__class__ = ExplicitAttention
        attention.in_proj_weight[: 2 * attention.embed_dim].mul_(2.5)


class SegmentationLogits(nn.Module):
    """torchvision's segmentation models return {'out': …}; the graph's one output is that tensor."""

    def __init__(self, net: nn.Module) -> None:
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)["out"]


def build_deeplab() -> nn.Module:
    torch.manual_seed(20240636)
    net = torchvision.models.segmentation.deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None, aux_loss=False)
    randomize_batch_norms(net, 20240637)
    with torch.no_grad():
        scale_last(net.classifier, nn.Conv2d, 25.0)
    return SegmentationLogits(net)


def image(seed: int, batch: int, height: int, width: int) -> np.ndarray:
    return rng(seed).standard_normal((batch, 3, height, width)).astype(np.float32)


def batch_cases(seed: int, batches: List[int]) -> Callable[[], Dict[str, Feeds]]:
    return lambda: {f"b{b}": {"input": images(seed + i, b)} for i, b in enumerate(batches)}


IMAGE_AXES = {"input": {0: "batch"}, "logits": {0: "batch"}}
SEGMENTATION_AXES = {"input": {0: "batch", 2: "height", 3: "width"}, "out": {0: "batch", 2: "height", 3: "width"}}


def classifier(name: str, factory: Callable[..., nn.Module], seed: int, adjust: Callable[[nn.Module], None], batches: List[int], what: str) -> ModelSpec:
    return ModelSpec(
        name=name,
        committed=False,
        build=torchvision_model(factory, seed, adjust),
        cases=batch_cases(seed + 100, batches),
        input_names=["input"],
        output_names=["logits"],
        dynamic_axes=IMAGE_AXES,
        description=f"torchvision {name} ({what}), 224×224, symbolic batch dim 'batch' (cases {', '.join(f'b{b}' for b in batches)})",
    )


SPECS: List[ModelSpec] = [
    classifier("mobilenet_v3_large", torchvision.models.mobilenet_v3_large, 20240622, trained_scale_mobilenet_v3, [1, 3], "HardSwish, HardSigmoid, squeeze-excitation"),
    classifier("efficientnet_b0", torchvision.models.efficientnet_b0, 20240624, trained_scale_efficientnet, [1, 2], "SiLU as Sigmoid·Mul, squeeze-excitation"),
    classifier("convnext_tiny", torchvision.models.convnext_tiny, 20240626, trained_scale_convnext, [1, 2], "7×7 depthwise Conv, channel LayerNorm between Transposes, GELU (erf), layer scale"),
    classifier("vit_b_16", torchvision.models.vit_b_16, 20240628, trained_scale_vit, [1, 2], "16×16 patch Conv, 12 layers of multi-head attention, GELU (erf), LayerNorm"),
    ModelSpec(
        name="deeplabv3_mobilenet_v3_large",
        committed=False,
        build=build_deeplab,
        cases=lambda: {"520x520": {"input": image(20240638, 1, 520, 520)}, "384x512": {"input": image(20240639, 1, 384, 512)}},
        input_names=["input"],
        output_names=["out"],
        dynamic_axes=SEGMENTATION_AXES,
        description="torchvision deeplabv3_mobilenet_v3_large (dilated MobileNetV3 backbone, ASPP with global pooling, bilinear Resize to the input size), 21 classes, dynamic batch, height and width (cases 520x520, 384x512)",
    ),
    ModelSpec(
        name="gpt2_decoder",
        committed=False,
        build=gpt2_decoder.build,
        cases=gpt2_decoder.cases,
        input_names=gpt2_decoder.INPUT_NAMES,
        output_names=gpt2_decoder.OUTPUT_NAMES,
        dynamic_axes=gpt2_decoder.DYNAMIC_AXES,
        export_example=gpt2_decoder.export_example,
        description="GPT-2-small-style decoder: 12 pre-LayerNorm layers, hidden 768, 12 heads, vocab 50257, GELU (tanh), causal mask, tied LM head, key/value cache in and out; dynamic batch, seq and past_seq (cases: prefill seq 32 past 0 b1; decode seq 1 past 64 b2, one row left-padded)",
    ),
]
