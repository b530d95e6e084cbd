"""amp_mlir.torch.compile_train_step (issue 27) against PyTorch's own training.

The same initial weights, data (scikit-learn digits) and optimizer are
trained by PyTorch eager and by the compiled step in one test: per-step
losses and final weights (f32), the GradScaler loss-scale trajectory and
skipped steps (autocast f16, an inf injected into the data, so every
gradient of that step is non-finite), bit-identical weights and optimizer
state over a skipped step, in-place updates, and the errors for bad input.
"""
import copy

import numpy as np
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import amp_mlir
from amp_mlir.torch import TorchImportError, UnsupportedOpError, compile_train_step

BATCH, STEPS = 32, 20


@pytest.fixture(scope="module")
def digits():
    """20 batches of digits: x [20, 32, 64] f32 in [0, 1], y [20, 32] int64."""
    from sklearn.datasets import load_digits
    data = load_digits()
    x = torch.tensor(data.data[:BATCH * STEPS] / 16.0, dtype=torch.float32)
    y = torch.tensor(data.target[:BATCH * STEPS], dtype=torch.int64)
    return x.reshape(STEPS, BATCH, 64), y.reshape(STEPS, BATCH)


def mlp():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(64, 48), nn.GELU(), nn.LayerNorm(48),
                         nn.Linear(48, 32), nn.ReLU(), nn.Linear(32, 10))


def cnn():
    torch.manual_seed(0)
    return nn.Sequential(nn.Unflatten(1, (1, 8, 8)), nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Flatten(), nn.Linear(64, 10))


def loss_fn(m, x, y):
    return F.cross_entropy(m(x), y)


def rel_l2(a, b):
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


OPTIMIZERS = {
    "sgd": lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, dampening=0.1,
                                     weight_decay=1e-3),
    "nesterov": lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, nesterov=True,
                                          weight_decay=1e-4),
    "adamw": lambda p: torch.optim.AdamW(p, lr=3e-3, betas=(0.8, 0.99), eps=1e-7,
                                         weight_decay=0.05),
    "adam": lambda p: torch.optim.Adam(p, lr=3e-3, weight_decay=1e-3),
}


def reference_step(ref, ref_opt, x, y):
    """One eager PyTorch f32 step of `ref`, alongside the compiled one; its loss."""
    ref_opt.zero_grad()
    ref_loss = loss_fn(ref, x, y)
    ref_loss.backward()
    ref_opt.step()
    return ref_loss


@pytest.mark.parametrize("model,opt", [("mlp", "sgd"), ("mlp", "adamw"),
                                       ("cnn", "nesterov"), ("cnn", "adam")])
def test_f32_matches_pytorch(digits, model, opt):
    xs, ys = digits
    ours = {"mlp": mlp, "cnn": cnn}[model]()
    ref = copy.deepcopy(ours)
    step = compile_train_step(ours, loss_fn, OPTIMIZERS[opt](ours.parameters()),
                              (xs[0], ys[0]))
    ref_opt = OPTIMIZERS[opt](ref.parameters())
    for i in range(STEPS):
        loss = step(xs[i], ys[i])
        ref_loss = reference_step(ref, ref_opt, xs[i], ys[i])
        assert abs(loss - ref_loss.item()) <= 1e-4 * abs(ref_loss.item()), (i, loss, ref_loss)
    assert step.steps == STEPS and step.skipped == 0 and step.scale == 1.0
    names = dict(ref.named_parameters())
    for name, value in step.parameters().items():
        want = names[name].detach().numpy()
        assert rel_l2(value, want) <= 1e-4, name
    # The weights moved (the comparison is not of untouched copies).
    assert rel_l2(step.parameters()["1.weight" if model == "cnn" else "0.weight"],
                  copy.deepcopy(mlp() if model == "mlp" else cnn())[
                      1 if model == "cnn" else 0].weight.detach().numpy()) > 1e-3
    # sync() writes weights and optimizer state back.
    step.sync()
    for (n, p), r in zip(ours.named_parameters(), ref.parameters()):
        assert rel_l2(p.detach().numpy(), r.detach().numpy()) <= 1e-4, n


