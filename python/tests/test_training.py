"""The training-step builder: gradients, optimizers, loss scaling."""
import numpy as np
import pytest

import amp_mlir as amp
from amp_mlir.training import (GELU, Adam, LayerNorm, Linear, ReLU, SGD, Trainer,
                               TransformerBlock, _model_params, build_loss_and_grads,
                               cast_statistics)

LAYERS = {
    "linear": ([Linear(5, 3)], 4, 5, 3),
    "relu": ([ReLU()], 4, 5, 5),
    "gelu": ([GELU()], 4, 5, 5),
    "layernorm": ([LayerNorm(6)], 4, 6, 6),
    "mlp": ([Linear(6, 8), GELU(), LayerNorm(8), Linear(8, 4), ReLU()], 3, 6, 4),
    "transformer_block": ([TransformerBlock(8, heads=2, seq_len=3)], 6, 8, 8),
}


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_gradients_match_finite_differences(name):
    """The builder's gradients (input and every parameter) against central
    differences in f64, at 6 random entries of each."""
    layers, batch, fin, fout = LAYERS[name]
    exe = amp.compile(build_loss_and_grads(layers, batch, fin, fout, "f64"),
                      pipeline="amp-cpu-pipeline{autocast=0}")
    rng = np.random.default_rng(1)
    x = rng.standard_normal((batch, fin))
    r = rng.standard_normal((batch, fout))
    params = [init(rng).astype(np.float64) + 0.1 * rng.standard_normal(shape)
              for _, shape, init in _model_params(layers)]
    out = exe.invoke("loss_and_grads", x, r, *params)
    args = [x] + params
    assert len(out) == 1 + len(args)
    np.testing.assert_allclose(out[0], exe.invoke("loss", x, r, *params), rtol=1e-12)
    h = 1e-6
    for k, grad in enumerate(out[1:]):
        assert grad.shape == args[k].shape
        for _ in range(6):
            idx = tuple(rng.integers(0, s) for s in args[k].shape)
            plus = [a.copy() for a in args]
            minus = [a.copy() for a in args]
            plus[k][idx] += h
            minus[k][idx] -= h
            fd = (exe.invoke("loss", plus[0], r, *plus[1:]) -
                  exe.invoke("loss", minus[0], r, *minus[1:])) / (2 * h)
            assert grad[idx] == pytest.approx(fd, rel=1e-6, abs=1e-8), (name, k, idx)


def _linear_ce_reference(w, b, x, y):
    z = x @ w + b
    p = np.exp(z - z.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    loss = -(y * np.log(p)).sum() / len(x)
    dz = (p - y) / len(x)
    return loss, x.T @ dz, dz.sum(0)


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_optimizer_step_matches_pytorch_rule(optimizer):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((8, 5)).astype(np.float32)
    y = np.eye(4, dtype=np.float32)[rng.integers(0, 4, 8)]
    opt = SGD(lr=0.1, momentum=0.9) if optimizer == "sgd" else Adam(lr=0.01)
    trainer = Trainer([Linear(5, 4)], 8, 5, 4, opt, seed=2)
    w, b = [p.astype(np.float64) for p in trainer.params]
    loss = trainer.step(x, y)
    ref_loss, gw, gb = _linear_ce_reference(w, b, x.astype(np.float64), y)
    assert loss == pytest.approx(ref_loss, rel=1e-5)
    if optimizer == "sgd":
        want = [w - 0.1 * gw, b - 0.1 * gb]
        np.testing.assert_allclose(trainer.state[0], gw, rtol=1e-4, atol=1e-6)
    else:
        def adam(p, g):
            m, v = 0.1 * g, 0.001 * g * g
            return p - 0.01 / 0.1 * m / (np.sqrt(v) / np.sqrt(0.001) + 1e-8)
        want = [adam(w, gw), adam(b, gb)]
        np.testing.assert_allclose(trainer.state[:2], [0.9, 0.999], rtol=1e-7)
    for got, ref in zip(trainer.params, want):
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-6)


