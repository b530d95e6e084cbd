"""The user's ``with torch.autocast(...)`` blocks (issue 26): imported as
``amp.autocast`` regions carrying PyTorch's four arguments (the structure,
checked with FileCheck), and computed by amp-mlir's policy close to PyTorch
running the same module (the numbers). Nested and enabled=False blocks."""
import os
import subprocess

import pytest
import torch

import amp_mlir.torch as amp_torch

FILECHECK = "/usr/lib/llvm-22/bin/FileCheck"


class Blocks(torch.nn.Module):
    """Linear, then a bf16 autocast block (linear + GELU, and inside it an
    enabled=False block with softmax), then a LayerNorm outside any block,
    then a second block on cuda/f16 spelling (kept as written)."""

    def __init__(self, use_autocast=True):
        super().__init__()
        torch.manual_seed(0)
        self.use_autocast = use_autocast
        self.inp, self.mid = torch.nn.Linear(32, 64), torch.nn.Linear(64, 64)
        self.norm = torch.nn.LayerNorm(64)

    def forward(self, x):
        h = self.inp(x)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=self.use_autocast):
            y = torch.nn.functional.gelu(self.mid(h))
            with torch.autocast("cpu", enabled=False):
                p = torch.softmax(y.float(), dim=-1)
        return self.norm(y.float() + p)


def rel_l2(a, b):
    return float((a.double() - b.double()).norm() / b.double().norm())


def test_regions_structure_filecheck(tmp_path):
    text = amp_torch.import_module(Blocks(), (torch.randn(4, 32),))
    path = tmp_path / "blocks.mlir"
    path.write_text(text)
    checks = tmp_path / "checks.txt"
    checks.write_text("""
CHECK-LABEL: func.func @forward(
CHECK: linalg.matmul
CHECK: %[[R:.*]]:2 = amp.autocast device_type(cpu) cache_enabled(false) -> (tensor<4x64xf32>, tensor<4x64xf32>) {
CHECK:   linalg.matmul
CHECK:   math.erf
CHECK:   %[[P:.*]] = amp.autocast device_type(cpu) enabled(false) cache_enabled(false) -> tensor<4x64xf32> {
CHECK:     math.exp
CHECK:     amp.yield %{{.*}} : tensor<4x64xf32>
CHECK:   }
CHECK:   amp.yield %{{.*}}, %[[P]] : tensor<4x64xf32>, tensor<4x64xf32>
CHECK: }
CHECK: linalg.generic
CHECK-SAME: ins(%[[R]]#0, %[[R]]#1
CHECK: return
CHECK-NOT: __amp_autocast
""")
    proc = subprocess.run([FILECHECK, str(checks), "--input-file", str(path)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("mode", ["graph", "eager"])
def test_regions_numbers_match_pytorch(mode):
    x = torch.randn(4, 32)
    model, f32_model = Blocks().eval(), Blocks(use_autocast=False).eval()
    with torch.no_grad():
        torch_blocks = model(x)  # PyTorch running the same module
        f32 = f32_model(x)       # the same weights without autocast
    torch_err = rel_l2(torch_blocks, f32)
    y = amp_torch.compile(model, (x,), mode=mode, opt_level=1)(x)
    assert bool(torch.isfinite(y).all())
    amp_err = rel_l2(y, f32)
    # The block ran in bf16 (not f32), about as far from f32 as PyTorch's.
    assert 1e-4 < amp_err <= 1.5 * torch_err and amp_err < 2e-2, (amp_err, torch_err)
    assert rel_l2(y, torch_blocks) < 2e-2


def test_autocast_block_dtype_unsupported():
    class Fp32Block(torch.nn.Module):
        def forward(self, x):
            with torch.autocast("cpu", dtype=torch.float32):
                return x @ x
    with pytest.raises(ValueError, match=r"torch.autocast\(.cpu., dtype=torch.float32\) is not supported"):
        amp_torch.import_module(Fp32Block(), (torch.randn(4, 4),))
