"""Three LLVMs in one process (issue 26): Debian's (libAmpMLIRCAPI.so and the
JIT's runtime libraries) and torch-mlir's bundled one must not meet, whatever
the order the user imports amp_mlir, torch, torch_mlir and amp_mlir.torch in,
and also when torch-mlir first runs after amp's JIT has run (the JIT's
runtime libraries once made Debian's libLLVM global: "Option
'print-inst-addrs' registered more than once"). Each order runs in a fresh
interpreter (three orders of the three modules plus the package first): import in that order, JIT-run an amp module, export a PyTorch
module with torch-mlir, then JIT-run the export and compare with PyTorch."""
import os
import subprocess
import sys

import pytest

PYTHON_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))

SCRIPT = r"""
import sys
for name in sys.argv[1].split(","):
    __import__(name)
import numpy as np
import amp_mlir as amp
exe = amp.compile('''func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = math.exp %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}''')
assert abs(exe.invoke("f", np.ones(4, np.float32))[0] - np.e) < 1e-6
import torch
import amp_mlir.torch as amp_torch
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 4), torch.nn.GELU())
x = torch.randn(2, 8)
fn = amp_torch.compile(model, (x,))
err = float((fn(x) - model(x)).norm() / model(x).norm())
assert err < 1e-6, err
print("ok", err)
"""


def run_order(order):
    env = dict(os.environ, PYTHONPATH=PYTHON_DIR + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", SCRIPT, ",".join(order)], env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "ok" in proc.stdout, (
        f"order {order}: exit {proc.returncode}\n{proc.stdout}\n{proc.stderr[-3000:]}")


# amp's library first, last, and between torch and torch_mlir (each process
# costs seconds: torch's import and an export).
ORDERS = [("amp_mlir", "torch", "torch_mlir"), ("torch_mlir", "torch", "amp_mlir"),
          ("torch", "amp_mlir", "torch_mlir")]


@pytest.mark.parametrize("order", ORDERS, ids=lambda o: ",".join(o))
def test_import_orders_then_jit_then_export(order):
    run_order(order)


def test_package_first():
    run_order(["amp_mlir.torch"])
