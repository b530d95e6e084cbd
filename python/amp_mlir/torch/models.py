"""Small PyTorch models the front end's tests, bench and training share:
a GPT-style decoder and a user-style convolutional block. Weights are
seeded random (nothing is downloaded).

Layer: PyTorch models only; imports torch and nothing of amp-mlir.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn

__all__ = ["GPT", "CausalSelfAttention", "ConvBlockNet"]


class CausalSelfAttention(nn.Module):
    """Multi-head causal self-attention with
    ``F.scaled_dot_product_attention(is_causal=True)``."""

    def __init__(self, dim, heads):
        super().__init__()
        assert dim % heads == 0, "dim must be a multiple of heads"
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=2)
        q, k, v = (z.view(b, t, self.heads, c // self.heads).transpose(1, 2)
                   for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(b, t, c))


class _Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(dim)
        self.attn = CausalSelfAttention(dim, heads)
        self.ln2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    """A GPT-style decoder: token and learned position embeddings, pre-norm
    blocks (causal SDPA, LayerNorm, GELU MLP), a final LayerNorm and an
    output projection tied to the token embedding.

    ``forward(idx)``: ``idx`` int64 ``[batch, seq]`` token ids (seq <=
    ``block``); returns f32 logits ``[batch, seq, vocab]``.
    """

    def __init__(self, vocab=256, block=32, dim=64, heads=4, layers=2, seed=0):
        super().__init__()
        torch.manual_seed(seed)
        self.block = block
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(block, dim)
        self.blocks = nn.ModuleList(_Block(dim, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)
        self.head.weight = self.tok.weight  # tied embeddings
        for name, p in self.named_parameters():
            if name.endswith("weight") and p.dim() == 2:
                nn.init.normal_(p, std=0.02)
            if name.endswith("proj.weight"):
                nn.init.normal_(p, std=0.02 / math.sqrt(2 * layers))

    def forward(self, idx):
        _, t = idx.shape
        pos = torch.arange(t, device=idx.device)
        x = self.tok(idx) + self.pos(pos)
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln(x))


class ConvBlockNet(nn.Module):
    """A user-style module: conv + BatchNorm + ReLU + dropout, a residual
    block, global average pooling and a linear classifier.

    ``forward(x)``: f32 ``[batch, channels, h, w]``; returns f32
    ``[batch, classes]``. Use in eval mode (BatchNorm's running statistics,
    dropout off), as the front end exports it.
    """

    def __init__(self, channels=3, width=16, classes=10, seed=0):
        super().__init__()
        torch.manual_seed(seed)
        self.stem = nn.Sequential(nn.Conv2d(channels, width, 3, padding=1, bias=False),
                                  nn.BatchNorm2d(width), nn.ReLU())
        self.conv1 = nn.Conv2d(width, width, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.drop = nn.Dropout(0.25)
        self.fc = nn.Linear(width, classes)
        # Non-trivial running statistics, as after training.
        for bn in (self.stem[1], self.bn1, self.bn2):
            bn.running_mean.uniform_(-0.5, 0.5)
            bn.running_var.uniform_(0.5, 2.0)
            bn.weight.data.uniform_(0.5, 1.5)
            bn.bias.data.uniform_(-0.2, 0.2)

    def forward(self, x):
        x = self.stem(x)
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.drop(self.bn2(self.conv2(y)))
        x = F.relu(x + y)
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))
