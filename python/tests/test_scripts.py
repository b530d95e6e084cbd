"""Command-line checks of the project's scripts: bad arguments give a usage
error (exit 2) naming the problem, and the CUDA target without a device is a
one-line error (exit 1), not a traceback."""
import os
import subprocess
import sys

import pytest

import amp_mlir as amp
from amp_mlir import digits

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def run(*args):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True)


@pytest.mark.parametrize("argv, message", [
    (["--epochs", "0"], "--epochs must be at least 1, got 0"),
    (["--seed", "-1"], "--seed must be non-negative, got -1"),
    (["--target", "tpu"], "invalid choice: 'tpu'"),
])
def test_digits_bad_arguments(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        digits.main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_digits_cuda_without_a_device(capsys):
    if amp.cuda_device_count():
        pytest.skip("this machine has a CUDA device")
    assert digits.main(["--target", "cuda", "--epochs", "1"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("digits: amp_mlir: the module was compiled for CUDA")
    assert "Traceback" not in err


@pytest.mark.parametrize("argv, message", [
    (["/nonexistent/model.mlir"], "cannot read the model '/nonexistent/model.mlir'"),
    (["examples/models/squeezenet1_1.mlir", "--build", "/nonexistent"],
     "no amp-opt in '/nonexistent/bin'"),
    (["examples/models/squeezenet1_1.mlir", "--repeat", "0"],
     "--repeat must be at least 1, got 0"),
    (["examples/models/squeezenet1_1.mlir", "--target", "gpu"], "invalid choice: 'gpu'"),
])
def test_model_harness_bad_arguments(argv, message):
    out = run(os.path.join(ROOT, "utils", "model_harness.py"),
              *[os.path.join(ROOT, a) if a.startswith("examples/") else a for a in argv])
    assert out.returncode == 2, out.stderr
    assert message in out.stderr


@pytest.mark.parametrize("argv, message", [
    (["--repeat", "0"], "--repeat must be at least 1, got 0"),
    (["--amp-opt", "/nonexistent/amp-opt"], "--amp-opt '/nonexistent/amp-opt' is not an executable file"),
])
def test_autocast_scaling_bad_arguments(argv, message):
    out = run(os.path.join(ROOT, "bench", "autocast_scaling.py"), *argv)
    assert out.returncode == 2, out.stderr
    assert message in out.stderr


@pytest.mark.parametrize("argv, message", [
    (["--bogus"], "run.sh: unknown argument '--bogus'"),
    (["--bundle"], "run.sh: --bundle needs a directory"),
    (["--budget-s"], "run.sh: --budget-s needs a number of seconds"),
    (["--bundle", "/nonexistent"], "run.sh: /nonexistent/llvm.tar.xz is missing"),
])
def test_gpu_run_bad_arguments(argv, message):
    # Checked before anything is set up or built.
    r = subprocess.run(["bash", os.path.join(ROOT, "bench", "gpu", "run.sh"), *argv],
                       capture_output=True, text=True)
    assert r.returncode == 2
    assert message in r.stderr


def test_gpu_bundle_without_a_build(tmp_path):
    r = subprocess.run(["bash", os.path.join(ROOT, "bench", "gpu", "bundle.sh"),
                        str(tmp_path / "out")], capture_output=True, text=True,
                       env={**os.environ, "AMP_BUILD_DIR": str(tmp_path / "nobuild")})
    assert r.returncode == 2
    assert "bundle.sh: no finished build in" in r.stderr
