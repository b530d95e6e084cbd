"""AMP training on the scikit-learn digits dataset through the JIT.

1797 real 8x8 images of handwritten digits (shipped inside scikit-learn),
pixels scaled to [0, 1], split 75/25 with ``random_state=0`` (stratified).
An MLP ``64 -> 128 (GELU) -> LayerNorm -> 64 (ReLU) -> 10`` is trained with
momentum SGD, batch 64, in three runs: f32, ``autocast(cpu, bf16)``, and
``autocast(cuda, f16)`` with dynamic loss scaling. All three compile for
the CPU (amp-cpu-pipeline), or with ``--target cuda`` for a CUDA device
(amp-cuda-pipeline, sm_90; RuntimeError without a device).

Run ``python -m amp_mlir.digits [--target cpu|cuda]`` (with the package
importable) for the per-epoch table. ``mpirun -np 2 python -m
amp_mlir.digits --distributed`` trains data-parallel on two processes: each
takes half of every batch of 64, the gradients are averaged across them by
MPI inside the compiled step, and rank 0 prints the table.

Layer: the top of the training layer (the package's main job): imports
:mod:`.training` and :mod:`.distributed` (for ``--distributed``); scikit-learn, an optional dependency, is imported
when the data is loaded.
"""

import argparse
import os
import sys
import time

import numpy as np

from .distributed import Communicator
from .training import GELU, LayerNorm, Linear, ReLU, SGD, Trainer, cast_statistics

BATCH = 64
RUNS = {
    "f32": dict(autocast=None, loss_scaling=False),
    "cpu/bf16": dict(autocast=("cpu", "bf16"), loss_scaling=False),
    "cuda/f16+scaling": dict(autocast=("cuda", "f16"), loss_scaling=True),
}


def load_digits_split():
    """``(x_train, y_train, x_test, y_test)``: f32 features in [0, 1] and
    integer labels; the split is fixed (stratified, random_state=0)."""
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    data = load_digits()
    x = (data.data / 16.0).astype(np.float32)
    return tuple(train_test_split(x, data.target, test_size=0.25, random_state=0,
                                  stratify=data.target)[i] for i in (0, 2, 1, 3))


def mlp():
    return [Linear(64, 128), GELU(), LayerNorm(128), Linear(128, 64), ReLU(), Linear(64, 10)]


def onehot(labels, classes=10):
    out = np.zeros((len(labels), classes), np.float32)
    out[np.arange(len(labels)), labels] = 1.0
    return out


