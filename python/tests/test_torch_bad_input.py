"""Bad input to the PyTorch front end, found by a review (issue 29): each is a
Python exception or a one-line error naming the argument, never a crash or
a traceback."""
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch
from torch import nn

import amp_mlir
import amp_mlir.torch as amp_torch
from amp_mlir.torch import UnsupportedOpError, compile_train_step
from amp_mlir.torch.__main__ import main

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PYTHON_DIR = os.path.join(ROOT, "python")


# -- an index out of range at call time ----------------------------------------

def test_out_of_range_index_is_an_exception():
    """torch-mlir's gather checks its indices with cf.assert, which aborted the
    process; now the call raises and the module stays usable."""
    torch.manual_seed(0)
    emb = nn.Embedding(10, 4).eval()
    ids = torch.tensor([[1, 2, 3]])
    fn = amp_torch.compile(emb, (ids,))
    with torch.no_grad():
        want = emb(ids)
    assert torch.equal(fn(ids), want)
    for bad, check in ((12, "index must be smaller than dim size"),
                       (-1, "index must be larger or equal to 0"),
                       (1 << 40, "index must be smaller than dim size")):
        with pytest.raises(amp_mlir.RuntimeCheckError, match=check) as e:
            fn(torch.tensor([[1, bad, 3]]))
        assert "embedding" in str(e.value)  # the source line names the op
        assert e.value.function == "forward"
    # No check is left pending: the next good call returns the same values.
    assert torch.equal(fn(ids), want)


def test_out_of_range_index_in_a_model():
    """The GPT of amp_mlir.torch.models: a token id past the vocabulary."""
    from amp_mlir.torch.models import GPT
    torch.manual_seed(0)
    model = GPT().eval()
    tokens = torch.randint(0, 16, (1, 16))
    fn = amp_torch.compile(model, (tokens,), opt_level=1)
    bad = tokens.clone()
    bad[0, 5] = 1000
    with pytest.raises(amp_mlir.RuntimeCheckError, match="smaller than dim size"):
        fn(bad)
    with torch.no_grad():
        np.testing.assert_allclose(fn(tokens).numpy(), model(tokens).numpy(),
                                   rtol=1e-4, atol=1e-5)


# -- UnsupportedOpError.op when AOTAutograd fails -------------------------------

@pytest.mark.parametrize("loss_fn, op", [
    (lambda m, x, y: m(x).sum() * m(x).max().item(), "aten._local_scalar_dense"),
    (lambda m, x, y: m(x)[m(x) > 0].sum(), "aten.nonzero"),
])
def test_unsupported_op_names_the_op(loss_fn, op):
    """It held the exception's class name (DataDependentOutputException)."""
    model = nn.Sequential(nn.Linear(8, 4))
    x, y = torch.randn(4, 8), torch.randint(0, 4, (4,))
    with pytest.raises(UnsupportedOpError) as e:
        compile_train_step(model, loss_fn, torch.optim.SGD(model.parameters(), lr=0.1),
                           (x, y))
    assert e.value.op == op


def test_unsupported_op_unknown():
    def loss_fn(m, x, y):
        raise KeyError("not an op")
    model = nn.Sequential(nn.Linear(8, 4))
    with pytest.raises(UnsupportedOpError) as e:
        compile_train_step(model, loss_fn, torch.optim.SGD(model.parameters(), lr=0.1),
                           (torch.randn(4, 8), torch.randint(0, 4, (4,))))
    assert e.value.op == "<unknown>"


# -- the command line ---------------------------------------------------------

def needs_arguments(width):
    return nn.Linear(width, width)


def raises():
    raise RuntimeError("the factory broke")


@pytest.mark.parametrize("args, message", [
    (["test_torch_bad_input:needs_arguments", "--input", "2x4"],
     "calling needs_arguments() failed (TypeError"),
    (["test_torch_bad_input:raises", "--input", "2x4"],
     "calling raises() failed (RuntimeError: the factory broke)"),
    (["torchvision:resnet18", "--input", "1x3x32"],
     "exporting torchvision:resnet18 with --input 1x3x32 failed"),
    (["torchvision:resnet18", "--input", "1x3x32x32:complex64"],
     "dtype complex64 is not supported"),
    (["torchvision:resnet18", "--input", "1x3x32x32", "-o", "/no/such/dir/out.mlir"],
     "directory '/no/such/dir' does not exist"),
])
def test_cli_one_line_errors(args, message, capsys, monkeypatch):
    monkeypatch.syspath_prepend(os.path.dirname(__file__))
    assert main(args) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and message in err, err
    assert err.count("\n") == 1 and "Traceback" not in err, err


def test_cli_error_exit_code():
    """The same through the interpreter: exit code 1, one line, no traceback."""
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR + os.pathsep + os.path.dirname(__file__))
    proc = subprocess.run([sys.executable, "-m", "amp_mlir.torch",
                           "test_torch_bad_input:raises", "--input", "2x4"],
                          env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 1
    lines = [l for l in proc.stderr.splitlines() if l.startswith("error:")]
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr


# -- a module in training mode ----------------------------------------------------

def test_compile_warns_in_training_mode():
    model = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5))  # train mode
    x = torch.randn(2, 4)
    with pytest.warns(UserWarning, match="training mode .*eval-mode semantics"):
        fn = amp_torch.compile(model, (x,))
    assert model.training  # modes restored
    with torch.no_grad():
        np.testing.assert_allclose(fn(x).numpy(), model.eval()(x).numpy(), rtol=1e-5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        amp_torch.compile(model, (x,))  # in eval mode: no warning
