"""Data-parallel training over MPI (docs/Distributed.md): two ranks started
by ``mpirun -np 2`` (mpi_worker.py) against one process, the loss scaler's
skip decision taken together, and failures that end the job instead of
hanging it. Every mpirun has a timeout."""
import os
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest

import amp_mlir as amp
from amp_mlir import _capi, digits
from amp_mlir.training import SGD, Trainer, build_train_step

HERE = os.path.dirname(os.path.abspath(__file__))
MPIRUN = shutil.which("mpirun")
HAVE_MPI = bool(_capi.lib.ampGetMpiLibrary().decode()) and MPIRUN is not None
needs_mpi = pytest.mark.skipif(not HAVE_MPI, reason="no MPI (scripts/setup.sh installs OpenMPI)")
TIMEOUT = 240  # seconds per mpirun: a hang fails the test instead of the suite


def mpirun_command(mode, tmp_path, np_=2, environ=None):
    """The command line and environment that run mpi_worker.py ``mode`` on
    ``np_`` ranks."""
    cmd = [MPIRUN or "mpirun", "-np", str(np_), "--oversubscribe"]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    # OMP_NUM_THREADS=1: the two ranks share the cores.
    env = dict(os.environ if environ is None else environ, OMP_NUM_THREADS="1")
    # Under scripts/sanitize.sh the ASan runtime is preloaded into Python:
    # the ranks keep it (they load the instrumented library), the launcher
    # does not (OpenMPI's mpirun is not ours and not built for ASan; with the
    # preload it once reported a use-after-free of its own).
    preload = env.pop("LD_PRELOAD", None)
    if preload:
        cmd += ["env", f"LD_PRELOAD={preload}"]
    cmd += [sys.executable, os.path.join(HERE, "mpi_worker.py"), mode, str(tmp_path)]
    return cmd, env


def mpirun(mode, tmp_path, np_=2, timeout=TIMEOUT):
    """Runs mpi_worker.py ``mode`` on ``np_`` ranks; returns (returncode,
    output, seconds)."""
    cmd, env = mpirun_command(mode, tmp_path, np_)
    start = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    return proc.returncode, proc.stdout + proc.stderr, time.monotonic() - start


def load(tmp_path, rank):
    return np.load(os.path.join(tmp_path, f"rank{rank}.npz"))


def test_step_text_and_arguments():
    """The data-parallel step: a grid of the ranks, one sum all-reduce per
    gradient (8 in the digits MLP), the max vote on found_inf with loss
    scaling; bad arguments raise."""
    ir = build_train_step(digits.mlp(), 32, 64, 10, SGD(), world_size=2)
    assert "shard.grid @amp_dp(shape = 2)" in ir
    assert ir.count("reduction = sum") == 8 and "reduction = max" not in ir
    scaled = build_train_step(digits.mlp(), 32, 64, 10, SGD(), autocast=("cuda", "f16"),
                              loss_scaling=True, world_size=4)
    assert scaled.count("reduction = max") == 1
    assert "amp.step_if_finite %found_any" in scaled
    assert "update_scale %scale, %tracker, %found_any" in scaled
    assert "shard." not in build_train_step(digits.mlp(), 32, 64, 10, SGD())
    with pytest.raises(ValueError, match="world_size"):
        build_train_step(digits.mlp(), 32, 64, 10, SGD(), world_size=0)
    with pytest.raises(TypeError, match="distributed must be"):
        Trainer(digits.mlp(), 32, 64, 10, SGD(), distributed="yes")


def test_launcher_runs_without_the_sanitizer_preload(tmp_path):
    """A preloaded runtime (scripts/sanitize.sh's ASan) reaches the ranks'
    Python through ``env``, not mpirun itself; without one the command is
    plain."""
    cmd, env = mpirun_command("f32", tmp_path, environ={"LD_PRELOAD": "/x/libasan.so", "A": "1"})
    assert "LD_PRELOAD" not in env and env["A"] == "1" and env["OMP_NUM_THREADS"] == "1"
    at = cmd.index(sys.executable)
    assert cmd[at - 2:at] == ["env", "LD_PRELOAD=/x/libasan.so"]
    assert cmd[:3] == [MPIRUN or "mpirun", "-np", "2"]
    cmd, env = mpirun_command("f32", tmp_path, environ={"A": "1"})
    assert "env" not in cmd and "LD_PRELOAD" not in env


@needs_mpi
def test_lowered_step_calls_mpi_on_the_world():
    """One bucket for the 8 gradients of the MLP, one flag all-reduce, both on
    MPI_COMM_WORLD with OpenMPI's handles; no communicator split."""
    ir = build_train_step(digits.mlp(), 32, 64, 10, SGD(), autocast=("cuda", "f16"),
                          loss_scaling=True, world_size=2)
    module = amp.Context().parse(ir)
    module.run_pipeline("amp-cpu-pipeline")
    text = str(module)
    assert text.count("llvm.call @MPI_Allreduce") == 2
    assert "MPI_Comm_split" not in text
    if _capi.lib.ampGetMpiImplementation().decode() == "OpenMPI":
        assert "@ompi_mpi_comm_world" in text and "@ompi_mpi_op_max" in text
        assert "@ompi_mpi_op_sum" in text and "@ompi_mpi_sum" not in text


