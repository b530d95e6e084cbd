"""Digits (scikit-learn's 1797 real 8x8 images) trained from PyTorch modules
through amp_mlir.torch.compile_train_step: an MLP and a small CNN, each in
f32, autocast(cpu, bfloat16), and autocast(cpu, float16) with a GradScaler.

Split 75/25 (stratified, random_state=0), pixels / 16, batches of 64 (the
last partial batch of an epoch is dropped: the step has static shapes),
momentum SGD (lr 0.02, momentum 0.9), the same initial weights and batch
order for every run. Test accuracy is measured on the weights the step
trained (``step.sync()``, then the model's f32 forward, every epoch), and at
the end also through amp-mlir's inference (``amp_mlir.torch.compile`` under
the run's autocast).

    python examples/training/digits.py [--epochs 15] [--models mlp,cnn]

Prints loss and test accuracy per epoch per run, and PASS when every run
reaches 95% and each AMP run is within 1 point of f32, by both accuracy
measures (exit 1 otherwise).
"""
import argparse
import copy
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from amp_mlir.torch import compile as amp_compile
from amp_mlir.torch import compile_train_step

BATCH = 64
RUNS = {"f32": dict(autocast=None, scaler=False),
        "cpu/bf16": dict(autocast=("cpu", "bfloat16"), scaler=False),
        "cpu/f16+scaler": dict(autocast=("cpu", "float16"), scaler=True)}


def load():
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split
    data = load_digits()
    x = (data.data / 16.0).astype(np.float32)
    xtr, xte, ytr, yte = train_test_split(x, data.target, test_size=0.25, random_state=0,
                                          stratify=data.target)
    return (torch.from_numpy(xtr), torch.from_numpy(ytr).long(),
            torch.from_numpy(xte), torch.from_numpy(yte).long())


def mlp():
    return nn.Sequential(nn.Linear(64, 128), nn.GELU(), nn.LayerNorm(128),
                         nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 10))


def cnn():
    return nn.Sequential(nn.Unflatten(1, (1, 8, 8)), nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(),
                         nn.MaxPool2d(2), nn.Flatten(), nn.Linear(128, 10))


MODELS = {"mlp": mlp, "cnn": cnn}


def loss_fn(m, x, y):
    return F.cross_entropy(m(x), y)


def train(model, run, data, epochs, lr=0.02, seed=0, log=print):
    """Trains ``model`` (modified) in ``run`` (a key of RUNS); returns
    ``{"loss": [...], "accuracy": [...], "scales": [...], "skipped": n,
    "seconds": s}`` (per epoch; seconds of the steps only)."""
    xtr, ytr, xte, yte = data
    cfg = RUNS[run]
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    scaler = torch.amp.GradScaler("cpu") if cfg["scaler"] else None
    step = compile_train_step(model, loss_fn, opt, (xtr[:BATCH], ytr[:BATCH]),
                              autocast=cfg["autocast"], scaler=scaler)
    gen = torch.Generator().manual_seed(seed)
    out = {"loss": [], "accuracy": [], "scales": [], "seconds": 0.0}
    batches = len(xtr) // BATCH
    for epoch in range(epochs):
        order = torch.randperm(len(xtr), generator=gen)
        t0, losses = time.perf_counter(), []
        for b in range(batches):
            idx = order[b * BATCH:(b + 1) * BATCH]
            losses.append(step(xtr[idx], ytr[idx]))
        out["seconds"] += time.perf_counter() - t0
        step.sync()
        with torch.no_grad():
            acc = float((model(xte).argmax(1) == yte).float().mean()) * 100
        out["loss"].append(float(np.mean(losses)))
        out["accuracy"].append(acc)
        out["scales"].append(step.scale)
        log(f"  {run:15s} epoch {epoch + 1:2d}  loss {out['loss'][-1]:.4f}  "
            f"test accuracy {acc:6.2f}%  scale {step.scale:g}")
    out["skipped"] = step.skipped
    # The trained model's inference through amp-mlir too, under the run's
    # autocast (amp_mlir.torch.compile: torch.export + torch-mlir).
    model.eval()
    infer = amp_compile(model, (xte,), autocast=cfg["autocast"])
    out["amp_accuracy"] = float((infer(xte).argmax(1) == yte).float().mean()) * 100
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=15)
    p.add_argument("--models", default="mlp,cnn")
    p.add_argument("--lr", type=float, default=0.02)
    args = p.parse_args(argv)
    data = load()
    ok = True
    for name in args.models.split(","):
        torch.manual_seed(0)
        init = MODELS[name]()
        print(f"== digits {name}: {sum(p.numel() for p in init.parameters())} parameters, "
              f"{len(data[0])} train / {len(data[2])} test images, batch {BATCH}, "
              f"SGD lr {args.lr} momentum 0.9, {args.epochs} epochs")
        results = {run: train(copy.deepcopy(init), run, data, args.epochs, args.lr)
                   for run in RUNS}
        f32 = results["f32"]["accuracy"][-1]
        f32_amp = results["f32"]["amp_accuracy"]
        for run, r in results.items():
            acc, amp_acc = r["accuracy"][-1], r["amp_accuracy"]
            good = acc >= 95.0 and (run == "f32" or abs(acc - f32) <= 1.0) and \
                amp_acc >= 95.0 and (run == "f32" or abs(amp_acc - f32_amp) <= 1.0)
            ok &= good
            print(f"  {name} {run:15s} final test accuracy {acc:6.2f}% (f32 {f32:.2f}%; "
                  f"inference through amp-mlir {amp_acc:.2f}%), final loss "
                  f"{r['loss'][-1]:.4f}, skipped steps {r['skipped']}, "
                  f"{r['seconds']:.2f} s of steps  {'ok' if good else 'FAIL'}")
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
