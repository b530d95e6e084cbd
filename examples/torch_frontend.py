#!/usr/bin/env python3
"""The PyTorch front door, end to end: a GPT-style decoder (a real
torch.nn.Module: causal SDPA, LayerNorm, GELU MLP, tied embeddings; seeded
random weights) compiled by amp_mlir.torch.compile in f32 and with
autocast(cpu, bf16) (graph mode), JIT-run on the CPU and compared with
PyTorch on the same tokens.

Prints the relative L2 error of the logits against PyTorch f32 (ours f32,
ours autocast, torch.autocast's own), the compile time, and the median time
per call of ours next to PyTorch eager f32 and torch.autocast (PyTorch timed
in a child process: two OpenMP runtimes spinning in one process slow each
other down). Exit 1 unless ours f32 is within 1e-5 of PyTorch and our
autocast within 1.5x torch.autocast's error (and 2e-2), finite.

    python examples/torch_frontend.py [--repeat 20]
"""
import argparse
import os
import subprocess
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

BATCH, SEQ = 4, 32


def model_and_tokens():
    from amp_mlir.torch.models import GPT
    model = GPT(vocab=256, block=SEQ, dim=128, heads=4, layers=2, seed=0).eval()
    tokens = torch.randint(0, 256, (BATCH, SEQ), generator=torch.Generator().manual_seed(1))
    return model, tokens


def median_ms(fn, repeat):
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1e3 * sorted(times)[len(times) // 2]


def torch_child(repeat):
    model, tokens = model_and_tokens()
    with torch.no_grad():
        f32 = median_ms(lambda: model(tokens), repeat)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            amp = median_ms(lambda: model(tokens), repeat)
    print(f32, amp)


def rel_l2(a, b):
    return float((a.double() - b.double()).norm() / b.double().norm())


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--torch-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.torch_child:
        return torch_child(args.repeat)
    import amp_mlir.torch as amp_torch
    model, tokens = model_and_tokens()
    with torch.no_grad():
        ref = model(tokens)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            torch_amp_err = rel_l2(model(tokens), ref)
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--torch-child",
                          "--repeat", str(args.repeat)], capture_output=True, text=True,
                         check=True)
    torch_f32_ms, torch_amp_ms = (float(v) for v in out.stdout.split()[-2:])
    print(f"GPT decoder (2 layers, dim 128, vocab 256), tokens {BATCH}x{SEQ}, logits "
          f"{tuple(ref.shape)}")
    print(f"{'':24} {'rel L2 vs torch f32':>20} {'compile s':>10} {'ms/call':>9} "
          f"{'PyTorch ms/call':>16}")
    ok = True
    for label, kw, torch_ms in (("amp-mlir f32", {}, torch_f32_ms),
                                ("amp-mlir autocast bf16", {"autocast": ("cpu", "bfloat16")},
                                 torch_amp_ms)):
        fn = amp_torch.compile(model, (tokens,), **kw)
        y = fn(tokens)
        err = rel_l2(y, ref)
        ms = median_ms(lambda: fn(tokens), args.repeat)
        print(f"{label:24} {err:20.2e} {fn.compile_seconds:10.1f} {ms:9.2f} {torch_ms:16.2f}")
        finite = bool(torch.isfinite(y).all())
        ok &= finite and (err <= 1e-5 if not kw else err <= min(1.5 * torch_amp_err, 2e-2))
    print(f"{'torch.autocast bf16':24} {torch_amp_err:20.2e}")
    print("PASS" if ok else "FAIL: errors above the limits (f32 1e-5; autocast 1.5x "
          "torch.autocast's and 2e-2)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
