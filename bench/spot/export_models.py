# Writes models the project was not tuned on, for spot checks of the CPU EP against onnxruntime-node
# (bench/spot/run.mjs): torchvision architectures and common blocks (LLaMA-style decoder, GRU/RNN, YOLO-style
# detector, wav2vec-style encoder, style transfer, einsum attention, T5 relative bias, HRNet-style fusion),
# seeded random weights, opset 17. Each goes to OUT/<name>/ as model.onnx, input.npy and torch's out.npy.
# Usage: /usr/bin/python3 bench/spot/export_models.py OUT [name,name...]
import sys, os, math, torch, numpy as np
import torch.nn as nn, torch.nn.functional as F
import torchvision.models as M
import torchvision.models.segmentation as S
import torchvision.models.video as V
torch.manual_seed(0)

class RMSNorm(nn.Module):
    def __init__(s, d): super().__init__(); s.w = nn.Parameter(torch.rand(d) + 0.5)
    def forward(s, x): return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * s.w
def rotate(x): a, b = x.chunk(2, -1); return torch.cat([-b, a], -1)
class LlamaBlock(nn.Module):
    def __init__(s, d=512, h=8):
        super().__init__(); s.h = h; s.n1 = RMSNorm(d); s.n2 = RMSNorm(d)
        s.qkv = nn.Linear(d, 3 * d, bias=False); s.o = nn.Linear(d, d, bias=False)
        s.g = nn.Linear(d, 1376, bias=False); s.u = nn.Linear(d, 1376, bias=False); s.dn = nn.Linear(1376, d, bias=False)
    def forward(s, x, cos, sin, mask):
        B, T, D = x.shape; hd = D // s.h
        q, k, v = s.qkv(s.n1(x)).split(D, -1)
        q, k, v = [t.view(B, T, s.h, hd).transpose(1, 2) for t in (q, k, v)]
        q = q * cos + rotate(q) * sin; k = k * cos + rotate(k) * sin
        a = (q @ k.transpose(-1, -2)) / math.sqrt(hd) + mask
        y = (a.softmax(-1) @ v).transpose(1, 2).reshape(B, T, D)
        x = x + s.o(y)
        return x + s.dn(F.silu(s.g(s.n2(x))) * s.u(s.n2(x)))
class Llama(nn.Module):
    def __init__(s): super().__init__(); s.emb = nn.Embedding(8000, 512); s.blocks = nn.ModuleList([LlamaBlock() for _ in range(4)]); s.n = RMSNorm(512); s.head = nn.Linear(512, 8000, bias=False)
    def forward(s, ids):
        T = ids.shape[1]; x = s.emb(ids)
        pos = torch.arange(T).float()[:, None] * (1.0 / (10000 ** (torch.arange(0, 64, 2).float() / 64)))[None]
        emb = torch.cat([pos, pos], -1); cos, sin = emb.cos(), emb.sin()
        mask = torch.triu(torch.full((T, T), -1e9), 1)
        for b in s.blocks: x = b(x, cos, sin, mask)
        return s.head(s.n(x))

class GRUNet(nn.Module):
    def __init__(s): super().__init__(); s.gru = nn.GRU(80, 128, num_layers=2, bidirectional=True); s.fc = nn.Linear(256, 40)
    def forward(s, x): y, _ = s.gru(x); return s.fc(y)

