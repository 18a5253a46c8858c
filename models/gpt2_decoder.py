"""A GPT-2-small-shaped decoder in plain torch, exported with a key/value cache as real exports are.

GPT-2's layout (pre-LayerNorm blocks, learned positions, fused QKV projection, the tanh form of
GELU, an LM head tied to the token embedding) written without the transformers package, which is
not installed here. The ONNX graph takes the cache in and gives it back as optimum's GPT-2 exports
do: `past_key_values.<i>.key|value` [batch, heads, past_seq, 64] in, `present.<i>.key|value`
[batch, heads, past_seq + seq, 64] out, so one graph serves both the prefill (past_seq 0) and each
decode step.
"""

import math
from typing import Dict, List, Tuple

import numpy as np
import torch
from torch import nn

VOCAB = 50257
HIDDEN = 768
LAYERS = 12
HEADS = 12
HEAD_DIM = HIDDEN // HEADS
MAX_POSITIONS = 1024

Feeds = Dict[str, np.ndarray]


def past_names() -> List[str]:
    return [f"past_key_values.{i}.{kv}" for i in range(LAYERS) for kv in ("key", "value")]


def present_names() -> List[str]:
    return [f"present.{i}.{kv}" for i in range(LAYERS) for kv in ("key", "value")]


INPUT_NAMES = ["input_ids", "attention_mask"] + past_names()
OUTPUT_NAMES = ["logits"] + present_names()

# optimum's dim names; 'past_seq + seq' is a dim_param that is not an identifier, as theirs are.
DYNAMIC_AXES: Dict[str, Dict[int, str]] = {
    "input_ids": {0: "batch", 1: "seq"},
    "attention_mask": {0: "batch", 1: "past_seq + seq"},
    "logits": {0: "batch", 1: "seq"},
    **{n: {0: "batch", 2: "past_seq"} for n in past_names()},
    **{n: {0: "batch", 2: "past_seq + seq"} for n in present_names()},
}


class Conv1D(nn.Module):
    """GPT-2's projection: weight stored [in, out], applied as addmm over flattened rows (Gemm in
    ONNX, between Reshapes computed from the input's Shape)."""

    def __init__(self, n_in: int, n_out: int, std: float) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_in, n_out) * std)
        self.bias = nn.Parameter(torch.randn(n_out) * 0.02)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out_shape = x.shape[:-1] + (self.weight.shape[1],)
        return torch.addmm(self.bias, x.reshape(-1, x.shape[-1]), self.weight).reshape(out_shape)


def gelu_tanh(x: torch.Tensor) -> torch.Tensor:
    """GPT-2's GELU ("gelu_new"), written out as it is there: Pow, Tanh and Muls in the graph."""
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class CausalSelfAttention(nn.Module):
    def __init__(self, proj_std: float) -> None:
        super().__init__()
        self.c_attn = Conv1D(HIDDEN, 3 * HIDDEN, 0.02)
        self.c_proj = Conv1D(HIDDEN, HIDDEN, proj_std)

    def heads(self, x: torch.Tensor) -> torch.Tensor:
        b, s, _ = x.shape
        return x.reshape(b, s, HEADS, HEAD_DIM).permute(0, 2, 1, 3)

    def forward(self, x: torch.Tensor, allowed: torch.Tensor, past_key: torch.Tensor, past_value: torch.Tensor):
        q, k, v = self.c_attn(x).split(HIDDEN, dim=2)
        key = torch.cat([past_key, self.heads(k)], dim=2)
        value = torch.cat([past_value, self.heads(v)], dim=2)
        scores = torch.matmul(self.heads(q), key.transpose(-1, -2)) / math.sqrt(HEAD_DIM)
        # GPT-2 replaces masked scores with float32's lowest value rather than adding -inf, so a
        # query with no visible key (left padding) gets a uniform row instead of NaNs.
        scores = scores.masked_fill(~allowed, torch.finfo(torch.float32).min)
        context = torch.matmul(torch.softmax(scores, dim=-1), value)
        b, _, s, _ = context.shape
        return self.c_proj(context.permute(0, 2, 1, 3).reshape(b, s, HIDDEN)), key, value


class Block(nn.Module):
    def __init__(self, proj_std: float) -> None:
        super().__init__()
        self.ln_1 = nn.LayerNorm(HIDDEN, eps=1e-5)
        self.attn = CausalSelfAttention(proj_std)
        self.ln_2 = nn.LayerNorm(HIDDEN, eps=1e-5)
        self.c_fc = Conv1D(HIDDEN, 4 * HIDDEN, 0.02)
        self.c_proj = Conv1D(4 * HIDDEN, HIDDEN, proj_std)

    def forward(self, x, allowed, past_key, past_value):
        attended, key, value = self.attn(self.ln_1(x), allowed, past_key, past_value)
        x = x + attended
        return x + self.c_proj(gelu_tanh(self.c_fc(self.ln_2(x)))), key, value