def test_gemm_onednn_matches_pytorch(digits):
    """compile_train_step(gemm="onednn"): the CNN's forward and backward
    convolutions and matmuls on oneDNN, 5 SGD steps against PyTorch f32."""
    xs, ys = digits
    ours = cnn()
    ref = copy.deepcopy(ours)
    step = compile_train_step(ours, loss_fn, OPTIMIZERS["nesterov"](ours.parameters()),
                              (xs[0], ys[0]), gemm="onednn")
    ref_opt = OPTIMIZERS["nesterov"](ref.parameters())
    for i in range(5):
        loss = step(xs[i], ys[i])
        ref_loss = reference_step(ref, ref_opt, xs[i], ys[i])
        assert abs(loss - ref_loss.item()) <= 1e-4 * abs(ref_loss.item()), (i, loss, ref_loss)
    names = dict(ref.named_parameters())
    for name, value in step.parameters().items():
        assert rel_l2(value, names[name].detach().numpy()) <= 1e-4, name


# The scheduler warns that our optimizer's own step() never ran (the compiled
# step does its work).
@pytest.mark.filterwarnings("ignore:Detected call of `lr_scheduler.step\\(\\)`")
@pytest.mark.parametrize("opt", ["sgd", "adamw"])
def test_lr_scheduler(digits, opt):
    """The lr is read from the optimizer at every step: an LR scheduler
    stepping both optimizers keeps the two runs equal."""
    xs, ys = digits
    ours = mlp()
    ref = copy.deepcopy(ours)
    our_opt, ref_opt = OPTIMIZERS[opt](ours.parameters()), OPTIMIZERS[opt](ref.parameters())
    scheds = [torch.optim.lr_scheduler.ExponentialLR(o, gamma=0.7) for o in (our_opt, ref_opt)]
    step = compile_train_step(ours, loss_fn, our_opt, (xs[0], ys[0]))
    for i in range(10):
        loss = step(xs[i], ys[i])
        ref_loss = reference_step(ref, ref_opt, xs[i], ys[i])
        for sched in scheds:
            sched.step()
        assert abs(loss - ref_loss.item()) <= 1e-4 * abs(ref_loss.item()), i
    names = dict(ref.named_parameters())
    for name, value in step.parameters().items():
        assert rel_l2(value, names[name].detach().numpy()) <= 1e-4, name


def test_batchnorm_running_statistics(digits):
    """A forward that updates buffers (BatchNorm in training mode): the
    running mean, variance and batch count follow PyTorch's."""
    xs, ys = digits
    torch.manual_seed(0)
    ours = nn.Sequential(nn.Unflatten(1, (1, 8, 8)), nn.Conv2d(1, 8, 3, padding=1),
                         nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                         nn.Linear(128, 10))
    ref = copy.deepcopy(ours)
    step = compile_train_step(ours, loss_fn, torch.optim.SGD(ours.parameters(), lr=0.1,
                                                             momentum=0.9), (xs[0], ys[0]))
    ref_opt = torch.optim.SGD(ref.parameters(), lr=0.1, momentum=0.9)
    for i in range(10):
        loss = step(xs[i], ys[i])
        ref_loss = reference_step(ref, ref_opt, xs[i], ys[i])
        assert abs(loss - ref_loss.item()) <= 1e-4 * abs(ref_loss.item()), i
    step.sync()
    buffers = dict(ref.named_buffers())
    for name, b in ours.named_buffers():
        if b.dtype == torch.int64:
            assert int(b) == int(buffers[name]) == 10
        else:
            assert rel_l2(b.numpy(), buffers[name].numpy()) <= 1e-4, name
    for (name, p), r in zip(ours.named_parameters(), ref.parameters()):
        assert rel_l2(p.detach().numpy(), r.detach().numpy()) <= 1e-4, name


SCALER = dict(init_scale=256.0, growth_factor=4.0, backoff_factor=0.25, growth_interval=4)


