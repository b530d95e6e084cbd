"""A character-level GPT trained on the Python standard library's own sources
(real text that ships with every Python) through
amp_mlir.torch.compile_train_step.

Text: the ``.py`` files directly in the standard library's directory
(``os.path.dirname(os.__file__)``), sorted by name, concatenated up to
``--chars`` characters; characters outside printable ASCII (and newline)
become ``?``. The first 90% trains, the last 10% is held out. Model: token
and position embeddings, ``--layers`` pre-LayerNorm blocks (causal
``F.scaled_dot_product_attention``, GELU MLP), a linear head; AdamW.
Batches of ``--batch`` random windows of ``--context`` characters, the
targets shifted by one.

    python examples/training/gpt.py [--steps 300] [--autocast bfloat16|float16|none]

Prints the loss curve, the unigram entropy of the training text (nats per
character: the loss of the best model that ignores context), the held-out
loss, a few generated characters, and PASS when the final training loss
(mean of the last 20 steps) is below 0.85 x the unigram entropy.
"""
import argparse
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from amp_mlir.torch import compile_train_step

VOCAB = ["\n"] + [chr(c) for c in range(32, 127)]
INDEX = {c: i for i, c in enumerate(VOCAB)}
UNKNOWN = INDEX["?"]


def stdlib_text(chars):
    """Up to ``chars`` characters of the standard library's sources."""
    root = os.path.dirname(os.__file__)
    parts, total = [], 0
    for name in sorted(os.listdir(root)):
        if not name.endswith(".py"):
            continue
        with open(os.path.join(root, name), encoding="utf-8", errors="replace") as f:
            text = f.read()
        parts.append(text)
        total += len(text)
        if total >= chars:
            break
    return "".join(parts)[:chars]


def encode(text):
    return torch.tensor([INDEX.get(c, UNKNOWN) for c in text], dtype=torch.int64)


def unigram_entropy(ids):
    counts = np.bincount(ids.numpy(), minlength=len(VOCAB)).astype(np.float64)
    p = counts[counts > 0] / counts.sum()
    return float(-(p * np.log(p)).sum())


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q, k, v = (z.reshape(b, t, self.heads, d // self.heads).transpose(1, 2)
                   for z in (q, k, v))
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, vocab=len(VOCAB), context=64, d=64, heads=4, layers=2):
        super().__init__()
        self.context = context
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(context, d)
        self.blocks = nn.Sequential(*[Block(d, heads) for _ in range(layers)])
        self.ln, self.head = nn.LayerNorm(d), nn.Linear(d, vocab)

    def forward(self, idx):
        t = idx.shape[1]
        h = self.tok(idx) + self.pos(torch.arange(t, device=idx.device))
        return self.head(self.ln(self.blocks(h)))


def loss_fn(model, x, y):
    logits = model(x)
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))


def batch(ids, size, context, gen):
    start = torch.randint(0, len(ids) - context - 1, (size,), generator=gen)
    x = torch.stack([ids[s:s + context] for s in start])
    y = torch.stack([ids[s + 1:s + 1 + context] for s in start])
    return x, y


@torch.no_grad()
def generate(model, prompt, n, gen, temperature=0.8):
    ids = encode(prompt)[None]
    for _ in range(n):
        logits = model(ids[:, -model.context:])[0, -1] / temperature
        nxt = torch.multinomial(F.softmax(logits, -1), 1, generator=gen)
        ids = torch.cat([ids, nxt[None]], 1)
    return "".join(VOCAB[i] for i in ids[0].tolist())


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--d", type=int, default=64)
    p.add_argument("--context", type=int, default=64)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--chars", type=int, default=400_000)
    p.add_argument("--autocast", default="bfloat16", choices=["bfloat16", "float16", "none"])
    p.add_argument("--generate", type=int, default=120)
    p.add_argument("--every", type=int, default=25)
    args = p.parse_args(argv)

    ids = encode(stdlib_text(args.chars))
    split = int(0.9 * len(ids))
    train_ids, held_ids = ids[:split], ids[split:]
    h = unigram_entropy(train_ids)
    torch.manual_seed(0)
    model = GPT(context=args.context, d=args.d, layers=args.layers)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    autocast = None if args.autocast == "none" else ("cpu", args.autocast)
    scaler = torch.amp.GradScaler("cpu") if args.autocast == "float16" else None
    gen = torch.Generator().manual_seed(0)
    example = batch(train_ids, args.batch, args.context, gen)
    print(f"== char GPT: {len(ids)} characters of the standard library "
          f"({os.path.dirname(os.__file__)}), vocabulary {len(VOCAB)}, "
          f"{sum(q.numel() for q in model.parameters())} parameters "
          f"({args.layers} layers, d {args.d}, context {args.context}), batch {args.batch}, "
          f"AdamW lr {args.lr}, autocast {args.autocast}"
          f"{' + GradScaler' if scaler else ''}")
    t0 = time.perf_counter()
    step = compile_train_step(model, loss_fn, opt, example, autocast=autocast, scaler=scaler)
    print(f"  compiled in {time.perf_counter() - t0:.1f} s")
    losses, t0 = [], time.perf_counter()
    for i in range(args.steps):
        losses.append(step(*batch(train_ids, args.batch, args.context, gen)))
        if (i + 1) % args.every == 0 or i == 0:
            recent = np.mean(losses[-args.every:])
            print(f"  step {i + 1:4d}  loss {losses[-1]:.3f}  (mean of last {args.every}: "
                  f"{recent:.3f})")
    seconds = time.perf_counter() - t0
    step.sync()
    final = float(np.mean(losses[-20:]))
    with torch.no_grad():
        held = float(np.mean([loss_fn(model, *batch(held_ids, args.batch, args.context, gen))
                              for _ in range(8)]))
    print(f"  unigram entropy {h:.3f} nats/char; final training loss {final:.3f} "
          f"(mean of the last 20 steps), held-out loss {held:.3f}; "
          f"{1000 * seconds / args.steps:.1f} ms/step, skipped steps {step.skipped}")
    sample = generate(model, "def ", args.generate, torch.Generator().manual_seed(1))
    print("  generated (prompt 'def '):")
    print("    " + sample.replace("\n", "\n    "))
    ok = final < 0.85 * h
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
