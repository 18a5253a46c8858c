"""The public model zoo, part 2: architectures written here in plain torch, shaped like public
models that run on CPUs: a DB text detector and a CRNN recogniser (the two halves of an OCR
pipeline), a streaming voice activity detector with its state as inputs and outputs and an ONNX `If`
on the sample rate, and a 1024×1024 UNet segmenter, plus its float16 copy (float16.py's converter,
in onnxconverter-common's node order) and its dynamically int8-quantized one (quantize_dynamic.py).

generate.py imports this module and appends `SPECS` to its own list; the helpers used here are its.

Every model is untrained but given a trained network's activation scale (trained_scale.py), so the
tests' tolerance of 1e-4 + 1e-3·|torch| means what it means for a real model.
"""

import math
from typing import Callable, Dict, List, Tuple

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from torch import nn

import float16
import quantize_dynamic
from generate import Feeds, ModelSpec, rng
from trained_scale import calibrate, scale_output, unit_scale


def images(seed: int, batch: int, height: int, width: int) -> np.ndarray:
    return rng(seed).standard_normal((batch, 3, height, width)).astype(np.float32)


def conv_bn(cin: int, cout: int, k: int = 3, stride: int = 1, groups: int = 1, act: Callable[[], nn.Module] = nn.ReLU) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False), nn.BatchNorm2d(cout), act())


# ---------------------------------------------------------------- DB text detector