def test_grad_scaler_matches_pytorch(digits):
    """autocast(cpu, float16) + GradScaler: the scale after every step and the
    skipped steps equal torch.amp.GradScaler's on the same run; step 6 has an
    inf in its input, so its gradients are non-finite."""
    xs, ys = digits
    xs = xs.clone()
    xs[6, 0, 5] = float("inf")
    ours = mlp()
    ref = copy.deepcopy(ours)
    step = compile_train_step(ours, loss_fn, torch.optim.AdamW(ours.parameters(), lr=1e-2),
                              (xs[0], ys[0]), autocast=("cpu", "float16"),
                              scaler=torch.amp.GradScaler("cpu", **SCALER))
    ref_opt = torch.optim.AdamW(ref.parameters(), lr=1e-2)
    scaler = torch.amp.GradScaler("cpu", **SCALER)
    # Forward and backward under one policy: the 3 forward matmuls and the 5
    # of the backward (3 weight gradients, 2 input gradients) all run in f16.
    assert step.cast_statistics()["linalg.matmul"] == {"f16": 8}
    scales, ref_scales, skipped, ref_skipped = [], [], [], []
    for i in range(STEPS):
        before = step.skipped
        loss = step(xs[i], ys[i])
        scales.append(step.scale)
        if step.skipped > before:
            skipped.append(i)
        ref_opt.zero_grad()
        with torch.autocast("cpu", dtype=torch.float16):
            ref_loss = loss_fn(ref, xs[i], ys[i])
        scaler.scale(ref_loss).backward()
        ref_before = scaler.get_scale()
        scaler.step(ref_opt)
        scaler.update()
        ref_scales.append(scaler.get_scale())
        if scaler.get_scale() < ref_before:
            ref_skipped.append(i)
        if np.isfinite(ref_loss.item()):
            assert abs(loss - ref_loss.item()) <= 1e-2 * abs(ref_loss.item()), i
        else:
            assert not np.isfinite(loss), i
    assert skipped == ref_skipped == [6]
    assert scales == ref_scales
    assert scales[:8] == [256.0, 256.0, 256.0, 1024.0, 1024.0, 1024.0, 256.0, 256.0]
    assert step.skipped == 1
    names = dict(ref.named_parameters())
    for name, value in step.parameters().items():
        # f16 rounding differs from PyTorch's kernels in places; Adam
        # normalizes small gradient differences: a looser bound than f32.
        assert rel_l2(value, names[name].detach().numpy()) <= 2e-2, name


def test_grad_scaler_natural_overflow_matches_pytorch(digits):
    """A scale too large for f16 (2^30): the f16 backward overflows, and the
    backoffs, the growth after 3 finite steps and the overflows that follow
    it match torch.amp.GradScaler's step for step."""
    xs, ys = digits
    ours = mlp()
    ref = copy.deepcopy(ours)
    settings = dict(init_scale=2.0 ** 30, growth_interval=3)
    our_scaler = torch.amp.GradScaler("cpu", **settings)
    step = compile_train_step(ours, loss_fn, torch.optim.SGD(ours.parameters(), lr=0.05,
                                                             momentum=0.9),
                              (xs[0], ys[0]), autocast=("cpu", "float16"), scaler=our_scaler)
    ref_opt = torch.optim.SGD(ref.parameters(), lr=0.05, momentum=0.9)
    scaler = torch.amp.GradScaler("cpu", **settings)
    scales, ref_scales = [], []
    for i in range(STEPS):
        step(xs[i], ys[i])
        scales.append(step.scale)
        ref_opt.zero_grad()
        with torch.autocast("cpu", dtype=torch.float16):
            ref_loss = loss_fn(ref, xs[i], ys[i])
        scaler.scale(ref_loss).backward()
        scaler.step(ref_opt)
        scaler.update()
        ref_scales.append(scaler.get_scale())
    assert scales == ref_scales
    step.sync()  # the scaler's state is written back
    assert our_scaler.state_dict() == scaler.state_dict()
    assert scales[:10] == [2.0 ** k for k in range(29, 19, -1)]  # 10 overflows in a row
    assert 2 * scales[12] == scales[13]  # grown after 3 finite steps
    assert step.skipped == sum(b < a for a, b in zip([2.0 ** 30] + scales, scales)) >= 12


