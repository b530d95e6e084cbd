#!/usr/bin/env python3
"""CPU inference and GEMM against PyTorch, measured in one run on this machine.

Models are PyTorch modules exported by torch-mlir with their parameters as
function arguments (torch.export + run_decompositions + stateless_fx_import,
as /work/scratch/torch/FINDINGS.md 2b): a transformer block (LayerNorm,
nn.MultiheadAttention, GELU MLP; 4x128x256), LayerNorm+Linear (4x128x256 ->
1024), nn.MultiheadAttention alone, and torchvision's resnet18 (1x3x224x224,
random weights). Each runs through amp_mlir.compile with
amp-cpu-pipeline{autocast=0} (own f32) and with the export's @forward
decorated #amp.autocast<device_type = cpu> (autocast, bf16), each with
gemm=codegen and gemm=onednn; PyTorch runs eager f32 and
torch.autocast("cpu", torch.bfloat16). Printed: the median time per call,
the ratios (PyTorch f32 / ours f32: above 1 means faster than PyTorch;
own f32 / own autocast), the peak bytes of the JIT's buffers per call
(amp.cpu_memory_stats) and the relative L2 error against PyTorch f32. Then
GEMM GFLOP/s: torch.matmul f32 and bf16, ours f32 and bf16 (f32
accumulation), on both paths, and the codegen bf16 GEMM forced onto the FMA
path (cpu-features=generic); the codegen bf16 column uses the host's
features (vdpbf16ps on an AVX512-BF16 CPU), with its ratios to own f32 and
to torch bf16. PyTorch is timed in a child process started
by this run (in one process, the two OpenMP runtimes' spinning threads slow
each other down).

Needs torch, torchvision and torch-mlir in the interpreter (the project's
venv once they are installed there, or /work/scratch/torch/venv-full):
    python bench/cpu_models.py [--models block lnlin mha resnet18]
        [--gemm 1024 2048] [--repeat 10]
Any import order works (amp's LLVM stays local: docs/TorchFrontEnd.md).
"""
import argparse
import os
import re
import subprocess
import sys

import numpy as np
import torch
import torch.nn as nn
from torch_mlir.fx import get_decomposition_table, stateless_fx_import
from timing import median_time  # bench/timing.py

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import amp_mlir as amp  # noqa: E402  (after the path is set)


class Block(nn.Module):
    def __init__(self, d=256, heads=4):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x):
        y = self.ln1(x)
        x = x + self.attn(y, y, y, need_weights=False)[0]
        return x + self.fc2(nn.functional.gelu(self.fc1(self.ln2(x))))


class LnLinear(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln, self.fc = nn.LayerNorm(256), nn.Linear(256, 1024)

    def forward(self, x):
        return self.fc(self.ln(x))


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(256, 4, batch_first=True)

    def forward(self, x):
        return self.attn(x, x, x, need_weights=False)[0]


def build(name):
    torch.manual_seed(0)
    if name == "block":
        return Block().eval(), torch.randn(4, 128, 256)
    if name == "lnlin":
        return LnLinear().eval(), torch.randn(4, 128, 256)
    if name == "mha":
        return Attention().eval(), torch.randn(4, 128, 256)
    if name == "resnet18":
        import torchvision
        return torchvision.models.resnet18(weights=None).eval(), torch.randn(1, 3, 224, 224)
    raise SystemExit(f"unknown model {name}")


def export(model, x):
    """MLIR text of @forward(params..., buffers..., x) and the argument arrays."""
    prog = torch.export.export(model, (x,), strict=False).run_decompositions(
        get_decomposition_table())
    text = str(stateless_fx_import(prog.graph_module, output_type="linalg-on-tensors",
                                   model_name="forward"))
    state = dict(model.named_parameters())
    state.update(dict(model.named_buffers()))
    args = []
    for spec in prog.graph_signature.input_specs:
        if spec.kind.name == "USER_INPUT":
            args.append(x.numpy())
        else:
            args.append(state[spec.target].detach().numpy())
    return text, args


def autocast_text(text):
    """The export with @forward decorated as a cpu autocast region (bf16)."""
    return re.sub(r"(func\.func @forward\([^{]*\)\s*->\s*[^{]*?)\s*\{",
                  r"\1 attributes {amp.autocast = #amp.autocast<device_type = cpu>} {",
                  text, count=1)


def torch_times(what, repeat):
    """PyTorch's median times (f32, bf16 autocast or bf16 tensors) for a model
    name or 'gemm:N', measured in a child process: in this one, the OpenMP
    threads of amp's JIT (LLVM's libomp) and of torch (its own libgomp) spin
    after their parallel regions and slow each other down (torch's
    LayerNorm+Linear took 80 ms here instead of 3)."""
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--torch-child", what,
                          "--repeat", str(repeat)], capture_output=True, text=True, check=True)
    return [float(v) for v in out.stdout.split()[-2:]]


