#!/usr/bin/env python3
"""Training-step time and peak memory: PyTorch modules trained through
amp_mlir.torch.compile_train_step (f32 and autocast(cpu, bf16)) next to
PyTorch eager (f32 and torch.autocast(cpu, bf16)), in one run.

Models (all with cross_entropy and momentum SGD): ``mlp`` (batch 256, 512 ->
1024 -> GELU -> 1024 -> ReLU -> 10), ``cnn`` (the digits CNN of
examples/training/digits.py, batch 64) and ``gpt`` (the char GPT of
examples/training/gpt.py: 2 layers, d 64, context 64, batch 16). Each step is
timed (median of --repeat after --warmup). PyTorch runs in a child process
(in one process the OpenMP runtimes of amp's JIT and of torch spin and slow
each other, see bench/cpu_models.py); its step is ``zero_grad, forward,
backward, step`` (with autocast around the forward for bf16). Peak memory is
amp's: the most bytes of the JIT's buffers live during one step
(amp.cpu_memory_stats; weights and optimizer state are the caller's arrays,
not counted). Ratios are against the same run's baselines.

    build/venv/bin/python bench/train_step.py [--models mlp,cnn,gpt]
"""
import argparse
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "examples", "training"))
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from timing import median_time  # noqa: E402  (bench/timing.py)


def ce(m, x, y):
    logits = m(x)
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))


def build(name):
    """``(model, (x, y))`` with fixed seeds."""
    torch.manual_seed(0)
    if name == "mlp":
        model = nn.Sequential(nn.Linear(512, 1024), nn.GELU(), nn.Linear(1024, 1024),
                              nn.ReLU(), nn.Linear(1024, 10))
        return model, (torch.randn(256, 512), torch.randint(0, 10, (256,)))
    if name == "cnn":
        import digits
        return digits.cnn(), (torch.rand(64, 64), torch.randint(0, 10, (64,)))
    if name == "gpt":
        import gpt
        model = gpt.GPT(context=64, d=64, layers=2)
        v = len(gpt.VOCAB)
        return model, (torch.randint(0, v, (16, 64)), torch.randint(0, v, (16, 64)))
    raise ValueError(f"unknown model {name!r}")


def optimizer(model):
    return torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)


def torch_child(name, repeat, warmup):
    model, args = build(name)
    opt = optimizer(model)

    def step(dtype=None):
        opt.zero_grad()
        if dtype is None:
            loss = ce(model, *args)
        else:
            with torch.autocast("cpu", dtype=dtype):
                loss = ce(model, *args)
        loss.backward()
        opt.step()
    print(median_time(step, repeat, warmup),
          median_time(lambda: step(torch.bfloat16), repeat, warmup))


def torch_times(name, repeat, warmup):
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--torch-child", name,
                          "--repeat", str(repeat), "--warmup", str(warmup)],
                         capture_output=True, text=True, check=True)
    return [float(v) for v in out.stdout.split()[-2:]]


def ours(name, autocast, repeat, warmup):
    import amp_mlir as amp
    from amp_mlir.torch import compile_train_step
    model, args = build(name)
    t0 = time.perf_counter()
    step = compile_train_step(model, ce, optimizer(model), args, autocast=autocast)
    compile_s = time.perf_counter() - t0
    step(*args)
    amp.cpu_reset_peak_memory()
    base, _ = amp.cpu_memory_stats()
    step(*args)
    peak = amp.cpu_memory_stats()[1] - base
    return median_time(lambda: step(*args), repeat, warmup), peak, compile_s


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--models", default="mlp,cnn,gpt")
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--repeat", type=int, default=15)
    p.add_argument("--torch-child")
    args = p.parse_args()
    if args.torch_child:
        torch_child(args.torch_child, args.repeat, args.warmup)
        return
    flags = open("/proc/cpuinfo").read().split("flags")[1].split("\n")[0].split()
    seen = [f for f in ("avx2", "fma", "avx512f", "avx512_bf16", "amx_bf16") if f in flags]
    print(f"CPU features: {' '.join(seen)}; {os.cpu_count()} hardware threads")
    print(f"{'model':>5} | {'torch f32':>9} {'torch bf16':>10} | {'ours f32':>9} {'ours bf16':>9} | "
          f"{'torch/ours f32':>14} {'torch/ours bf16':>15} {'ours f32/bf16':>13} | "
          f"{'peak f32':>9} {'peak bf16':>9} {'bf16/f32':>8} | compile f32, bf16")
    for name in args.models.split(","):
        t_torch, t_torch16 = torch_times(name, args.repeat, args.warmup)
        t32, m32, c32 = ours(name, None, args.repeat, args.warmup)
        t16, m16, c16 = ours(name, ("cpu", "bfloat16"), args.repeat, args.warmup)
        print(f"{name:>5} | {1e3 * t_torch:7.2f}ms {1e3 * t_torch16:8.2f}ms | "
              f"{1e3 * t32:7.2f}ms {1e3 * t16:7.2f}ms | {t_torch / t32:13.2f}x "
              f"{t_torch16 / t16:14.2f}x {t32 / t16:12.2f}x | {m32 / 2**20:7.2f}Mi "
              f"{m16 / 2**20:7.2f}Mi {m16 / max(m32, 1):7.2f}x | {c32:.0f} s, {c16:.0f} s",
              flush=True)


if __name__ == "__main__":
    main()
