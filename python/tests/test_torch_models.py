"""The PyTorch front end against PyTorch (issue 26): real models exported
with torch.export + torch-mlir and compiled by amp-mlir, on the same inputs
as PyTorch f32 and torch.autocast(cpu, bf16). Asserts, per model:
amp f32 vs torch f32 relative L2 <= 1e-5; amp autocast (graph and eager)
vs torch f32 <= 1.5x torch.autocast's own error and <= 2e-2; no inf/NaN.

Small shapes keep it fast: resnet18 at 1x3x64x64, a two-layer GPT, a
torchvision VisionTransformer of two layers (vit_b_16's code at a small
size; vit_b_16 itself at batch 1 is in bench/torch_models.py)."""
import pytest
import torch
import torchvision

import amp_mlir
import amp_mlir.torch as amp_torch
from amp_mlir.torch.models import GPT, ConvBlockNet


def rel_l2(a, b):
    return float((a.double() - b.double()).norm() / b.double().norm())


def _vit_small():
    vit = torchvision.models.VisionTransformer(image_size=32, patch_size=8, num_layers=2,
                                               num_heads=4, hidden_dim=64, mlp_dim=128,
                                               num_classes=10)
    torch.nn.init.normal_(vit.heads.head.weight, std=0.05)  # zero-initialised
    return vit


MODELS = {
    "resnet18": (lambda: torchvision.models.resnet18(weights=None),
                 lambda: (torch.randn(1, 3, 64, 64),)),
    "gpt": (lambda: GPT(), lambda: (torch.randint(0, 256, (2, 32)),)),
    "vit_small": (_vit_small, lambda: (torch.randn(1, 3, 32, 32),)),
    "convblock": (lambda: ConvBlockNet(), lambda: (torch.randn(2, 3, 16, 16),)),
}


@pytest.mark.parametrize("name", list(MODELS))
def test_model_matches_pytorch(name):
    torch.manual_seed(0)
    make, inputs = MODELS[name]
    model, args = make().eval(), inputs()
    with torch.no_grad():
        ref = model(*args)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            torch_amp = model(*args)
    torch_err = rel_l2(torch_amp, ref)
    assert 0 < torch_err < 2e-2, torch_err

    # LLVM -O1: the same numbers as -O3 (no fast-math), half the JIT time.
    f32 = amp_torch.compile(model, args, opt_level=1)(*args)
    assert f32.shape == ref.shape and f32.dtype == torch.float32
    assert rel_l2(f32, ref) <= 1e-5, rel_l2(f32, ref)
    for mode in ("graph", "eager"):
        y = amp_torch.compile(model, args, autocast=("cpu", "bfloat16"), mode=mode,
                              opt_level=1)(*args)
        err = rel_l2(y, ref)
        assert bool(torch.isfinite(y).all()), mode
        assert 0 < err <= min(1.5 * torch_err, 2e-2), (mode, err, torch_err)
    assert model.training is False


@pytest.mark.parametrize("autocast", [None, ("cpu", "bfloat16")])
def test_gemm_option_both_paths_match_pytorch(autocast):
    """compile(gemm=...): the convolutions and the linear layer on amp-mlir's
    code generation and on oneDNN (amp-cpu-pipeline{gemm=onednn}) agree with
    PyTorch f32 (f32: to 1e-5; autocast: a bf16 tolerance)."""
    torch.manual_seed(0)
    model, (x,) = ConvBlockNet().eval(), (torch.randn(2, 3, 16, 16),)
    with torch.no_grad():
        ref = model(x)
    for gemm in ("codegen", "onednn"):
        compiled = amp_torch.compile(model, (x,), autocast=autocast, gemm=gemm, opt_level=1)
        assert f"gemm={gemm}" in compiled.pipeline
        err = rel_l2(compiled(x), ref)
        assert err <= (1e-5 if autocast is None else 2e-2), (gemm, err)


def test_bad_gemm_names_argument_and_values():
    model, x = torch.nn.Linear(4, 2).eval(), torch.randn(3, 4)
    with pytest.raises(ValueError, match=r"compile: gemm must be one of 'codegen', 'onednn' "
                                         r"on device='cpu', got 'mkl'"):
        amp_torch.compile(model, (x,), gemm="mkl")