def test_skipped_step_is_bit_identical(digits):
    xs, ys = digits
    model = mlp()
    step = compile_train_step(model, loss_fn, torch.optim.SGD(model.parameters(), lr=0.1,
                                                              momentum=0.9),
                              (xs[0], ys[0]), autocast=("cpu", "bfloat16"),
                              scaler=torch.amp.GradScaler("cpu", init_scale=1024.0))
    for i in range(3):
        step(xs[i], ys[i])
    params = {n: a.copy() for n, a in step.parameters().items()}
    state = [a.copy() for a in step.state_arrays()]
    bad = xs[3].clone()
    bad[2, 7] = float("nan")
    assert not np.isfinite(step(bad, ys[3]))
    assert step.skipped == 1 and step.scale == 512.0
    for n, a in step.parameters().items():
        assert a.tobytes() == params[n].tobytes(), n
    # The optimizer state (started flag, momentum buffers) is unchanged; the
    # scaler state (the last two) halved the scale and reset the tracker.
    for now, was in zip(step.state_arrays()[:-2], state[:-2]):
        assert now.tobytes() == was.tobytes()
    assert float(step.state_arrays()[-2]) == 512.0 and int(step.state_arrays()[-1]) == 0
    # The next finite step updates again.
    step(xs[4], ys[4])
    assert any(a.tobytes() != params[n].tobytes() for n, a in step.parameters().items())


def test_updates_in_place(digits):
    """The weights and optimizer state are the step's own arrays, updated in
    place: same objects, same buffers, new values; nothing the JIT
    allocated stays live between steps."""
    xs, ys = digits
    model = mlp()
    step = compile_train_step(model, loss_fn, torch.optim.Adam(model.parameters(), lr=1e-3),
                              (xs[0], ys[0]))
    arrays = list(step.parameters().values()) + step.state_arrays()
    pointers = [a.ctypes.data for a in arrays]
    before = [a.copy() for a in arrays]
    live = amp_mlir.cpu_memory_stats()[0]
    step(xs[0], ys[0])
    after = list(step.parameters().values()) + step.state_arrays()
    assert all(a is b for a, b in zip(arrays, after))
    assert [a.ctypes.data for a in after] == pointers
    assert all(not np.array_equal(a, b) for a, b in zip(after, before))
    assert amp_mlir.cpu_memory_stats()[0] == live


# -- bad input ---------------------------------------------------------------

def _compile(model=None, fn=loss_fn, opt=None, **kw):
    model = model or nn.Sequential(nn.Linear(8, 4))
    x, y = torch.randn(4, 8), torch.randint(0, 4, (4,))
    opt = opt or torch.optim.SGD(model.parameters(), lr=0.1)
    return compile_train_step(model, fn, opt, (x, y), **kw)


def test_error_unlowerable_op():
    with pytest.raises(UnsupportedOpError, match="aten.histc") as e:
        _compile(fn=lambda m, x, y: m(x).histc(4).sum() + m(x).sum())
    assert e.value.op == "aten.histc"
    assert isinstance(e.value, TorchImportError)


def test_error_non_differentiable_op():
    with pytest.raises(UnsupportedOpError, match="slice_scatter") as e:
        _compile(fn=lambda m, x, y: torch.fft.rfft(m(x)).abs().sum())
    assert e.value.op == "slice_scatter"


def test_error_non_scalar_loss():
    with pytest.raises(ValueError, match=r"scalar \(0-d\) loss, got shape \(4, 4\)"):
        _compile(fn=lambda m, x, y: m(x))


def test_error_frozen_parameter():
    model = nn.Sequential(nn.Linear(8, 8), nn.Linear(8, 4))
    model[0].bias.requires_grad_(False)
    with pytest.raises(ValueError, match="0.bias do not require grad"):
        _compile(model, opt=torch.optim.SGD(model.parameters(), lr=0.1))


