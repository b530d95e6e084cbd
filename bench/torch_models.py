#!/usr/bin/env python3
"""Real PyTorch models through the PyTorch front end (amp_mlir.torch), against
PyTorch on this machine, in one run (issue 26's table).

Models (seeded random weights, eval mode): torchvision resnet18
(1x3x224x224), torchvision vit_b_16 (1x3x224x224, batch 1), the GPT-style
decoder of amp_mlir.torch.models (4x64 tokens; 4 layers, dim 256) and the
user-style ConvBlockNet (8x3x32x32; BatchNorm, dropout, residual).

Per model: ops in the import (MLIR's --print-op-stats over the whole text,
payload ops included) and its linalg ops; after amp-autocast (graph mode,
autocast(cpu, bf16)) the ops computing in bf16 and in f32 and the casts
inserted (the pass statistics); the relative L2 error against PyTorch f32 of
amp-mlir f32, graph and eager autocast and of torch.autocast; the compile
time (export + import + pipeline + JIT) of the f32 and autocast builds; and
the median time per call of amp-mlir f32 and autocast (graph) next to
PyTorch eager f32 and torch.autocast, PyTorch timed in a child process
started by this run (two OpenMP runtimes spinning in one process slow each
other down).

    python bench/torch_models.py [--models resnet18 vit_b_16 gpt convblock]
        [--repeat 10] [--build build]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

import torch
import torchvision
from timing import median_time  # bench/timing.py

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "python"))


def build(name):
    """``(model, args)`` of a benchmark model, seeded."""
    torch.manual_seed(0)
    if name == "resnet18":
        return torchvision.models.resnet18(weights=None).eval(), (torch.randn(1, 3, 224, 224),)
    if name == "vit_b_16":
        vit = torchvision.models.vit_b_16(weights=None)
        torch.nn.init.normal_(vit.heads.head.weight, std=0.02)  # zero-initialised
        return vit.eval(), (torch.randn(1, 3, 224, 224),)
    from amp_mlir.torch.models import GPT, ConvBlockNet
    if name == "gpt":
        return (GPT(vocab=512, block=64, dim=256, heads=8, layers=4).eval(),
                (torch.randint(0, 512, (4, 64)),))
    if name == "convblock":
        return ConvBlockNet(width=32).eval(), (torch.randn(8, 3, 32, 32),)
    raise ValueError(f"unknown model {name!r}")


def torch_child(name, repeat):
    model, args = build(name)
    with torch.no_grad():
        f32 = median_time(lambda: model(*args), repeat)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            amp = median_time(lambda: model(*args), repeat)
    print(f32, amp)


def torch_times(name, repeat):
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--torch-child", name,
                          "--repeat", str(repeat)], capture_output=True, text=True, check=True)
    return [float(v) for v in out.stdout.split()[-2:]]


def rel_l2(a, b):
    return float((a.double() - b.double()).norm() / b.double().norm())


def op_counts(text, amp_opt):
    """``(ops, linalg ops, bf16 ops, f32 ops, casts)``: the import's op count
    (--print-op-stats) and amp-autocast's statistics (graph mode)."""
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(text)
    try:
        stats = subprocess.run([amp_opt, f.name, "--print-op-stats", "-o", os.devnull],
                               capture_output=True, text=True, check=True).stderr
        counts = {m.group(1): int(m.group(2))
                  for m in re.finditer(r"^\s*([\w.]+)\s*,\s*(\d+)\s*$", stats, re.M)}
        amp = subprocess.run([amp_opt, f.name, "--amp-autocast=mode=graph",
                              "-mlir-pass-statistics", "-o", os.devnull],
                             capture_output=True, text=True, check=True).stderr
    finally:
        os.unlink(f.name)

    def stat(key):
        m = re.search(rf"(\d+) {key} ", amp)
        return int(m.group(1)) if m else 0
    ops = sum(counts.values())
    linalg = sum(v for k, v in counts.items() if k.startswith("linalg.")
                 and k != "linalg.yield")
    return ops, linalg, stat("ops-bf16"), stat("ops-f32"), stat("casts-inserted")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", default=["resnet18", "vit_b_16", "gpt",
                                                        "convblock"])
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--torch-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.torch_child:
        return torch_child(args.torch_child, args.repeat)
    import amp_mlir.torch as amp_torch
    amp_opt = os.path.join(args.build, "bin", "amp-opt")
    print("| model | ops imported (linalg) | bf16 ops | f32 ops | casts | err f32 | "
          "err graph | err eager | err torch.autocast | compile s f32 / amp | "
          "ms/call f32 / amp | PyTorch ms f32 / autocast |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name in args.models:
        model, inputs = build(name)
        with torch.no_grad():
            ref = model(*inputs)
            with torch.autocast("cpu", dtype=torch.bfloat16):
                torch_err = rel_l2(model(*inputs), ref)
        t_f32, t_amp = torch_times(name, args.repeat)
        text = amp_torch.import_module(model, inputs, autocast=("cpu", "bfloat16"))
        ops, linalg, bf16, f32, casts = op_counts(text, amp_opt)
        f32_fn = amp_torch.compile(model, inputs)
        graph_fn = amp_torch.compile(model, inputs, autocast=("cpu", "bfloat16"))
        eager_fn = amp_torch.compile(model, inputs, autocast=("cpu", "bfloat16"),
                                     mode="eager")
        errs = [rel_l2(fn(*inputs), ref) for fn in (f32_fn, graph_fn, eager_fn)]
        ms_f32 = 1e3 * median_time(lambda: f32_fn(*inputs), args.repeat)
        ms_amp = 1e3 * median_time(lambda: graph_fn(*inputs), args.repeat)
        print(f"| {name} | {ops} ({linalg}) | {bf16} | {f32} | {casts} | {errs[0]:.1e} | "
              f"{errs[1]:.1e} | {errs[2]:.1e} | {torch_err:.1e} | "
              f"{f32_fn.compile_seconds:.1f} / {graph_fn.compile_seconds:.1f} | "
              f"{ms_f32:.1f} / {ms_amp:.1f} | {1e3 * t_f32:.1f} / {1e3 * t_amp:.1f} |",
              flush=True)
        del f32_fn, graph_fn, eager_fn


if __name__ == "__main__":
    sys.exit(main())