def cbs(ci, co, k=3, st=1): return nn.Sequential(nn.Conv2d(ci, co, k, st, k // 2, bias=False), nn.BatchNorm2d(co), nn.SiLU())
class C2f(nn.Module):
    def __init__(s, c, n=2): super().__init__(); s.cv1 = cbs(c, c, 1); s.m = nn.ModuleList([nn.Sequential(cbs(c // 2, c // 2), cbs(c // 2, c // 2)) for _ in range(n)]); s.cv2 = cbs(c // 2 * (2 + n), c, 1)
    def forward(s, x):
        y = list(s.cv1(x).chunk(2, 1))
        for m in s.m: y.append(m(y[-1]))
        return s.cv2(torch.cat(y, 1))
class SPPF(nn.Module):
    def __init__(s, c): super().__init__(); s.cv1 = cbs(c, c // 2, 1); s.cv2 = cbs(c * 2, c, 1); s.m = nn.MaxPool2d(5, 1, 2)
    def forward(s, x): x = s.cv1(x); y1 = s.m(x); y2 = s.m(y1); return s.cv2(torch.cat([x, y1, y2, s.m(y2)], 1))
class Yolo(nn.Module):
    def __init__(s):
        super().__init__()
        s.b = nn.ModuleList([cbs(3, 16, 3, 2), cbs(16, 32, 3, 2), C2f(32), cbs(32, 64, 3, 2), C2f(64), cbs(64, 128, 3, 2), C2f(128), cbs(128, 256, 3, 2), C2f(256), SPPF(256)])
        s.up = nn.Upsample(scale_factor=2, mode='nearest'); s.h1 = nn.Sequential(cbs(384, 128, 1), C2f(128)); s.det = nn.Conv2d(128, 84, 1)
    def forward(s, x):
        feats = []
        for i, m in enumerate(s.b):
            x = m(x)
            if i == 6: feats.append(x)
        y = s.h1(torch.cat([s.up(x), feats[0]], 1))
        return s.det(y).sigmoid()

class Wav2Vec(nn.Module):
    def __init__(s):
        super().__init__()
        s.c0 = nn.Conv1d(1, 256, 10, 5, bias=False); s.gn = nn.GroupNorm(256, 256)
        s.cs = nn.ModuleList([nn.Conv1d(256, 256, k, st, bias=False) for k, st in [(3, 2), (3, 2), (3, 2), (2, 2)]])
        s.proj = nn.Linear(256, 384); s.ln = nn.LayerNorm(384)
        s.pos = nn.Conv1d(384, 384, 33, padding=16, groups=16)
        s.attn = nn.ModuleList([nn.Linear(384, 1152) for _ in range(2)]); s.o = nn.ModuleList([nn.Linear(384, 384) for _ in range(2)])
        s.ff = nn.ModuleList([nn.Sequential(nn.Linear(384, 1536), nn.GELU(), nn.Linear(1536, 384)) for _ in range(2)])
        s.l1 = nn.ModuleList([nn.LayerNorm(384) for _ in range(2)]); s.l2 = nn.ModuleList([nn.LayerNorm(384) for _ in range(2)])
    def forward(s, wav):
        x = F.gelu(s.gn(s.c0(wav)))
        for c in s.cs: x = F.gelu(c(x))
        x = s.ln(s.proj(x.transpose(1, 2)))
        x = x + F.gelu(s.pos(x.transpose(1, 2))[:, :, :x.shape[1]].transpose(1, 2))
        B, T, D = x.shape
        for i in range(2):
            q, k, v = s.attn[i](x).split(D, -1)
            q, k, v = [t.view(B, T, 6, 64).transpose(1, 2) for t in (q, k, v)]
            a = ((q @ k.transpose(-1, -2)) / 8).softmax(-1)
            x = s.l1[i](x + s.o[i]((a @ v).transpose(1, 2).reshape(B, T, D)))
            x = s.l2[i](x + s.ff[i](x))
        return x

class Style(nn.Module):
    def __init__(s):
        super().__init__()
        def blk(ci, co, k, st): return nn.Sequential(nn.ReflectionPad2d(k // 2), nn.Conv2d(ci, co, k, st), nn.InstanceNorm2d(co, affine=True), nn.ReLU())
        s.enc = nn.Sequential(blk(3, 32, 9, 1), blk(32, 64, 3, 2), blk(64, 128, 3, 2))
        s.res = nn.ModuleList([nn.Sequential(blk(128, 128, 3, 1), nn.ReflectionPad2d(1), nn.Conv2d(128, 128, 3), nn.InstanceNorm2d(128, affine=True)) for _ in range(3)])
        s.dec = nn.Sequential(nn.Upsample(scale_factor=2), blk(128, 64, 3, 1), nn.Upsample(scale_factor=2), blk(64, 32, 3, 1), nn.ReflectionPad2d(4), nn.Conv2d(32, 3, 9))
    def forward(s, x):
        x = s.enc(x)
        for r in s.res: x = x + r(x)
        return s.dec(x)

class EinsumAttn(nn.Module):
    def __init__(s): super().__init__(); s.qkv = nn.Linear(256, 768); s.o = nn.Linear(256, 256)
    def forward(s, x):
        q, k, v = s.qkv(x).chunk(3, -1)
        q, k, v = [t.reshape(t.shape[0], t.shape[1], 4, 64) for t in (q, k, v)]
        a = torch.einsum('bqhd,bkhd->bhqk', q, k).mul(0.125).softmax(-1)
        return s.o(torch.einsum('bhqk,bkhd->bqhd', a, v).reshape(x.shape[0], x.shape[1], 256))

class RNNNet(nn.Module):
    def __init__(s): super().__init__(); s.rnn = nn.RNN(64, 128, num_layers=2, nonlinearity='tanh')
    def forward(s, x): return s.rnn(x)[0]
class T5Bias(nn.Module):
    def __init__(s): super().__init__(); s.emb = nn.Embedding(32, 8); s.q = nn.Linear(256, 256); s.k = nn.Linear(256, 256); s.v = nn.Linear(256, 256)
    def forward(s, x):
        T = x.shape[1]
        ctx = torch.arange(T)[:, None]; mem = torch.arange(T)[None, :]
        rel = mem - ctx
        nb = 16; ret = (rel > 0).long() * nb; n = rel.abs()
        large = 8 + (torch.log(n.float().clamp(min=1) / 8) / math.log(128 / 8) * 8).long()
        large = torch.min(large, torch.full_like(large, nb - 1))
        bucket = ret + torch.where(n < 8, n, large)
        bias = s.emb(bucket).permute(2, 0, 1)[None]
        B = x.shape[0]
        q, k, v = [f(x).view(B, T, 8, 32).transpose(1, 2) for f in (s.q, s.k, s.v)]
        a = (q @ k.transpose(-1, -2) + bias).softmax(-1)
        return (a @ v).transpose(1, 2).reshape(B, T, 256)
class HRFuse(nn.Module):
    def __init__(s):
        super().__init__(); s.a = nn.Conv2d(3, 32, 3, 2, 1); s.b = nn.Conv2d(32, 64, 3, 2, 1); s.c = nn.Conv2d(64, 128, 3, 2, 1)
        s.up1 = nn.Conv2d(64, 32, 1); s.up2 = nn.Conv2d(128, 32, 1); s.out = nn.Conv2d(32, 17, 1)
    def forward(s, x):
        a = F.relu(s.a(x)); b = F.relu(s.b(a)); c = F.relu(s.c(b))
        f = a + F.interpolate(s.up1(b), size=a.shape[2:], mode='bilinear', align_corners=False) + F.interpolate(s.up2(c), size=a.shape[2:], mode='bilinear', align_corners=False)
        return s.out(F.relu(f))
def vision(make, shape):
    return (make, lambda: torch.rand(*shape), 'input', {0: 'batch'})

SPECS = {
    'resnet18': vision(lambda: M.resnet18(), (1,3,224,224)),
    'mobilenet_v3_small': vision(lambda: M.mobilenet_v3_small(), (1,3,224,224)),
    'shufflenet_v2': vision(lambda: M.shufflenet_v2_x1_0(), (1,3,224,224)),
    'mnasnet1_0': vision(lambda: M.mnasnet1_0(), (1,3,224,224)),
    'regnet_y_400mf': vision(lambda: M.regnet_y_400mf(), (1,3,224,224)),
    'densenet121': vision(lambda: M.densenet121(), (1,3,224,224)),
    'googlenet': vision(lambda: M.googlenet(aux_logits=False, init_weights=True), (1,3,224,224)),
    'resnext50': vision(lambda: M.resnext50_32x4d(), (1,3,224,224)),
    'swin_t': vision(lambda: M.swin_t(), (1,3,224,224)),
    'inception_v3': vision(lambda: M.inception_v3(aux_logits=False, init_weights=True), (1,3,299,299)),
    'lraspp': vision(lambda: S.lraspp_mobilenet_v3_large(weights_backbone=None), (1,3,320,320)),
    'fcn_resnet50': vision(lambda: S.fcn_resnet50(weights_backbone=None, aux_loss=False), (1,3,256,256)),
    'r3d_18': vision(lambda: V.r3d_18(), (1,3,8,112,112)),
    'efficientnet_b2': vision(lambda: M.efficientnet_b2(), (1,3,260,260)),
    'llama_block4': (Llama, lambda: torch.randint(0, 8000, (1, 64)), 'ids', {0: 'batch', 1: 'seq'}),
    'gru2_bidir': (GRUNet, lambda: torch.randn(50, 1, 80), 'x', {1: 'batch'}),
    'yolo_like': (Yolo, lambda: torch.rand(1, 3, 320, 320), 'x', {0: 'batch'}),
    'wav2vec_like': (Wav2Vec, lambda: torch.randn(1, 1, 16000), 'wav', {0: 'batch', 2: 'len'}),
    'style_transfer': (Style, lambda: torch.rand(1, 3, 256, 256), 'x', {0: 'batch'}),
    'einsum_attn': (EinsumAttn, lambda: torch.randn(2, 100, 256), 'x', {0: 'batch'}),
    'rnn2': (RNNNet, lambda: torch.rand(*(100, 1, 64)), 'input', None),
    't5_bias_attn': (T5Bias, lambda: torch.rand(*(1, 128, 256)), 'input', None),
    'hr_fuse': (HRFuse, lambda: torch.rand(*(1, 3, 256, 192)), 'input', None),
}


class Wrap(nn.Module):
    """Segmentation models return a dict; the first tensor output otherwise."""
    def __init__(s, m): super().__init__(); s.m = m
    def forward(s, x):
        y = s.m(x)
        return y['out'] if isinstance(y, dict) else y[0] if isinstance(y, tuple) else y


def main():
    out = sys.argv[1]
    only = sys.argv[2].split(',') if len(sys.argv) > 2 else list(SPECS)
    for name in only:
        make, inp, _, dyn = SPECS[name]
        d = os.path.join(out, name)
        if os.path.exists(os.path.join(d, 'model.onnx')):
            continue
        os.makedirs(d, exist_ok=True)
        m = Wrap(make().eval()).eval()
        # Non-trivial BatchNorm statistics, so folding them matters.
        for mod in m.modules():
            if isinstance(mod, (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d)):
                mod.running_mean.uniform_(-0.2, 0.2); mod.running_var.uniform_(0.5, 1.5)
        x = inp()
        try:
            with torch.no_grad():
                y = m(x)
                torch.onnx.export(m, (x,), os.path.join(d, 'model.onnx'), opset_version=17, input_names=['input'], output_names=['out'],
                                  dynamic_axes={'input': dyn} if dyn else None)
            np.save(os.path.join(d, 'input.npy'), x.numpy()); np.save(os.path.join(d, 'out.npy'), y.numpy())
            print(name, 'ok', flush=True)
        except Exception as e:  # an exporter gap (torch 1.13): say so and go on
            print(name, 'not exported:', str(e).split('\n')[0], flush=True)


if __name__ == '__main__':
    main()