class _Tied(nn.Module):
    """An output projection tied to the embedding (GPT-2's lm_head)."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(50, 8)
        self.head = nn.Linear(8, 50, bias=False)
        self.head.weight = self.emb.weight

    def forward(self, i):
        return self.head(self.emb(i))


@pytest.mark.parametrize("autocast,tol", [(None, 1e-5), (("cpu", "bfloat16"), 2e-2)])
def test_tied_parameters_match_pytorch(autocast, tol):
    # One tensor under two names: the export gives each name a gradient of
    # its own; the step sums them into one update, as autograd does.
    torch.manual_seed(0)
    model = _Tied()
    ref = copy.deepcopy(model)
    x = torch.randint(0, 50, (4, 9))
    y = torch.randint(0, 50, (4, 9))

    def loss(m, x, y):
        return F.cross_entropy(m(x).reshape(-1, 50), y.reshape(-1))

    step = compile_train_step(model, loss, torch.optim.SGD(model.parameters(), lr=0.05,
                                                           momentum=0.9),
                              (x, y), autocast=autocast)
    ref_opt = torch.optim.SGD(ref.parameters(), lr=0.05, momentum=0.9)
    for _ in range(3):
        got = step(x, y)
        ref_opt.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast is not None):
            want = loss(ref, x, y)
        want.backward()
        ref_opt.step()
        assert abs(float(got) - float(want)) <= tol * abs(float(want))
    step.sync()
    assert model.head.weight is model.emb.weight
    assert rel_l2(model.emb.weight.detach(), ref.emb.weight.detach()) < tol


@pytest.mark.parametrize("make,match", [
    (lambda p: torch.optim.RMSprop(p), "optimizer RMSprop is not supported.*SGD"),
    (lambda p: torch.optim.SGD(p, lr=0.1, maximize=True), r"maximize=True"),
    (lambda p: torch.optim.AdamW(p, amsgrad=True), r"amsgrad=True"),
])
def test_error_unsupported_optimizer(make, match):
    model = nn.Sequential(nn.Linear(8, 4))
    with pytest.raises(NotImplementedError, match=match):
        _compile(model, opt=make(model.parameters()))


def test_error_bad_options():
    with pytest.raises(ValueError, match=r"unsupported autocast .*valid: None, \(.cpu., .bfloat16.\)"):
        _compile(autocast=("cpu", "float64"))
    with pytest.raises(ValueError, match="mode must be"):
        _compile(mode="lazy")
    with pytest.raises(NotImplementedError, match="device='tpu'"):
        _compile(device="tpu")
    with pytest.raises(ValueError, match="compile_train_step: gemm must be one of 'codegen', "
                                         "'onednn' on device='cpu', got 'blas'"):
        _compile(gemm="blas")
    with pytest.raises(ValueError, match="opt_level must be 0, 1, 2 or 3"):
        _compile(opt_level=7)
    # opt_level 0 compiles and trains too.
    step = _compile(opt_level=0)
    assert np.isfinite(step(torch.randn(4, 8), torch.randint(0, 4, (4,))))


def test_error_call_shape_mismatch_changes_nothing():
    model = nn.Sequential(nn.Linear(8, 4))
    step = _compile(model, opt=torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9))
    step(torch.randn(4, 8), torch.randint(0, 4, (4,)))
    params = {n: a.copy() for n, a in step.parameters().items()}
    with pytest.raises(ValueError, match=r"argument #0: shape \(5, 8\) differs .* \(4, 8\)"):
        step(torch.randn(5, 8), torch.randint(0, 4, (5,)))
    with pytest.raises(TypeError, match=r"argument #1: dtype torch.int32"):
        step(torch.randn(4, 8), torch.randint(0, 4, (4,), dtype=torch.int32))
    with pytest.raises(TypeError, match="takes 2 arguments"):
        step(torch.randn(4, 8))
    assert step.steps == 1
    for n, a in step.parameters().items():
        assert np.array_equal(a, params[n]), n


# -- memory --------------------------------------------------------------------

def _step_peak(model, x, y, autocast, loss=loss_fn):
    step = compile_train_step(model, loss, torch.optim.SGD(model.parameters(), lr=0.01,
                                                              momentum=0.9),
                              (x, y), autocast=autocast, opt_level=0)
    step(x, y)
    amp_mlir.cpu_reset_peak_memory()
    base, _ = amp_mlir.cpu_memory_stats()
    step(x, y)
    return amp_mlir.cpu_memory_stats()[1] - base


def test_peak_memory_autocast_vs_f32():
    """Peak JIT bytes of one step (deterministic: the allocation counter of
    the CPU runtime). An activation-heavy MLP (batch 2048, width 128, the
    weights 64 KiB each): each buffer is held from its first use to its last
    (amp-sink-allocations, optimize-allocation-liveness, one tensor.empty per
    user), so the f32 step holds about its saved activations and one
    layer's temporaries (10.0 MiB; 17.8 MiB when every buffer lived until
    the step returned), and autocast(cpu, bfloat16), whose saved activations
    are bf16, 7.6 MiB (10.1 before): 0.76x. Most of the rest are the f32
    copies of bf16 matmul operands that amp-cpu-tile-and-vectorize's pack-rhs
    makes (docs/CpuPipeline.md, Memory)."""
    torch.manual_seed(0)
    d = 128
    layers = [nn.Linear(d, d)]
    for _ in range(3):
        layers += [nn.GELU(), nn.Linear(d, d)]
    model = nn.Sequential(*layers, nn.ReLU(), nn.Linear(d, 10))
    x, y = torch.randn(2048, d), torch.randint(0, 10, (2048,))
    f32 = _step_peak(copy.deepcopy(model), x, y, None)
    low = _step_peak(copy.deepcopy(model), x, y, ("cpu", "bfloat16"))
    assert f32 <= 12 * 2**20, f"f32 step peak {f32 / 2**20:.2f} MiB"
    assert low <= 0.8 * f32, f"bf16 {low / 2**20:.2f} MiB vs f32 {f32 / 2**20:.2f} MiB"


def test_profile_option(digits):
    """``profile=True`` compiles the step with amp-cpu-pipeline{profile=true}:
    amp_mlir.cpu_profile() then has a row per op of @train_step (the
    matmuls' tiled loops among them), one call per step; without it the
    table stays empty."""
    xs, ys = digits
    amp_mlir.cpu_reset_profile()
    model = mlp()
    plain = compile_train_step(model, loss_fn, torch.optim.SGD(model.parameters(), lr=0.1),
                               (xs[0], ys[0]))
    plain(xs[0], ys[0])
    assert amp_mlir.cpu_profile() == []
    model = mlp()
    step = compile_train_step(model, loss_fn, torch.optim.SGD(model.parameters(), lr=0.1),
                              (xs[0], ys[0]), autocast=("cpu", "bfloat16"), profile=True)
    amp_mlir.cpu_reset_profile()
    step(xs[0], ys[0])
    step(xs[1], ys[1])
    rows = amp_mlir.cpu_profile()
    assert rows and all(name.startswith("train_step#") and calls == 2
                        for name, _, calls in rows)
    assert any("bf16" in name for name, _, _ in rows)
    amp_mlir.cpu_reset_profile()


def _check_autocast_steps(model, loss, xs, ys, slack):
    """Three autocast(cpu, bfloat16) momentum-SGD steps of `model` through
    compile_train_step against PyTorch on the same weights and data
    (xs[i], ys[i] for step i): losses within 1e-2 relative of
    torch.autocast's; each parameter's update at most 1.5x as far from
    PyTorch's f32 update as PyTorch's own bf16 update is, plus `slack`; the
    bf16 step's peak JIT memory below the f32 step's."""
    before = [p.detach().clone() for p in model.parameters()]

    def torch_updates(autocast):
        ref = copy.deepcopy(model)
        opt = torch.optim.SGD(ref.parameters(), lr=0.05, momentum=0.9)
        losses = []
        for i in range(3):
            opt.zero_grad()
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
                value = loss(ref, xs[i], ys[i])
            value.backward()
            opt.step()
            losses.append(value.item())
        return losses, [(p.detach() - b).numpy() for p, b in zip(ref.parameters(), before)]

    ref_losses, ref16 = torch_updates(True)
    _, ref32 = torch_updates(False)
    ours = copy.deepcopy(model)
    step = compile_train_step(ours, loss, torch.optim.SGD(ours.parameters(), lr=0.05,
                                                          momentum=0.9),
                              (xs[0], ys[0]), autocast=("cpu", "bfloat16"))
    for i in range(3):
        value = step(xs[i], ys[i])
        assert abs(value - ref_losses[i]) <= 1e-2 * abs(ref_losses[i]), (i, value,
                                                                        ref_losses[i])
    step.sync()
    for (n, p), b, r16, r32 in zip(ours.named_parameters(), before, ref16, ref32):
        got = (p.detach() - b).numpy()
        assert rel_l2(got, r32) <= 1.5 * rel_l2(r16, r32) + slack, (n, rel_l2(got, r32),
                                                                   rel_l2(r16, r32))
    low = _step_peak(copy.deepcopy(model), xs[0], ys[0], ("cpu", "bfloat16"), loss)
    f32 = _step_peak(copy.deepcopy(model), xs[0], ys[0], None, loss)
    assert low < f32, f"bf16 {low / 2**20:.2f} MiB vs f32 {f32 / 2**20:.2f} MiB"


def test_autocast_large_mlp_matches_pytorch():
    """A training step big enough for the parallel tiled contractions
    (512 -> 1024 -> 1024 -> 10, batch 256: amp-cpu-tile-and-vectorize
    rounds their f32 accumulators to bf16 per cache tile where the readers
    round them, and returns packed C as a view): three autocast(cpu,
    bfloat16) momentum-SGD steps against PyTorch on the same weights and
    data. Losses within 1e-2 relative of torch.autocast's (measured: 2e-5);
    each weight's update as far from PyTorch's f32 update as PyTorch's own
    bf16 autocast is (measured 0.1-6%, PyTorch's 0.3-5%: bf16 gradients at
    initialisation, mostly noise): at most 1.5x that plus 1e-3. And the
    step's peak JIT memory below the f32 step's."""
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(512, 1024), nn.GELU(), nn.Linear(1024, 1024), nn.ReLU(),
                          nn.Linear(1024, 10))
    xs = torch.randn(3, 256, 512)
    ys = torch.randint(0, 10, (3, 256))
    _check_autocast_steps(model, loss_fn, xs, ys, slack=1e-3)


def _gpt(layers=1):
    """examples/training/gpt.py's char GPT, `layers` layers (d 64, 4 heads)."""
    import os
    import sys
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples",
                        "training")
    sys.path.insert(0, here)
    try:
        import gpt
    finally:
        sys.path.remove(here)
    torch.manual_seed(0)
    return gpt.GPT(context=64, d=64, heads=4, layers=layers), len(gpt.VOCAB)