class Gpt2Decoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        # GPT-2's init scales: 0.02 everywhere, the residual projections 0.02/√(2·layers). The
        # token embedding is larger (0.08) because it is also the LM head: untrained at 0.02 the
        # logits would have std ≈ 0.5, a trained model's are several units.
        proj_std = 0.02 / math.sqrt(2 * LAYERS)
        self.wte = nn.Embedding(VOCAB, HIDDEN)
        self.wpe = nn.Embedding(MAX_POSITIONS, HIDDEN)
        nn.init.normal_(self.wte.weight, std=0.08)
        nn.init.normal_(self.wpe.weight, std=0.02)
        self.h = nn.ModuleList([Block(proj_std) for _ in range(LAYERS)])
        self.ln_f = nn.LayerNorm(HIDDEN, eps=1e-5)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, *past: torch.Tensor) -> Tuple[torch.Tensor, ...]:
        seq = input_ids.shape[1]
        past_len = past[0].shape[2]
        positions = torch.arange(past_len, past_len + seq, dtype=torch.int64).unsqueeze(0)
        x = self.wte(input_ids) + self.wpe(positions)
        # Query i (absolute position past_len + i) sees key j when j ≤ past_len + i and the mask
        # keeps j: [batch, 1, seq, past_len + seq], broadcast over heads.
        key_pos = torch.arange(past_len + seq, dtype=torch.int64).unsqueeze(0)
        query_pos = positions.transpose(0, 1)
        causal = (key_pos <= query_pos).unsqueeze(0).unsqueeze(0)
        allowed = causal & (attention_mask[:, None, None, :] != 0)
        presents: List[torch.Tensor] = []
        for i, block in enumerate(self.h):
            x, key, value = block(x, allowed, past[2 * i], past[2 * i + 1])
            presents += [key, value]
        logits = torch.matmul(self.ln_f(x), self.wte.weight.transpose(0, 1))  # tied LM head
        return (logits, *presents)


def build() -> nn.Module:
    torch.manual_seed(20240620)
    model = Gpt2Decoder()
    g = torch.Generator().manual_seed(20240621)
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.LayerNorm):  # fresh LayerNorms are identities; trained ones are not
                m.weight.copy_(torch.rand(HIDDEN, generator=g) + 0.5)
                m.bias.copy_(torch.randn(HIDDEN, generator=g) * 0.1)
        # Untrained scores have std ≈ 0.3, a near-uniform softmax; ×3 on the query and key columns
        # makes attention sharp, so a wrong mask, position or cache order shows in the output.
        for block in model.h:
            block.attn.c_attn.weight[:, : 2 * HIDDEN].mul_(3.0)
    return model


def empty_past(batch: int) -> Feeds:
    return {n: np.zeros((batch, HEADS, 0, HEAD_DIM), np.float32) for n in past_names()}


def cases() -> Dict[str, Feeds]:
    """A prefill (batch 1, 32 tokens, empty cache) and a decode step (batch 2, one token each after
    a 64-token cache; the second row was left-padded by 8 tokens, which its mask hides). The cache
    is seeded at the scale the model's own keys (std ≈ 1.6 after the ×3) and values have."""
    r = np.random.default_rng(31)
    prefill = {
        "input_ids": r.integers(0, VOCAB, size=(1, 32), dtype=np.int64),
        "attention_mask": np.ones((1, 32), np.int64),
        **empty_past(1),
    }
    mask = np.ones((2, 65), np.int64)
    mask[1, :8] = 0
    decode = {
        "input_ids": r.integers(0, VOCAB, size=(2, 1), dtype=np.int64),
        "attention_mask": mask,
        **{n: (r.standard_normal((2, HEADS, 64, HEAD_DIM)) * (1.6 if n.endswith("key") else 0.6)).astype(np.float32) for n in past_names()},
    }
    return {"prefill": prefill, "decode": decode}


def export_example() -> Feeds:
    """Traced with batch 2, seq 3, past 5 so that no dynamic dim is 0 or 1 while tracing, which the
    exporter could otherwise bake into the graph as a constant."""
    r = np.random.default_rng(32)
    return {
        "input_ids": r.integers(0, VOCAB, size=(2, 3), dtype=np.int64),
        "attention_mask": np.ones((2, 8), np.int64),
        **{n: r.standard_normal((2, HEADS, 5, HEAD_DIM)).astype(np.float32) for n in past_names()},
    }
