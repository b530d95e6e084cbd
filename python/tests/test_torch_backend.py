"""amp_mlir.torch.backend (torch.compile) and the command line
(python -m amp_mlir.torch) of the PyTorch front end (issue 26)."""
import os
import subprocess
import sys
import warnings

import pytest
import torch

import amp_mlir.torch as amp_torch

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PYTHON_DIR = os.path.join(ROOT, "python")


def rel_l2(a, b):
    return float((a.double() - b.double()).norm() / b.double().norm())


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = torch.nn.Linear(16, 32), torch.nn.Linear(32, 8)

    def forward(self, x):
        return self.fc2(torch.nn.functional.gelu(self.fc1(x))).softmax(-1)


class WithErfinv(Mlp):
    def forward(self, x):
        return torch.erfinv(torch.tanh(super().forward(x)))


def check_backend(model, x):
    """torch.compile(model) through amp's backend, f32 and bf16 autocast,
    against the eager model; no fallback warning."""
    torch._dynamo.reset()
    for autocast, tol in ((None, 1e-6), (("cpu", "bfloat16"), 2e-2)):
        compiled = torch.compile(model, backend=amp_torch.backend(autocast=autocast))
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("error", amp_torch.AmpBackendWarning)
            y = compiled(x)
            want = model(x)
        err = rel_l2(y, want)
        assert err < tol, (autocast, err)
        if autocast:
            assert err > 0  # bf16 ran
        torch._dynamo.reset()


def test_backend_compiles_and_matches():
    torch.manual_seed(0)
    check_backend(Mlp().eval(), torch.randn(4, 16))


def test_backend_compiles_convolutions():
    # A Conv2d graph: tracing it with fake tensors inside the backend left a
    # guard on a name Dynamo does not know ("input0"), and torch.compile
    # failed with an AssertionError, f32 and bf16 alike.
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 17, 3, 2, 1), torch.nn.ReLU()).eval()
    check_backend(model, torch.randn(2, 3, 31, 31))


def test_backend_falls_back_with_warning_naming_the_op():
    torch._dynamo.reset()
    torch.manual_seed(0)
    model, x = WithErfinv().eval(), torch.randn(4, 16)
    compiled = torch.compile(model, backend=amp_torch.backend(mode="eager"))
    with torch.no_grad(), pytest.warns(amp_torch.AmpBackendWarning, match="aten.erfinv"):
        y = compiled(x)
    assert rel_l2(y, model(x).detach()) < 1e-6
    torch._dynamo.reset()


def test_backend_rejects_bad_options():
    with pytest.raises(ValueError, match="mode"):
        amp_torch.backend(mode="fast")
    with pytest.raises(ValueError, match="valid"):
        amp_torch.backend(autocast=("cpu", "int8"))


def _cli(*args):
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "amp_mlir.torch", *args], env=env,
                          capture_output=True, text=True, timeout=600)


def test_cli_output_goes_through_amp_opt(tmp_path):
    out = tmp_path / "gpt.mlir"
    proc = _cli("amp_mlir.torch.models:GPT", "--input", "1x16:int64", "--autocast",
                "cpu,bfloat16", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    assert "#amp.autocast<device_type = cpu, dtype = bf16>" in text
    # amp-opt of the build whose library the package loads.
    capi = os.environ.get("AMP_MLIR_CAPI_LIBRARY",
                          os.path.join(ROOT, "build", "lib", "libAmpMLIRCAPI.so"))
    amp_opt = os.path.join(os.path.dirname(os.path.dirname(capi)), "bin", "amp-opt")
    opt = subprocess.run([amp_opt, str(out), "--amp-cpu-pipeline", "-o", os.devnull],
                         capture_output=True, text=True, timeout=600)
    assert opt.returncode == 0, opt.stderr[-2000:]


def test_cli_errors(capsys):
    from amp_mlir.torch.__main__ import main  # in-process: no interpreter start
    assert main(["torchvision:resnet18", "--input", "1x3x32x32",
                 "--autocast", "cpu,float32"]) == 1
    assert "valid: None" in capsys.readouterr().err
    assert main(["torchvision:no_such_net", "--input", "1x3x32x32"]) == 1
    assert "no model 'no_such_net'" in capsys.readouterr().err
    assert main(["torchvision:resnet18", "--input", "1xAx32"]) == 1
    assert "1x3x224x224" in capsys.readouterr().err
    assert main(["amp_mlir.torch.models:NoSuch", "--input", "1x16:int64"]) == 1
    assert "has no attribute 'NoSuch'" in capsys.readouterr().err