def _flat_ce(m, x, y):
    logits = m(x)
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))


@pytest.mark.parametrize("name", ["cnn", "gpt"])
def test_autocast_cnn_gpt_match_pytorch(digits, name):
    """Three autocast(cpu, bfloat16) momentum-SGD steps of the digits CNN
    (batch 32) and of a one-layer char GPT (batch 16, context 64: the
    attention's bf16 batch_matmuls on the AVX512-BF16 path where the CPU has
    it, its head splits as strided copies, bf16 matmuls rounded per tile)
    against PyTorch on the same weights and data: losses within 1e-2
    relative of torch.autocast's; each parameter's update as far from
    PyTorch's f32 update as PyTorch's own bf16 autocast is (bf16 gradients:
    at most 1.5x that plus 2e-3); the bf16 step's peak JIT memory below the
    f32 step's."""
    if name == "cnn":
        model, loss = cnn(), loss_fn
        xs, ys = digits[0][:3], digits[1][:3]
    else:
        (model, vocab), loss = _gpt(), _flat_ce
        g = torch.Generator().manual_seed(1)
        xs = torch.randint(0, vocab, (3, 16, 64), generator=g)
        ys = torch.randint(0, vocab, (3, 16, 64), generator=g)
    _check_autocast_steps(model, loss, xs, ys, slack=2e-3)