def test_skipped_steps_leave_weights_bit_identical():
    """f16 autocast with loss scale 2^40: the scaled gradients overflow f16,
    so steps are skipped (weights and momentum unchanged bit for bit) and the
    scale halves each time until the gradients are finite."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 12)).astype(np.float32)
    y = np.eye(3, dtype=np.float32)[rng.integers(0, 3, 16)]
    trainer = Trainer([Linear(12, 16), ReLU(), Linear(16, 3)], 16, 12, 3, SGD(0.1, 0.9),
                      autocast=("cuda", "f16"), loss_scaling=True, init_scale=2.0 ** 40)
    scales = []
    while True:
        before = [p.copy() for p in trainer.params + trainer.state]
        skipped = trainer.skipped_steps
        trainer.step(x, y)
        scales.append(float(trainer.scale))
        if trainer.skipped_steps == skipped:
            break
        for a, b in zip(before, trainer.params + trainer.state):
            assert a.tobytes() == b.tobytes()
        assert len(scales) < 40
    assert trainer.skipped_steps >= 10  # 2^40 * |grad| overflows f16 (65504)
    assert scales == [2.0 ** (39 - i) for i in range(len(scales) - 1)] + [scales[-2]]
    assert int(trainer.tracker) == 1
    assert any(a.tobytes() != b.tobytes() for a, b in zip(before, trainer.params))


def test_transformer_block_trains_under_bf16_autocast():
    """A transformer block + head memorizes a fixed batch in bf16 autocast."""
    rng = np.random.default_rng(0)
    seqs, t, d = 2, 4, 16
    layers = [TransformerBlock(d, heads=2, seq_len=t), Linear(d, 5)]
    x = rng.standard_normal((seqs * t, d)).astype(np.float32)
    y = np.eye(5, dtype=np.float32)[rng.integers(0, 5, seqs * t)]
    trainer = Trainer(layers, seqs * t, d, 5, Adam(lr=1e-2), autocast=("cpu", "bf16"))
    losses = [trainer.step(x, y) for _ in range(30)]
    assert np.isfinite(losses).all()
    assert losses[-1] < 0.2 * losses[0]
    stats = cast_statistics(trainer.ir)
    assert stats["bf16"] > 0 and stats["f32"] > 0 and stats["casts"] > 0


def test_bad_autocast_argument():
    with pytest.raises(ValueError, match="autocast must be"):
        Trainer([Linear(2, 2)], 2, 2, 2, SGD(), autocast=("tpu", "f16"))


def test_wrong_model_width():
    with pytest.raises(ValueError, match=r"the model produces \(4, 3\), expected \(4, 5\)"):
        Trainer([Linear(2, 3)], 4, 2, 5, SGD())


@pytest.mark.parametrize("scale", [0.0, -1.0, float("inf"), float("nan"), 1e39])
def test_bad_init_scale(scale):
    with pytest.raises(ValueError, match="init_scale"):
        Trainer([Linear(3, 2)], 4, 3, 2, SGD(), loss_scaling=True, init_scale=scale)


def test_model_without_parameters():
    with pytest.raises(ValueError, match="the model has no parameters"):
        Trainer([ReLU()], 2, 3, 3, SGD(), loss_scaling=True)


@pytest.mark.parametrize("make, message", [
    (lambda: TransformerBlock(4, 0, 1), "heads must be a positive integer, got 0"),
    (lambda: TransformerBlock(4, 2, 0), "seq_len must be a positive integer, got 0"),
    (lambda: TransformerBlock(6, 4, 2), "d=6 is not a multiple of heads=4"),
    (lambda: Linear(0, 2), "in_features must be a positive integer, got 0"),
    (lambda: LayerNorm(4, eps=0.0), "eps must be positive"),
    (lambda: Trainer([Linear(2, 2)], 0, 2, 2, SGD()), "batch must be a positive integer, got 0"),
    (lambda: Trainer([TransformerBlock(4, 2, 3), Linear(4, 2)], 4, 4, 2, SGD()),
     "4 rows are not whole sequences of 3"),
])
def test_bad_layer_arguments(make, message):
    with pytest.raises(ValueError, match=message):
        make()
