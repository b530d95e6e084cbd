#!/usr/bin/env python3
"""GPU measurements of amp-cuda-pipeline, all ratios from one run.

- GEMM 4096^3 and 8192^3, f16 and bf16 inputs, f32 accumulation: our
  codegen path (gemm=codegen) and our cuBLAS path (gemm=cublas) against
  cuBLAS called directly (torch.matmul on f16/bf16 CUDA tensors), TFLOP/s.
  Each of ours is an MLIR function that runs the matmul `iters` times on
  device-resident (managed) buffers it allocates itself, timed from Python.
- An elementwise f32 -> f16 -> f32 cast kernel over 2^28 elements against a
  device-to-device copy (torch), GB/s.
- f32 row sums (4096 x 4096 -> 4096) and column sums (1024 x 4096 -> 4096,
  a bias gradient's shape) by amp-gpu-reduction-kernels against torch.sum,
  GB/s read.
- MLP and transformer-block training steps (amp_mlir.training, target cuda,
  weights and batch resident on the device, gemm=codegen and gemm=cublas):
  f16 AMP with loss scaling vs f32, steps/s; PyTorch eager AMP
  (torch.autocast + GradScaler) and torch.compile for the same models; and
  the peak device memory of each (ours: amp.cuda_memory_stats, the runtime's
  allocations; PyTorch: torch.cuda.max_memory_allocated).

Without a CUDA device it compiles every benchmark module for sm_90, checks
the PTX with ptxas, and exits 0 after saying that nothing was measured.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import amp_mlir as amp  # noqa: E402
from amp_mlir.training import (GELU, Linear, ReLU, SGD, Trainer,  # noqa: E402
                               TransformerBlock, build_train_step)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
from torch_steps import batch_data, timed, torch_steps  # noqa: E402


def loop_bench(iters, setup, init, acc_type, body, yielded, at):
    """@bench() -> f32: the ops of `setup` (which define `init`), then
    `iters` iterations of `body` on the loop-carried `%acc` (of `acc_type`,
    starting from `init`) yielding `yielded`; returns the element `at` of
    the last (so that nothing is dead)."""
    return f"""