def test_gpt_autocast_step_peak_and_values():
    """The two-layer char GPT of bench/train_step.py (batch 16, context 64):
    three autocast(cpu, bfloat16) momentum-SGD steps against PyTorch as in
    test_autocast_cnn_gpt_match_pytorch (the softmax backward reads the bf16
    softmax, amp-narrow-softmax-readers, as PyTorch's bf16 attention does),
    and the bf16 step's peak JIT memory at most 0.6x the f32 step's (issue
    28; measured 7.41 / 12.54 MiB = 0.59x: the attention scores' accumulator
    no longer shared across layers, amp-duplicate-fills, and no f32 softmax
    held for the backward; 10.91 / 12.57 MiB before)."""
    (model, vocab), loss = _gpt(layers=2), _flat_ce
    g = torch.Generator().manual_seed(2)
    xs = torch.randint(0, vocab, (3, 16, 64), generator=g)
    ys = torch.randint(0, vocab, (3, 16, 64), generator=g)
    _check_autocast_steps(model, loss, xs, ys, slack=2e-3)
    low = _step_peak(copy.deepcopy(model), xs[0], ys[0], ("cpu", "bfloat16"), loss)
    f32 = _step_peak(copy.deepcopy(model), xs[0], ys[0], None, loss)
    assert low <= 0.6 * f32, f"bf16 {low / 2**20:.2f} MiB vs f32 {f32 / 2**20:.2f} MiB"