@needs_mpi
def test_f32_two_ranks_equal_one_process(tmp_path):
    """Two ranks on halves of each batch of 64 end with the parameters of one
    process on the whole batches, after 10 steps."""
    rc, out, _ = mpirun("f32", tmp_path)
    assert rc == 0, out
    r0, r1 = load(tmp_path, 0), load(tmp_path, 1)
    assert int(r0["size"]) == 2
    np.testing.assert_array_equal(r0["params"], r1["params"])  # replicas agree bitwise

    sys.path.insert(0, HERE)
    import mpi_worker
    single = Trainer(digits.mlp(), 64, 64, 10, SGD(lr=0.05, momentum=0.9), seed=0)
    for x, y in mpi_worker.batches(mpi_worker.STEPS):
        single.step(x, y)
    ref = np.concatenate([p.ravel() for p in single.params])
    got = r0["params"][-1]
    rel = np.linalg.norm(got - ref) / np.linalg.norm(ref)
    print(f"relative difference of the parameters: {rel:.3g}")
    assert rel <= 1e-5, rel
    # The parameters moved: the comparison is not of two initializations.
    init = Trainer(digits.mlp(), 64, 64, 10, SGD(), seed=0).params
    assert np.linalg.norm(ref - np.concatenate([p.ravel() for p in init])) > 1e-2


@needs_mpi
def test_torch_train_step_two_ranks_equal_pytorch(tmp_path):
    """amp_mlir.torch.compile_train_step(distributed=...): two ranks on
    halves of each batch end with the weights that PyTorch's own SGD reaches
    on the whole batches."""
    rc, out, _ = mpirun("torch", tmp_path)
    assert rc == 0, out
    r0, r1 = load(tmp_path, 0), load(tmp_path, 1)
    np.testing.assert_array_equal(r0["params"], r1["params"])
    import torch
    sys.path.insert(0, HERE)
    import mpi_worker
    model, opt = mpi_worker.torch_model()
    for x, y in mpi_worker.batches(mpi_worker.STEPS):
        opt.zero_grad()
        mpi_worker.torch_loss(model, torch.from_numpy(x), torch.from_numpy(y)).backward()
        opt.step()
    ref = np.concatenate([p.detach().numpy().ravel() for p in model.parameters()])
    rel = np.linalg.norm(r0["params"][-1] - ref) / np.linalg.norm(ref)
    print(f"relative difference of the parameters: {rel:.3g}")
    assert rel <= 1e-5, rel


@needs_mpi
def test_inf_on_one_rank_skips_everywhere(tmp_path):
    """autocast(cuda, f16) with loss scaling; rank 1's batch has an inf at
    steps 3 and 7: both ranks skip those steps and halve the scale, and the
    parameters are bit-identical across the ranks after every step."""
    rc, out, _ = mpirun("inf", tmp_path)
    assert rc == 0, out
    r0, r1 = load(tmp_path, 0), load(tmp_path, 1)
    np.testing.assert_array_equal(r0["params"], r1["params"])
    np.testing.assert_array_equal(r0["scales"], r1["scales"])
    expected, scale = [], 65536.0
    for step in range(10):
        if step in (3, 7):
            scale /= 2
        expected.append(scale)
    assert list(r0["scales"]) == expected
    assert int(r0["skipped"]) == int(r1["skipped"]) == 2
    p = r0["params"]
    for step in (3, 7):  # skipped: unchanged, bit for bit
        np.testing.assert_array_equal(p[step], p[step - 1])
    for step in (1, 2, 4, 8):  # taken: changed
        assert not np.array_equal(p[step], p[step - 1])
    assert np.all(np.isfinite(r0["losses"]))  # rank 0's own batches are finite


@needs_mpi
def test_rank_that_dies_ends_the_job(tmp_path):
    """Rank 1 exits in the middle of training; rank 0 waits in an all-reduce
    that mpirun then ends: a non-zero exit, no hang."""
    rc, out, seconds = mpirun("die", tmp_path, timeout=120)
    assert rc != 0
    assert "exited" in out or "abort" in out.lower(), out
    assert not os.path.exists(os.path.join(tmp_path, "rank0.npz"))


@needs_mpi
def test_world_size_mismatch_is_an_error(tmp_path):
    rc, out, _ = mpirun("size3", tmp_path, timeout=120)
    assert rc != 0
    assert "expects 3 data-parallel processes, but mpirun started 2" in out, out


@needs_mpi
def test_ranks_with_different_steps_are_an_error(tmp_path):
    rc, out, _ = mpirun("mismatch", tmp_path, timeout=120)
    assert rc != 0
    assert "different training steps" in out, out