class SqueezeExcite(nn.Module):
    def __init__(self, c: int) -> None:
        super().__init__()
        mid = max(8, c // 4)
        self.reduce = nn.Conv2d(c, mid, 1)
        self.expand = nn.Conv2d(mid, c, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        s = F.adaptive_avg_pool2d(x, 1)
        return x * F.hardsigmoid(self.expand(F.relu(self.reduce(s))))


class InvertedResidual(nn.Module):
    """MobileNetV3's block: 1×1 expansion, depthwise k×k, optional squeeze-excite, 1×1 projection,
    a residual where the shape allows."""

    def __init__(self, cin: int, k: int, expand: int, cout: int, se: bool, act: Callable[[], nn.Module], stride: int) -> None:
        super().__init__()
        layers: List[nn.Module] = [] if expand == cin else [conv_bn(cin, expand, 1, act=act)]
        layers.append(conv_bn(expand, expand, k, stride, groups=expand, act=act))
        if se:
            layers.append(SqueezeExcite(expand))
        layers += [nn.Conv2d(expand, cout, 1, bias=False), nn.BatchNorm2d(cout)]
        self.body = nn.Sequential(*layers)
        self.residual = stride == 1 and cin == cout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.body(x)
        return x + y if self.residual else y


RE, HS = nn.ReLU, nn.Hardswish
# (kernel, expansion, out, squeeze-excite, activation, stride), grouped by output stride 4, 8, 16, 32:
# MobileNetV3-large's pattern at roughly half its width, as OCR detectors' mobile backbones are.
DB_STAGES = [
    [(3, 16, 16, False, RE, 1), (3, 64, 24, False, RE, 2), (3, 72, 24, False, RE, 1)],
    [(5, 72, 40, True, RE, 2), (5, 120, 40, True, RE, 1)],
    [(3, 240, 80, False, HS, 2), (3, 200, 80, False, HS, 1), (3, 480, 112, True, HS, 1)],
    [(5, 672, 160, True, HS, 2), (5, 480, 160, True, HS, 1)],
]


def upsample(x: torch.Tensor, factor: int) -> torch.Tensor:
    return F.interpolate(x, scale_factor=factor, mode="nearest")  # exported as Resize with scales


class DbTextDetector(nn.Module):
    """DB (differentiable binarization) at inference: a MobileNetV3-like backbone, an FPN whose four
    levels are upsampled to stride 4 and concatenated, and the probability head (two k2 s2
    transposed convolutions back to full resolution, Sigmoid)."""

    def __init__(self, inner: int = 96) -> None:
        super().__init__()
        self.stem = conv_bn(3, 16, 3, 2, act=HS)
        stages, cin, widths = [], 16, []
        for stage in DB_STAGES:
            blocks = []
            for k, e, cout, se, act, s in stage:
                blocks.append(InvertedResidual(cin, k, e, cout, se, act, s))
                cin = cout
            stages.append(nn.Sequential(*blocks))
            widths.append(cin)
        stages[-1].append(conv_bn(cin, 480, 1, act=HS))
        widths[-1] = 480
        self.stages = nn.ModuleList(stages)
        self.laterals = nn.ModuleList([nn.Conv2d(w, inner, 1, bias=False) for w in widths])
        self.smooth = nn.ModuleList([nn.Conv2d(inner, inner // 4, 3, padding=1, bias=False) for _ in widths])
        self.head = nn.Sequential(
            conv_bn(inner, inner // 4, 3),
            nn.ConvTranspose2d(inner // 4, inner // 4, 2, 2),
            nn.BatchNorm2d(inner // 4),
            nn.ReLU(),
            nn.ConvTranspose2d(inner // 4, 1, 2, 2),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        features = []
        x = self.stem(x)
        for stage in self.stages:
            x = stage(x)
            features.append(x)
        c2, c3, c4, c5 = [lat(f) for lat, f in zip(self.laterals, features)]
        p4 = c4 + upsample(c5, 2)
        p3 = c3 + upsample(p4, 2)
        p2 = c2 + upsample(p3, 2)
        levels = [s(p) for s, p in zip(self.smooth, (p2, p3, p4, c5))]
        fused = torch.cat([upsample(levels[3], 8), upsample(levels[2], 4), upsample(levels[1], 2), levels[0]], dim=1)
        return torch.sigmoid(self.head(fused))


def build_db() -> nn.Module:
    torch.manual_seed(20240620)
    model = DbTextDetector()
    sample = torch.from_numpy(images(120, 2, 320, 320))
    calibrate(model, sample, 20240621)
    # Trained DB maps are mostly background with confident text regions: logits of std ≈ 3.
    scale_output(model.head[-1], lambda: model(sample), 3.0)
    return model


# ---------------------------------------------------------------- CRNN recogniser


class CrnnRecognizer(nn.Module):
    """A CRNN line recogniser: convolutions that pool height away (48 → 1) and width by 4, the
    columns as a sequence, a two-layer bidirectional LSTM, per-step class probabilities (a CTC
    decoder's input)."""

    def __init__(self, classes: int = 97, hidden: int = 96) -> None:
        super().__init__()
        self.features = nn.Sequential(
            conv_bn(3, 32),
            nn.MaxPool2d(2),  # 24 × W/2
            conv_bn(32, 64),
            nn.MaxPool2d(2),  # 12 × W/4
            conv_bn(64, 96, act=HS),
            conv_bn(96, 96, act=HS),
            nn.MaxPool2d((2, 1)),  # 6 × W/4
            conv_bn(96, 160, act=HS),
            nn.MaxPool2d((2, 1)),  # 3 × W/4
            conv_bn(160, 192, act=HS),
            nn.MaxPool2d((3, 1)),  # 1 × W/4: height collapsed
        )
        self.rnn = nn.LSTM(192, hidden, num_layers=2, bidirectional=True)
        self.classifier = nn.Linear(2 * hidden, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        f = self.features(x).squeeze(2)  # [batch, 192, T]
        seq, _ = self.rnn(f.permute(2, 0, 1))  # [T, batch, 2·hidden]
        return torch.softmax(self.classifier(seq), dim=-1).permute(1, 0, 2)  # [batch, T, classes]


def build_crnn() -> nn.Module:
    torch.manual_seed(20240622)
    model = CrnnRecognizer()
    sample = torch.from_numpy(images(122, 2, 48, 160))
    calibrate(model, sample, 20240623)
    with torch.no_grad():
        # Default LSTM init (±1/√96) keeps every gate near 0.5; trained ones are decisive.
        for p in model.rnn.parameters():
            p.mul_(3.0)
    # Peaked per-step distributions, as CTC training makes them: logits of std ≈ 4.
    scale_output(model.classifier, lambda: model(sample), 4.0)
    return model


# ---------------------------------------------------------------- streaming VAD

CHUNK = 512
N_FFT = 256
BINS = N_FFT // 2 + 1
PAD = 64  # reflection padding on the right, so the last window reaches past the chunk's end
VAD_HIDDEN = 64
VAD_INPUTS = ["input", "sr", "h", "c"]


@torch.jit.script
def spectrum(x: torch.Tensor, sr: torch.Tensor, basis: torch.Tensor) -> torch.Tensor:
    """|STFT| of a chunk as a strided Conv1d with a fixed windowed-DFT basis. Scripted so the
    exporter writes the sample-rate test as an ONNX If: 256-sample windows hop 128 samples at
    16 kHz (3 frames a chunk) and 64 at 8 kHz (6 frames), 8 ms either way. The numbers are PAD,
    BINS and the hops written out: TorchScript compiles them as constants."""
    x = F.pad(x.unsqueeze(1), [0, 64], mode="reflect")
    if bool(sr == 16000):
        y = F.conv1d(x, basis, stride=128)
    else:
        y = F.conv1d(x, basis, stride=64)
    re = y[:, :129]
    im = y[:, 129:]
    return torch.sqrt(re * re + im * im)


def dft_basis() -> torch.Tensor:
    """[2·BINS, 1, N_FFT]: Hann-windowed cosines, then negated sines; float64 then rounded once."""
    n = torch.arange(N_FFT, dtype=torch.float64)
    k = torch.arange(BINS, dtype=torch.float64)[:, None]
    window = 0.5 - 0.5 * torch.cos(2 * math.pi * n / N_FFT)
    angle = 2 * math.pi * k * n / N_FFT
    return torch.cat([torch.cos(angle) * window, -torch.sin(angle) * window]).to(torch.float32)[:, None, :]


class StreamingVad(nn.Module):
    """Silero-VAD-like: a 512-sample chunk → |STFT| → Conv1d+ReLU encoder → mean over frames → a
    two-layer LSTM whose (h, c) come in and go out (the caller carries them chunk to chunk) →
    Linear + Sigmoid speech probability."""

    def __init__(self, hidden: int = 64) -> None:
        super().__init__()
        self.register_buffer("basis", dft_basis())
        self.encoder = nn.Sequential(
            nn.Conv1d(BINS, 128, 3, padding=1),
            nn.ReLU(),
            nn.Conv1d(128, 64, 3, stride=2, padding=1),
            nn.ReLU(),
            nn.Conv1d(64, 64, 3, padding=1),
            nn.ReLU(),
            nn.Conv1d(64, 128, 3, padding=1),
            nn.ReLU(),
        )
        self.lstm = nn.LSTM(128, hidden, num_layers=2)
        self.head = nn.Linear(hidden, 1)

    def forward(self, x: torch.Tensor, sr: torch.Tensor, h: torch.Tensor, c: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        # log1p compresses the spectrum's range as a mel/log front end does.
        features = self.encoder(torch.log1p(spectrum(x, sr, self.basis))).mean(dim=2)
        y, (h, c) = self.lstm(features.unsqueeze(0), (h, c))
        return torch.sigmoid(self.head(F.relu(y[0]))), h, c


def vad_zero_state(batch: int) -> Tuple[np.ndarray, np.ndarray]:
    z = np.zeros((2, batch, VAD_HIDDEN), dtype=np.float32)
    return z, z.copy()


def vad_audio(seed: int, samples: int) -> np.ndarray:
    """[1, samples] of speech-like audio: background noise, then a voiced stretch (a 140 Hz
    harmonic series with formant-like weights under a rising envelope)."""
    r = rng(seed)
    t = np.arange(samples) / 16000.0
    noise = 0.01 * r.standard_normal(samples)
    voiced = sum(w * np.sin(2 * np.pi * 140.0 * k * t + r.uniform(0, 2 * np.pi)) for k, w in [(1, 0.25), (2, 0.2), (3, 0.12), (5, 0.08), (8, 0.05)])
    envelope = np.clip((np.arange(samples) - samples * 0.3) / (samples * 0.3), 0.0, 1.0)
    return (noise + envelope * voiced)[None, :].astype(np.float32)


def build_vad() -> nn.Module:
    torch.manual_seed(20240624)
    model = StreamingVad(VAD_HIDDEN)
    calibration = vad_audio(130, CHUNK * 12)
    unit_scale([m for m in model.encoder if isinstance(m, nn.Conv1d)], lambda: run_stream(model, calibration, 16000))
    with torch.no_grad():
        for p in model.lstm.parameters():
            p.mul_(2.0)  # gates off their linear middle, as with the zoo's other LSTMs
    # The probability's logit centred, at std 1.5, over a noisy-then-voiced stream run chunk by chunk
    # (state carried): probabilities across (0, 1) rather than pinned at 0 or 1.
    scale_output(model.head, lambda: run_stream(model, calibration, 16000), 1.5, center=True)
    return model


def run_stream(model: nn.Module, audio: np.ndarray, sr: int) -> List[Tuple[Feeds, Tuple[torch.Tensor, ...]]]:
    """Runs [1, n·CHUNK] of audio chunk by chunk, carrying (h, c): each chunk's feeds and outputs."""
    h, c = vad_zero_state(1)
    steps = []
    for i in range(audio.shape[1] // CHUNK):
        feeds = {"input": np.ascontiguousarray(audio[:, i * CHUNK:(i + 1) * CHUNK]), "sr": np.array(sr, dtype=np.int64), "h": h, "c": c}
        with torch.no_grad():
            outs = model(*(torch.from_numpy(feeds[n]) for n in VAD_INPUTS))
        steps.append((feeds, outs))
        h, c = outs[1].numpy(), outs[2].numpy()
    return steps


def vad_cases() -> Dict[str, Feeds]:
    """Three consecutive 16 kHz chunks of one stream, each case's state being torch's output state
    for the chunk before (from zeros), and a fresh 8 kHz stream's first chunk (the If's other
    branch). The states come from running the model here, the way a caller would."""
    steps = run_stream(build_vad().eval(), vad_audio(131, 3 * CHUNK), 16000)
    cases: Dict[str, Feeds] = {f"16k_{i}": feeds for i, (feeds, _) in enumerate(steps)}
    h0, c0 = vad_zero_state(1)
    cases["8k_0"] = {"input": vad_audio(132, CHUNK), "sr": np.array(8000, dtype=np.int64), "h": h0, "c": c0}
    return cases


# ---------------------------------------------------------------- UNet 1024


def double_conv(cin: int, cout: int) -> nn.Sequential:
    return nn.Sequential(conv_bn(cin, cout), conv_bn(cout, cout))


class UNet(nn.Module):
    """The classic UNet at base width 32: four MaxPool levels down, four ConvTranspose levels up,
    each concatenating the encoder's skip, a 1×1 head of per-pixel class logits."""

    def __init__(self, base: int = 32, classes: int = 2) -> None:
        super().__init__()
        widths = [base * 2**i for i in range(5)]  # 32 … 512
        self.down = nn.ModuleList([double_conv(3, widths[0])] + [double_conv(widths[i], widths[i + 1]) for i in range(4)])
        self.up = nn.ModuleList([nn.ConvTranspose2d(widths[i + 1], widths[i], 2, 2) for i in reversed(range(4))])
        self.merge = nn.ModuleList([double_conv(2 * widths[i], widths[i]) for i in reversed(range(4))])
        self.head = nn.Conv2d(widths[0], classes, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        skips = []
        for i, block in enumerate(self.down):
            x = block(x if i == 0 else F.max_pool2d(x, 2))
            skips.append(x)
        skips.pop()
        for up, merge in zip(self.up, self.merge):
            x = merge(torch.cat([skips.pop(), up(x)], dim=1))
        return self.head(x)


def build_unet() -> nn.Module:
    torch.manual_seed(20240625)
    model = UNet()
    sample = torch.from_numpy(images(125, 1, 256, 256))  # fully convolutional: a smaller sample calibrates it
    calibrate(model, sample, 20240626)
    scale_output(model.head, lambda: model(sample), 2.5)
    return model


def unet_cases() -> Dict[str, Feeds]:
    return {"b1": {"input": images(126, 1, 1024, 1024)}}


# ---------------------------------------------------------------- the list, for generate.py

IMAGE_HW_AXES = {"input": {0: "batch", 2: "height", 3: "width"}, "probability": {0: "batch", 2: "height", 3: "width"}}
UNET_ARGS = dict(
    committed=False,
    build=build_unet,
    cases=unet_cases,
    input_names=["input"],
    output_names=["logits"],
)

def float16_unsorted(model: onnx.ModelProto) -> onnx.ModelProto:
    """onnxconverter-common's keep_io_types conversion, its Casts left after all other nodes. The
    sorted conversion must pass onnx.checker, which rejects the unsorted one for its order alone."""
    onnx.checker.check_model(float16.convert(model, sort=True))
    return float16.convert(model, sort=False)


SPECS: List[ModelSpec] = [
    ModelSpec(
        name="db_text_detector",
        committed=False,
        build=build_db,
        cases=lambda: {"640x640": {"input": images(127, 1, 640, 640)}, "480x800": {"input": images(128, 1, 480, 800)}},
        input_names=["input"],
        output_names=["probability"],
        dynamic_axes=IMAGE_HW_AXES,
        description="DB text detector: MobileNetV3-like backbone (HardSwish, SE), FPN (Resize ×2, Add, concat of 4 levels), head with two k2 s2 ConvTranspose, Sigmoid; symbolic batch, height, width (cases 640×640, 480×800)",
    ),
    ModelSpec(
        name="crnn_recognizer",
        committed=True,
        build=build_crnn,
        cases=lambda: {"b1": {"input": images(129, 1, 48, 320)}, "b4": {"input": images(130, 4, 48, 320)}},
        input_names=["input"],
        output_names=["probabilities"],
        dynamic_axes={"input": {0: "batch", 3: "width"}, "probabilities": {0: "batch", 1: "time"}},
        description="CRNN text-line recogniser: Conv-BN-ReLU/HardSwish, MaxPool collapsing height 48 → 1, 2-layer bidirectional LSTM (96), Linear, Softmax over 97 classes; symbolic batch and width (cases b1, b4 at 48×320)",
    ),
    ModelSpec(
        name="vad_streaming",
        committed=True,
        build=build_vad,
        cases=vad_cases,
        input_names=VAD_INPUTS,
        output_names=["probability", "hn", "cn"],
        dynamic_axes={"input": {0: "batch"}, "h": {1: "batch"}, "c": {1: "batch"}, "probability": {0: "batch"}, "hn": {1: "batch"}, "cn": {1: "batch"}},
        description="Silero-VAD-like streaming detector: 512-sample chunk, If on int64 sr (16000/8000: STFT hop 128/64 as a strided Conv1d), |STFT|, Conv1d+ReLU encoder, 2-layer LSTM with (h, c) in and out, Linear, Sigmoid; cases: 3 consecutive 16 kHz chunks carrying torch's state, one 8 kHz chunk",
    ),
    ModelSpec(
        name="unet_1024",
        **UNET_ARGS,
        description="UNet segmenter, base 32: 4 MaxPool levels down, 4 ConvTranspose levels up with skip Concat, Conv-BN-ReLU pairs, 1×1 head to 2 classes; 1×3×1024×1024 (case b1)",
    ),
    ModelSpec(
        name="unet_1024_fp16",
        **UNET_ARGS,
        convert=float16_unsorted,
        conversion="float16",
        description="unet_1024 converted to float16 as onnxconverter-common's convert_float_to_float16(keep_io_types=True) does: float16 weights and tensors, float32 input and output through Casts appended after all other nodes (not in topological order)",
    ),
    ModelSpec(
        name="unet_1024_int8",
        **UNET_ARGS,
        convert=quantize_dynamic.quantize_convs_dynamic,
        conversion="int8-dynamic",
        description="unet_1024 dynamically quantized as onnxruntime's quantize_dynamic does Convs: uint8 weights per tensor, DynamicQuantizeLinear → ConvInteger → Cast → Mul by the scales → Add bias (ConvTranspose stays float32)",
    ),
]