func.func @bench() -> f32 {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %iters = arith.constant {iters} : index
{setup}
  %r = scf.for %i = %c0 to %iters step %c1 iter_args(%acc = {init}) -> ({acc_type}) {{
{body}
    scf.yield {yielded} : {acc_type}
  }}
  %v = tensor.extract %r[{at}] : {acc_type}
  return %v : f32
}}
"""


def gemm_module(n, dtype, iters):
    """@bench(): `iters` n^3 matmuls with `dtype` inputs and f32 outputs on
    buffers allocated (and filled) inside, so only kernels are timed."""
    t = f"tensor<{n}x{n}x{dtype}>"
    o = f"tensor<{n}x{n}xf32>"
    setup = f"""  %half = arith.constant 0.5 : {dtype}
  %zero = arith.constant 0.0 : f32
  %ea = tensor.empty() : {t}
  %a = linalg.fill ins(%half : {dtype}) outs(%ea : {t}) -> {t}
  %eo = tensor.empty() : {o}
  %init = linalg.fill ins(%zero : f32) outs(%eo : {o}) -> {o}"""
    body = f"    %m = linalg.matmul ins(%a, %a : {t}, {t}) outs(%acc : {o}) -> {o}"
    return loop_bench(iters, setup, "%init", o, body, "%m", "%c0, %c0")


def cast_module(n, iters):
    t32, t16 = f"tensor<{n}xf32>", f"tensor<{n}xf16>"
    setup = f"""  %one = arith.constant 1.5 : f32
  %e = tensor.empty() : {t32}
  %x = linalg.fill ins(%one : f32) outs(%e : {t32}) -> {t32}"""
    body = f"""    %h = arith.truncf %acc : {t32} to {t16}
    %w = arith.extf %h : {t16} to {t32}"""
    return loop_bench(iters, setup, "%x", t32, body, "%w", "%c0")


def reduce_module(rows, cols, dim, iters):
    """@bench(): `iters` f32 sums of a rows x cols buffer over dimension
    `dim` (1: row sums, amp-gpu-reduction-kernels' row form; 0: column sums,
    a bias gradient's form), each added to the last (loop-carried), so only
    the reduction kernels are timed."""
    t = f"tensor<{rows}x{cols}xf32>"
    o = f"tensor<{rows if dim == 1 else cols}xf32>"
    setup = f"""  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0.0 : f32
  %ex = tensor.empty() : {t}
  %x = linalg.fill ins(%one : f32) outs(%ex : {t}) -> {t}
  %eo = tensor.empty() : {o}
  %init = linalg.fill ins(%zero : f32) outs(%eo : {o}) -> {o}"""
    body = f"""    %s = linalg.reduce ins(%x : {t}) outs(%acc : {o}) dimensions = [{dim}]
      (%in: f32, %a: f32) {{
        %v = arith.addf %in, %a : f32
        linalg.yield %v : f32
      }}"""
    return loop_bench(iters, setup, "%init", o, body, "%s", "%c0")


REDUCTIONS = [(4096, 4096, 1, "row sums 4096x4096 -> 4096"),
              (1024, 4096, 0, "column sums 1024x4096 -> 4096")]


def cublas_gemm_ex(n, dtype, iters):
    """TFLOP/s of `iters` n^3 cublasGemmEx calls with the types of our cuBLAS
    path (f16 or bf16 inputs, f32 output, CUBLAS_COMPUTE_32F), called
    through ctypes on torch's buffers and stream: the like-for-like
    baseline (torch.matmul on f16 writes an f16 output)."""
    import ctypes
    import torch
    lib = None
    for name in ("libcublas.so.13", "libcublas.so.12", "/usr/local/cuda/lib64/libcublas.so.13"):
        try:
            lib = ctypes.CDLL(name)
            break
        except OSError:
            continue
    if lib is None:
        raise OSError("no libcublas.so.13 or .12")
    handle = ctypes.c_void_p()
    if lib.cublasCreate_v2(ctypes.byref(handle)) != 0:
        raise RuntimeError("cublasCreate_v2 failed")
    lib.cublasSetStream_v2(handle, ctypes.c_void_p(torch.cuda.current_stream().cuda_stream))
    tdt, cuda_type = {"f16": (torch.float16, 2), "bf16": (torch.bfloat16, 14)}[dtype]
    a = torch.full((n, n), 0.5, dtype=tdt, device="cuda")
    c = torch.zeros((n, n), dtype=torch.float32, device="cuda")
    alpha, beta = ctypes.c_float(1.0), ctypes.c_float(0.0)
    lib.cublasGemmEx.restype = ctypes.c_int

    def run():
        for _ in range(iters):
            status = lib.cublasGemmEx(
                handle, 0, 0, n, n, n, ctypes.byref(alpha),
                ctypes.c_void_p(a.data_ptr()), cuda_type, n,
                ctypes.c_void_p(a.data_ptr()), cuda_type, n, ctypes.byref(beta),
                ctypes.c_void_p(c.data_ptr()), 0, n, 68, -1)  # CUDA_R_32F, COMPUTE_32F, DEFAULT
            if status != 0:
                raise RuntimeError(f"cublasGemmEx returned {status}")
        torch.cuda.synchronize()
    try:
        return 2.0 * n ** 3 * iters / timed(run) / 1e12
    finally:
        lib.cublasDestroy_v2(handle)


def check_ptx(text, pipeline, label):
    module = amp.Context().parse(text)
    module.run_pipeline(pipeline.replace("}", " format=isa}") if "{" in pipeline
                        else pipeline + "{format=isa}")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m.mlir")
        open(path, "w").write(str(module))
        ptxas = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"
        r = subprocess.run([sys.executable, os.path.join(ROOT, "utils", "extract_ptx.py"),
                            path, os.path.join(d, "ptx"), "--ptxas", ptxas, "--arch", "sm_90"],
                           capture_output=True, text=True)
        kernels = r.stdout.count(".ptx\n")
        texts = [open(p).read() for p in r.stdout.split() if p.endswith(".ptx")]
        mma = sum(len(re.findall(r"mma\.sync", t)) for t in texts)
        # A k loop that keeps its accumulators in registers stores nothing
        # between its mma.sync and the branch back.
        in_registers = sum(1 for t in texts if "mma.sync" in t and not re.search(
            r"mma\.sync[^$]*?st\.global[^$]*?\bbra\b", t))
        status = "ok" if r.returncode == 0 else "FAILED: " + r.stderr.strip()[-300:]
        print(f"  {label}: {kernels} kernels, {mma} mma.sync "
              f"({in_registers} with accumulators in registers), ptxas sm_90 {status}")
        return r.returncode == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="4096 only, fewer iterations")
    ap.add_argument("--budget-s", type=float, default=0,
                    help="skip the measurements that would start later than this many "
                         "seconds after the first (0: no limit)")
    args = ap.parse_args()
    sizes = [4096] if args.quick else [4096, 8192]
    models = {
        "mlp": (lambda: [Linear(1024, 4096), GELU(), Linear(4096, 4096), ReLU(),
                         Linear(4096, 16)], 1024, 1024, 16),
        "transformer_block": (lambda: [TransformerBlock(1024, heads=16, seq_len=256),
                                       Linear(1024, 16)], 8 * 256, 1024, 16),
    }

    devices = amp.cuda_device_count()
    if not devices:
        print("no CUDA device: compiling the benchmark modules for sm_90 and checking "
              "their PTX; nothing is measured")
        ok = True
        for n in sizes:
            for dt in ("f16", "bf16"):
                for gemm in ("codegen", "cublas"):
                    ok &= check_ptx(gemm_module(n, dt, 2), f"amp-cuda-pipeline{{gemm={gemm}}}",
                                    f"GEMM {n}^3 {dt} gemm={gemm}")
        ok &= check_ptx(cast_module(1 << 20, 2), "amp-cuda-pipeline", "cast f32->f16->f32")
        for rows, cols, dim, label in REDUCTIONS:
            ok &= check_ptx(reduce_module(rows, cols, dim, 2), "amp-cuda-pipeline", label)
        for name, (make, batch, fin, classes) in models.items():
            for ac in (None, ("cuda", "f16")):
                text = build_train_step(make(), batch, fin, classes, SGD(), autocast=ac,
                                        loss_scaling=ac is not None)
                for gemm in ("codegen", "cublas"):
                    ok &= check_ptx(text, f"amp-cuda-pipeline{{gemm={gemm}}}",
                                    f"{name} step {'f16 AMP' if ac else 'f32'} gemm={gemm}")
        return 0 if ok else 1

    try:
        import torch
    except ImportError:
        print("measure.py: a CUDA device is present but PyTorch is not importable; the "
              "baselines (cuBLAS direct, device copy, PyTorch steps) need it: install "
              "torch for this python (build/venv sees the system packages)", file=sys.stderr)
        return 2
    print(f"device: {torch.cuda.get_device_name(0)}")
    t_start = time.perf_counter()
    failures = []

    def stage(label, fn):
        """Runs one measurement; a failure is reported and the others go on.
        Stages that would start after --budget-s are skipped, saying so."""
        if args.budget_s and time.perf_counter() - t_start > args.budget_s:
            print(f"  {label}: skipped (past --budget-s {args.budget_s:.0f} s)")
            return None
        try:
            return fn()
        except Exception as e:  # noqa: BLE001 (reported, counted as a failure)
            failures.append(label)
            print(f"  {label}: FAILED: {type(e).__name__}: {str(e)[-500:]}")
            return None

    iters = 5 if args.quick else 20
    print("GEMM (TFLOP/s)       | ours codegen | ours cuBLAS | cuBLAS direct | codegen/direct | cublas-path/direct")
    for n in sizes:
        for dt, tdt in (("f16", torch.float16), ("bf16", torch.bfloat16)):
            def gemm_row():
                flops = 2.0 * n ** 3 * iters
                res = {}
                for gemm in ("codegen", "cublas"):
                    # One product first: a path slower than 1 s per product is
                    # timed on that alone rather than on `iters` of them.
                    pipeline = f"amp-cuda-pipeline{{gemm={gemm}}}"
                    one = amp.compile(gemm_module(n, dt, 1), pipeline=pipeline)
                    t1 = timed(one.bench, repeat=1)
                    if t1 > 1.0:
                        res[gemm] = 2.0 * n ** 3 / t1 / 1e12
                        continue
                    exe = amp.compile(gemm_module(n, dt, iters), pipeline=pipeline)
                    res[gemm] = flops / timed(exe.bench) / 1e12
                a = torch.full((n, n), 0.5, dtype=tdt, device="cuda")

                def direct():
                    for _ in range(iters):
                        torch.matmul(a, a)
                    torch.cuda.synchronize()
                res["direct"] = flops / timed(direct) / 1e12
                try:
                    gemm_ex = cublas_gemm_ex(n, dt, iters)
                    like = (f"{gemm_ex:.1f} TFLOP/s; codegen {res['codegen'] / gemm_ex:.2f}x, "
                            f"cublas path {res['cublas'] / gemm_ex:.2f}x")
                except Exception as e:  # noqa: BLE001 (the torch baseline still stands)
                    like = f"unavailable: {type(e).__name__}: {e}"
                print(f"{n}^3 {dt:<5}           | {res['codegen']:12.1f} | {res['cublas']:11.1f} | "
                      f"{res['direct']:13.1f} | {res['codegen'] / res['direct']:14.2f} | "
                      f"{res['cublas'] / res['direct']:.2f}")
                print(f"    cublasGemmEx with our types (f32 output): {like}")
            stage(f"GEMM {n}^3 {dt}", gemm_row)

    def cast_row():
        n, reps = 1 << 28, 10
        exe = amp.compile(cast_module(n, reps), pipeline="amp-cuda-pipeline")
        ours = reps * n * (4 + 2 + 2 + 4) / timed(exe.bench) / 1e9
        x = torch.empty(n, dtype=torch.float32, device="cuda")
        y = torch.empty_like(x)

        def copy():
            for _ in range(reps):
                y.copy_(x)
            torch.cuda.synchronize()
        d2d = reps * n * 8 / timed(copy) / 1e9
        print(f"cast f32->f16->f32 over 2^28: ours {ours:.0f} GB/s, D2D copy {d2d:.0f} GB/s, "
              f"ratio {ours / d2d:.2f}")
    stage("cast kernel", cast_row)

    def reduction_row(rows, cols, dim, label):
        reps = 20
        exe = amp.compile(reduce_module(rows, cols, dim, reps), pipeline="amp-cuda-pipeline")
        ours = reps * rows * cols * 4 / timed(exe.bench) / 1e9
        x = torch.ones((rows, cols), dtype=torch.float32, device="cuda")
        out = torch.empty(rows if dim == 1 else cols, dtype=torch.float32, device="cuda")

        def torch_sum():
            for _ in range(reps):
                torch.sum(x, dim=dim, out=out)
            torch.cuda.synchronize()
        theirs = reps * rows * cols * 4 / timed(torch_sum) / 1e9
        print(f"{label}: ours {ours:.0f} GB/s read, torch.sum {theirs:.0f} GB/s, "
              f"ratio {ours / theirs:.2f}")
    for rows, cols, dim, label in REDUCTIONS:
        stage(label, lambda: reduction_row(rows, cols, dim, label))

    # Ours: the runtime's allocations (mgpuMemAlloc, managed memory
    # included) during the timed steps; PyTorch: max_memory_allocated. Both
    # train on a batch already on the device, weights resident (ours: device
    # arrays through @train_step__amp_managed).
    mib = 1 << 20
    print("training step, steps/s (peak MiB) | ours f32 | ours f16 AMP | AMP/f32 | "
          "torch eager f32 | torch eager AMP | ours AMP / torch eager AMP")
    for name, (make, batch, fin, classes) in models.items():
        x, yv = batch_data(batch, fin, classes)

        def step_row():
            th = torch_steps(name, batch, fin, classes, x, yv, compiled=False)
            dx, dy = amp.to_device(x), amp.to_device(yv)
            for gemm in ("codegen", "cublas"):
                ours = {}
                for label, ac in (("f32", None), ("amp", ("cuda", "f16"))):
                    t = Trainer(make(), batch, fin, classes, SGD(1e-3, 0.9), autocast=ac,
                                loss_scaling=ac is not None, target="cuda", gemm=gemm)
                    t.step(dx, dy)  # compile and load before the peak is reset
                    amp.cuda_reset_peak_memory()
                    rate = 1.0 / timed(lambda: t.step(dx, dy), repeat=5)
                    ours[label] = (rate, amp.cuda_memory_stats()[1] / mib)
                f32, amp16 = ours["f32"], ours["amp"]
                print(f"{name + ' gemm=' + gemm:>33} | {f32[0]:5.1f} ({f32[1]:.0f}) | "
                      f"{amp16[0]:5.1f} ({amp16[1]:.0f}) | {amp16[0] / f32[0]:7.2f} | "
                      f"{th['eager_f32'][0]:6.1f} ({th['eager_f32'][1] / mib:.0f}) | "
                      f"{th['eager_amp'][0]:6.1f} ({th['eager_amp'][1] / mib:.0f}) | "
                      f"{amp16[0] / th['eager_amp'][0]:.2f}")
        stage(f"{name} step", step_row)

    # torch.compile last: its first call compiles for tens of seconds.
    print("torch.compile AMP (steps/s, peak MiB)")
    for name, (_, batch, fin, classes) in models.items():
        def compiled_row():
            # In a process of its own: this one has loaded LLVM 22 into its
            # global symbol namespace (libAmpMLIRCAPI.so), and Triton's
            # LLVM, which torch.compile uses, crashes against it.
            r = subprocess.run([sys.executable, os.path.join(HERE, "torch_steps.py"), name,
                                str(batch), str(fin), str(classes), "--compiled"],
                               capture_output=True, text=True)
            if r.returncode != 0:
                raise RuntimeError(f"torch_steps.py exited {r.returncode}: {r.stderr[-500:]}")
            rate, peak = json.loads(r.stdout.strip().splitlines()[-1])["compile_amp"]
            print(f"{name:>23} | {rate:8.1f} | {peak / mib:.0f}")
        stage(f"{name} torch.compile", compiled_row)
    if failures:
        print(f"measure.py: failed: {', '.join(failures)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
