"""The CUDA pipeline on training steps built by amp_mlir.training: every
kernel of a transformer-block step (f16 autocast, loss scaling) is PTX that
ptxas accepts for sm_90, and the f16 matmuls (forward and backward) run on
tensor cores. Compile only: CI has no GPU."""
import os
import re
import shutil
import subprocess
import sys

import pytest

import amp_mlir as amp
from amp_mlir.training import Adam, Linear, TransformerBlock, build_train_step

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PTXAS = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas"


@pytest.mark.skipif(not os.path.exists(PTXAS), reason="needs CUDA's ptxas")
def test_transformer_step_compiles_to_valid_ptx(tmp_path):
    text = build_train_step([TransformerBlock(64, heads=4, seq_len=16), Linear(64, 10)],
                            batch=64, in_features=64, classes=10, optimizer=Adam(),
                            autocast=("cuda", "f16"), loss_scaling=True)
    module = amp.Context().parse(text)
    module.run_pipeline("amp-cuda-pipeline{format=isa chip=sm_90}")
    lowered = tmp_path / "step.mlir"
    lowered.write_text(str(module))
    out = subprocess.run([sys.executable, os.path.join(ROOT, "utils", "extract_ptx.py"),
                          str(lowered), str(tmp_path / "ptx"), "--ptxas", PTXAS,
                          "--arch", "sm_90"], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    kernels = [l for l in out.stdout.splitlines() if l.endswith(".ptx")]
    assert len(kernels) > 100
    ptx = "".join(open(k).read() for k in kernels)
    # q/k/v/o, MLP and head matmuls and their gradients (the batched
    # attention matmuls are SIMT kernels).
    assert len(re.findall(r"mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32", ptx)) >= 20


def test_cuda_executable_without_a_device_is_a_python_error():
    """Without a GPU, compiling for CUDA stops with a Python exception (the
    kernels cannot be loaded), not with the CUDA runtime's exit."""
    if amp.cuda_device_count():
        pytest.skip("this machine has a CUDA device")
    from amp_mlir.training import SGD, Trainer
    with pytest.raises(RuntimeError, match="no CUDA device is available"):
        Trainer([Linear(8, 4)], 8, 8, 4, SGD(), autocast=("cuda", "f16"),
                loss_scaling=True, target="cuda")
    with pytest.raises(ValueError, match="target must be 'cpu' or 'cuda'"):
        Trainer([Linear(8, 4)], 8, 8, 4, SGD(), target="tpu")


def test_memory_stats_reset():
    # After a reset the peak is what is held now; both are byte counts. (On a
    # GPU, bench/gpu/measure.py reads each training step's peak through these;
    # here no CUDA code runs, so both are 0.)
    amp.cuda_reset_peak_memory()
    current, peak = amp.cuda_memory_stats()
    assert peak == current >= 0
    if not amp.cuda_device_count():
        assert (current, peak) == (0, 0)


def test_release_cached_memory():
    # Nothing cached without a GPU: a no-op that needs no device. On a GPU,
    # a training step's buffers go back to the runtime's cache when the step
    # ends, so the memory held does not grow from step to step, the steps
    # reusing them still train (digits-train checks the accuracy), and
    # releasing the cache leaves the held memory alone.
    amp.cuda_release_cached_memory()
    if not amp.cuda_device_count():
        return
    import numpy as np
    from amp_mlir.training import SGD, Trainer
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 32)).astype(np.float32)
    y = np.eye(4, dtype=np.float32)[rng.integers(0, 4, 64)]
    t = Trainer([Linear(32, 64), Linear(64, 4)], 64, 32, 4, SGD(0.1),
                autocast=("cuda", "f16"), loss_scaling=True, target="cuda")
    losses = [t.step(x, y)]
    held = amp.cuda_memory_stats()[0]
    losses += [t.step(x, y) for _ in range(3)]
    assert amp.cuda_memory_stats()[0] == held
    amp.cuda_release_cached_memory()
    assert amp.cuda_memory_stats()[0] == held
    losses.append(t.step(x, y))
    assert all(np.isfinite(losses)) and losses[-1] <= losses[0]