def train(run, epochs, seed=0, lr=0.05, data=None, log=None, target="cpu", comm=None):
    """Trains one run (a key of ``RUNS``) on ``target`` (``cpu`` or
    ``cuda``, as :class:`Trainer`); returns a dict with per-epoch ``loss``
    and ``accuracy`` lists, the ``trainer`` and ``seconds``. With ``comm``
    (a :class:`~amp_mlir.distributed.Communicator`) the run is
    data-parallel: each rank steps on its ``BATCH / comm.size`` rows of
    every batch; ``loss`` is then this rank's mean loss on its rows."""
    x_train, y_train, x_test, y_test = data or load_digits_split()
    rows = BATCH if comm is None else BATCH // comm.size
    trainer = Trainer(mlp(), rows, 64, 10, SGD(lr=lr, momentum=0.9),
                      eval_batch=len(x_test), seed=seed, target=target,
                      distributed=comm, **RUNS[run])
    shard = (lambda a: a) if comm is None else comm.shard
    rng = np.random.default_rng(seed)
    losses, accuracies = [], []
    start = time.perf_counter()
    for epoch in range(epochs):
        order = rng.permutation(len(x_train))
        total, steps = 0.0, 0
        for i in range(0, len(order) - BATCH + 1, BATCH):  # whole batches only
            idx = order[i:i + BATCH]
            total += trainer.step(shard(x_train[idx]), shard(onehot(y_train[idx])))
            steps += 1
        logits = trainer.predict(x_test)
        accuracies.append(float((logits.argmax(1) == y_test).mean()))
        losses.append(total / steps)
        if log:
            log(run, epoch, losses[-1], accuracies[-1], trainer)
    return dict(loss=losses, accuracy=accuracies, trainer=trainer,
                seconds=time.perf_counter() - start)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--epochs", type=int, default=15,
                        help="epochs per run (default 15; fewer may miss 95%%)")
    parser.add_argument("--seed", type=int, default=0,
                        help="seed of the weights and of the batch order (default 0)")
    parser.add_argument("--target", choices=["cpu", "cuda"], default="cpu",
                        help="where the steps run: cpu (amp-cpu-pipeline, default) or "
                             "cuda (amp-cuda-pipeline for sm_90; needs a CUDA device)")
    parser.add_argument("--distributed", action="store_true",
                        help="data-parallel over the processes mpirun started (cpu): "
                             "each takes its share of every batch of 64; rank 0 prints")
    args = parser.parse_args(argv)
    if args.distributed and args.target != "cpu":
        parser.error("--distributed runs on --target cpu only")
    if args.epochs < 1:
        parser.error(f"--epochs must be at least 1, got {args.epochs}")
    if args.seed < 0:
        parser.error(f"--seed must be non-negative, got {args.seed}")
    data = load_digits_split()
    comm = None
    if args.distributed:
        comm = Communicator()
        if BATCH % comm.size:
            parser.error(f"--distributed: {comm.size} processes do not split a batch "
                         f"of {BATCH} evenly")
    if comm is not None and comm.rank != 0:
        sys.stdout = open(os.devnull, "w")  # ranks other than 0 train silently
    print(f"digits: {len(data[0])} train / {len(data[2])} test images, batch {BATCH}, "
          f"MLP 64-128-LN-64-10, SGD(lr=0.05, momentum=0.9), {args.epochs} epochs, "
          f"target {args.target}" + (f", data-parallel on {comm.size} processes "
                                     f"({BATCH // comm.size} rows each; losses of rank 0)"
                                     if comm else ""))
    try:
        results = {run: train(run, args.epochs, args.seed, data=data, target=args.target,
                              comm=comm)
                   for run in RUNS}
    except RuntimeError as error:  # --target cuda without a device
        print(f"digits: {error}", file=sys.stderr)
        return 1
    names = list(RUNS)
    print("epoch | " + " | ".join(f"{n:>22}" for n in names))
    print("      | " + " | ".join(f"{'loss':>10} {'test acc':>11}" for _ in names))
    for e in range(args.epochs):
        print(f"{e + 1:5d} | " + " | ".join(
            f"{results[n]['loss'][e]:10.4f} {100 * results[n]['accuracy'][e]:10.2f}%"
            for n in names))
    scaled = results["cuda/f16+scaling"]["trainer"]
    hist = scaled.scale_history
    changes = [(0, 65536.0)] + [(i + 1, s) for i, s in enumerate(hist)
                                if s != (hist[i - 1] if i else 65536.0)]
    print(f"loss scale (cuda/f16): {len(hist)} steps, {scaled.skipped_steps} skipped; "
          "trajectory (step: scale): " + ", ".join(f"{i}: {s:g}" for i, s in changes))
    for run in names[1:]:
        stats = cast_statistics(results[run]["trainer"].ir)
        ops = ", ".join(f"{v} in {k}" for k, v in sorted(stats.items()) if k != "casts")
        print(f"cast statistics ({run}, train_step + predict): ops {ops}; "
              f"{stats['casts']} amp.cast inserted")
    for run in names:
        print(f"{run:>18}: final test accuracy {100 * results[run]['accuracy'][-1]:.2f}%, "
              f"{results[run]['seconds']:.1f} s")
    f32 = results["f32"]["accuracy"][-1]
    failures = []
    for r in names:
        acc = results[r]["accuracy"][-1]
        if acc < 0.95:
            failures.append(f"{r} reached {100 * acc:.2f}% < 95%")
        if abs(acc - f32) > 0.01:
            failures.append(f"{r} is {100 * abs(acc - f32):.2f} points from f32")
    if failures:
        print("FAIL:", "; ".join(failures),
              "(15 epochs or more are needed; fewer may not reach 95%)")
        return 1
    print("PASS (each run >= 95%, AMP within 1 point of f32)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
