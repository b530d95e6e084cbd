"""AMP training on the scikit-learn digits dataset (real data) reaches the
f32 run's accuracy: each run >= 95% on the held-out 450 images, and each AMP
run within 1 point of f32."""
import pytest

from amp_mlir import digits


@pytest.fixture(scope="module")
def results():
    data = digits.load_digits_split()
    return {run: digits.train(run, epochs=15, seed=0, data=data) for run in digits.RUNS}


@pytest.mark.parametrize("run", list(digits.RUNS))
def test_accuracy(results, run):
    acc = results[run]["accuracy"][-1]
    f32 = results["f32"]["accuracy"][-1]
    assert acc >= 0.95
    assert abs(acc - f32) <= 0.01


def test_loss_decreases(results):
    for run, r in results.items():
        assert r["loss"][-1] < 0.1 * r["loss"][0], run


def test_f16_run_used_loss_scaling(results):
    trainer = results["cuda/f16+scaling"]["trainer"]
    assert len(trainer.scale_history) == 15 * (1347 // 64)
    # No overflow in this run: the scale stays at 65536 (growth needs 2000 steps).
    assert set(trainer.scale_history) == {65536.0}