def torch_child(what, repeat):
    with torch.no_grad():
        if what.startswith("gemm:"):
            n = int(what[5:])
            a, b = torch.randn(n, n), torch.randn(n, n)
            a16, b16 = a.bfloat16(), b.bfloat16()
            print(median_time(lambda: a @ b, repeat), median_time(lambda: a16 @ b16, repeat))
            return
        model, x = build(what)
        t32 = median_time(lambda: model(x), repeat)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            t16 = median_time(lambda: model(x), repeat)
        print(t32, t16)


def rel_l2(a, ref):
    a, ref = np.asarray(a, np.float64), np.asarray(ref, np.float64)
    return float(np.linalg.norm(a - ref) / max(np.linalg.norm(ref), 1e-30))


def ours(text, args, pipeline, repeat):
    exe = amp.compile(text, pipeline=pipeline)
    out = exe.invoke("forward", *args)
    amp.cpu_reset_peak_memory()
    base, _ = amp.cpu_memory_stats()
    out = exe.invoke("forward", *args)
    peak = amp.cpu_memory_stats()[1] - base
    t = median_time(lambda: exe.invoke("forward", *args), repeat)
    return t, peak, np.asarray(out, np.float32)


def bench_models(names, repeat):
    print(f"{'model':>9} {'path':>7} | {'torch f32':>9} {'torch bf16':>10} | {'ours f32':>9} "
          f"{'ours amp':>9} | {'torch/ours f32':>14} {'own f32/amp':>11} | "
          f"{'peak f32':>9} {'peak amp':>9} {'amp/f32':>7} | {'err f32':>8} {'err amp':>8}")
    for name in names:
        model, x = build(name)
        text, args = export(model, x)
        with torch.no_grad():
            ref = model(x).numpy()
        t_torch, t_torch_bf16 = torch_times(name, repeat)
        for gemm in ("codegen", "onednn"):
            t32, m32, y32 = ours(text, args, f"amp-cpu-pipeline{{autocast=0 gemm={gemm}}}", repeat)
            tam, mam, yam = ours(autocast_text(text), args,
                                 f"amp-cpu-pipeline{{gemm={gemm}}}", repeat)
            print(f"{name:>9} {gemm:>7} | {1e3 * t_torch:7.2f}ms {1e3 * t_torch_bf16:8.2f}ms | "
                  f"{1e3 * t32:7.2f}ms {1e3 * tam:7.2f}ms | {t_torch / t32:13.2f}x "
                  f"{t32 / tam:10.2f}x | {m32 / 2**20:7.1f}Mi {mam / 2**20:7.1f}Mi "
                  f"{mam / max(m32, 1):6.2f}x | {rel_l2(y32, ref):8.1e} {rel_l2(yam, ref):8.1e}",
                  flush=True)


GEMM = """
func.func @mm(%a: tensor<{n}x{n}x{t}>, %b: tensor<{n}x{n}x{t}>) -> tensor<{n}x{n}xf32> {{
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{n}x{n}xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<{n}x{n}xf32>) -> tensor<{n}x{n}xf32>
  %r = linalg.matmul ins(%a, %b : tensor<{n}x{n}x{t}>, tensor<{n}x{n}x{t}>) outs(%c : tensor<{n}x{n}xf32>) -> tensor<{n}x{n}xf32>
  return %r : tensor<{n}x{n}xf32>
}}
"""