class TwoOut(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(6, 4)

    def forward(self, x, scale):
        y = self.lin(x)
        return torch.relu(y) * scale, y.sum(dim=1)


def test_tuple_outputs_weights_inline_and_call_checks():
    torch.manual_seed(1)
    model = TwoOut()
    model.train()  # exported in eval mode; the mode is restored after
    x, s = torch.randn(3, 6), torch.randn(4)
    fn = amp_torch.compile(model, (x, s))
    assert model.training
    out = fn(x, s)
    want = model(x, s)
    assert isinstance(out, tuple) and len(out) == 2
    for a, b in zip(out, want):
        assert rel_l2(a, b.detach()) < 1e-6
    # A second call with other values (same shapes) recomputes.
    x2 = torch.randn(3, 6)
    assert rel_l2(fn(x2, s)[1], model(x2, s)[1].detach()) < 1e-6
    with pytest.raises(ValueError, match="argument 'x'.*shape \\(3, 6\\)"):
        fn(torch.randn(2, 6), s)
    with pytest.raises(ValueError, match="argument 'scale'.*torch.float32"):
        fn(x, s.double())
    with pytest.raises(ValueError, match="expected 2 tensor arguments"):
        fn(x)
    # Weights inlined as constants: the same function of x, no weight arguments.
    text = amp_torch.import_module(model, (x, s), weights="inline")
    header = [l for l in text.splitlines() if "func.func @forward" in l][0]
    assert header.count("%arg") == 2
    assert "dense" in text  # dense_resource blobs
    exe = amp_mlir.compile(text)
    y, total = exe.invoke("forward", x.numpy(), s.numpy())
    assert rel_l2(torch.from_numpy(total), model(x, s)[1].detach()) < 1e-6


def test_import_module_text_and_decorator():
    model = TwoOut()
    text = amp_torch.import_module(model, (torch.randn(3, 6), torch.randn(4)),
                                   autocast=("cpu", torch.bfloat16))
    header = [l for l in text.splitlines() if "func.func @forward" in l][0]
    assert "amp.autocast = #amp.autocast<device_type = cpu, dtype = bf16>" in header
    # Parameters first (weight 4x6, bias 4), then x and scale.
    assert header.index("tensor<4x6xf32>") < header.index("tensor<3x6xf32>")
    assert "linalg.matmul" in text
    # amp-opt's parser and the CPU pipeline take it.
    module = amp_mlir.Context().parse(text)
    module.run_pipeline("amp-cpu-pipeline")


def test_bad_autocast_lists_valid_spellings():
    with pytest.raises(ValueError, match=r"valid: None, \('cpu', 'bfloat16'\), "
                                         r"\('cpu', 'float16'\), \('cuda', 'float16'\), "
                                         r"\('cuda', 'bfloat16'\)"):
        amp_torch.import_module(TwoOut(), (torch.randn(3, 6), torch.randn(4)),
                                autocast=("cpu", "float32"))
    with pytest.raises(ValueError, match="mode must be"):
        amp_torch.compile(TwoOut(), (torch.randn(3, 6), torch.randn(4)), mode="fast")
    with pytest.raises(ValueError, match="weights must be 'args' or 'inline'"):
        amp_torch.import_module(TwoOut(), (torch.randn(3, 6), torch.randn(4)), weights="x")
    with pytest.raises(ValueError, match="device must be 'cpu' or 'cuda'"):
        amp_torch.compile(TwoOut(), (torch.randn(3, 6), torch.randn(4)), device="tpu")
    with pytest.raises(TypeError, match="expected a torch.nn.Module, got function"):
        amp_torch.import_module(lambda x: x, (torch.randn(3),))


class Erfinv(torch.nn.Module):
    def forward(self, x):
        y = x * 0.5
        return torch.erfinv(y)  # torch-mlir has no linalg lowering


class Sort(torch.nn.Module):
    def forward(self, x):
        return torch.sort(x, dim=1).values  # tm_tensor.sort: not amp-mlir's


class MaskedSum(torch.nn.Module):
    def forward(self, x):
        return x[x > 0].sum()  # a data-dependent shape (torch-mlir's import hangs on it)


@pytest.mark.parametrize("model,op,line", [(Erfinv(), "aten.erfinv", "torch.erfinv(y)"),
                                           (Sort(), "tm_tensor.sort", "torch.sort(x"),
                                           (MaskedSum(), "aten.index", "x[x > 0]")])
def test_unlowerable_op_names_op_and_source_line(model, op, line):
    with pytest.raises(amp_torch.TorchImportError) as info:
        amp_torch.compile(model, (torch.rand(3, 3),))
    assert info.value.op == op
    assert __file__ in info.value.source and line in info.value.source
    assert "func.func" not in str(info.value)  # no MLIR dump


def test_cuda_device():
    model = TwoOut()
    args = (torch.randn(3, 6), torch.randn(4))
    if amp_mlir.cuda_device_count() == 0:
        with pytest.raises(RuntimeError, match="needs an NVIDIA GPU"):
            amp_torch.compile(model, args, device="cuda")
        return
    fn = amp_torch.compile(model, args, device="cuda", autocast=("cuda", "float16"))
    y = fn(*args)
    assert rel_l2(y[1], model(*args)[1].detach()) < 1e-2
