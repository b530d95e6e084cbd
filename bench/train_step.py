#!/usr/bin/env python3
"""Training-step throughput: f32 vs autocast(cpu, bf16), through the CPU JIT.

Two models, each built by amp_mlir.training and compiled with
amp-cpu-pipeline: an MLP (batch 256, 512 -> 1024 -> GELU -> 1024 -> ReLU ->
10) and a transformer block (8 sequences of 64 tokens, d=256, 4 heads, MLP
1024) with a 10-class head, both with momentum SGD. Each step is timed
(median of --repeat after --warmup) in the same run, and the table gives
steps per second and the autocast / f32 ratio, and the peak bytes of the
JIT's buffers in one step (amp.cpu_memory_stats) with their ratio. Run with the build's
virtual environment: build/venv/bin/python bench/train_step.py
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import amp_mlir as amp  # noqa: E402
from amp_mlir.training import GELU, Linear, ReLU, SGD, Trainer, TransformerBlock  # noqa: E402

MODELS = {
    "mlp": (lambda: [Linear(512, 1024), GELU(), Linear(1024, 1024), ReLU(), Linear(1024, 10)],
            256, 512),
    "transformer_block": (lambda: [TransformerBlock(256, heads=4, seq_len=64), Linear(256, 10)],
                          8 * 64, 256),
}


def time_steps(layers, batch, features, autocast, warmup, repeat):
    trainer = Trainer(layers, batch, features, 10, SGD(lr=1e-3, momentum=0.9), autocast=autocast)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, features)).astype(np.float32)
    y = np.eye(10, dtype=np.float32)[rng.integers(0, 10, batch)]
    for _ in range(warmup):
        trainer.step(x, y)
    # Peak bytes of the JIT's buffers during one step (activations, gradients,
    # temporaries; the parameters passed in are not counted).
    amp.cpu_reset_peak_memory()
    base, _ = amp.cpu_memory_stats()
    trainer.step(x, y)
    peak = amp.cpu_memory_stats()[1] - base
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        trainer.step(x, y)
        times.append(time.perf_counter() - start)
    return float(np.median(times)), peak


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    flags = open("/proc/cpuinfo").read().split("flags")[1].split("\n")[0].split()
    seen = [f for f in ("avx2", "fma", "avx512f", "avx512_bf16", "amx_bf16") if f in flags]
    print(f"CPU features: {' '.join(seen)}; {os.cpu_count()} hardware threads")
    print(f"{'model':>18} | {'f32 ms':>8} | {'bf16 ms':>8} | {'f32 steps/s':>11} | "
          f"{'bf16 steps/s':>12} | bf16/f32 | {'peak f32':>9} | {'peak bf16':>9} | bf16/f32")
    for name, (make, batch, features) in MODELS.items():
        f32, m32 = time_steps(make(), batch, features, None, args.warmup, args.repeat)
        bf16, m16 = time_steps(make(), batch, features, ("cpu", "bf16"), args.warmup,
                               args.repeat)
        print(f"{name:>18} | {1e3 * f32:8.2f} | {1e3 * bf16:8.2f} | {1 / f32:11.1f} | "
              f"{1 / bf16:12.1f} | {f32 / bf16:7.2f}x | {m32 / 2**20:7.1f}Mi | "
              f"{m16 / 2**20:7.1f}Mi | {m16 / max(m32, 1):.2f}x")


if __name__ == "__main__":
    main()