def bench_gemm(sizes, repeat):
    bf16 = amp.numpy_dtype("bf16")
    print(f"\n{'N':>5} | {'torch f32':>9} {'torch bf16':>10} | {'codegen f32':>11} {'codegen bf16':>12} "
          f"{'bf16 generic':>12} {'onednn f32':>10} {'onednn bf16':>11} | best f32/torch f32, "
          f"best bf16/own best f32, best bf16/torch bf16 | codegen bf16/codegen f32, "
          f"codegen bf16/torch bf16 (GFLOP/s; codegen bf16 uses the host's features: "
          f"vdpbf16ps with AVX512-BF16; bf16 generic forces the FMA path)")
    for n in sizes:
        flops = 2.0 * n ** 3
        rng = np.random.default_rng(0)
        a = rng.standard_normal((n, n)).astype(np.float32)
        b = rng.standard_normal((n, n)).astype(np.float32)
        r = max(2, repeat // max(1, n // 1024) ** 2)
        t32, t16 = torch_times(f"gemm:{n}", r)
        g = {"torch f32": flops / t32, "torch bf16": flops / t16}
        a16, b16 = a.astype(bf16), b.astype(bf16)
        for gemm in ("codegen", "onednn"):
            for t, (x, y) in (("f32", (a, b)), ("bf16", (a16, b16))):
                exe = amp.compile(GEMM.format(n=n, t=t),
                                  pipeline=f"amp-cpu-pipeline{{autocast=0 gemm={gemm}}}")
                g[f"{gemm} {t}"] = flops / median_time(lambda: exe.invoke("mm", x, y), r)
        exe = amp.compile(GEMM.format(n=n, t="bf16"),
                          pipeline="amp-cpu-pipeline{autocast=0 cpu-features=generic}")
        g["generic bf16"] = flops / median_time(lambda: exe.invoke("mm", a16, b16), r)
        best32 = max(g["codegen f32"], g["onednn f32"])
        best16 = max(g["codegen bf16"], g["onednn bf16"])
        print(f"{n:>5} | {g['torch f32'] / 1e9:9.1f} {g['torch bf16'] / 1e9:10.1f} | "
              f"{g['codegen f32'] / 1e9:11.1f} {g['codegen bf16'] / 1e9:12.1f} "
              f"{g['generic bf16'] / 1e9:12.1f} "
              f"{g['onednn f32'] / 1e9:10.1f} {g['onednn bf16'] / 1e9:11.1f} | "
              f"{best32 / g['torch f32']:.2f}x, {best16 / best32:.2f}x, "
              f"{best16 / g['torch bf16']:.2f}x | "
              f"{g['codegen bf16'] / g['codegen f32']:.2f}x, "
              f"{g['codegen bf16'] / g['torch bf16']:.2f}x", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="*", default=["lnlin", "mha", "block", "resnet18"])
    parser.add_argument("--gemm", nargs="*", type=int, default=[1024, 2048])
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--torch-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.torch_child:
        return torch_child(args.torch_child, args.repeat)
    flags = open("/proc/cpuinfo").read().split("flags")[1].split("\n")[0].split()
    model_name = [l for l in open("/proc/cpuinfo").read().splitlines()
                  if l.startswith("model name")][0].split(":", 1)[1].strip()
    seen = [f for f in ("avx2", "avx512f", "avx512_bf16", "avx512_fp16", "amx_tile", "amx_bf16")
            if f in flags]
    print(f"CPU: {model_name}; {' '.join(seen)}; {os.cpu_count()} hardware threads; "
          f"torch {torch.__version__} ({torch.get_num_threads()} threads); "
          f"oneDNN in the amp runtime: {amp.cpu_has_onednn()}")
    if args.models:
        bench_models(args.models, args.repeat)
    if args.gemm:
        bench_gemm(args.gemm, args.repeat)


if __name__ == "__main__":
    main()
