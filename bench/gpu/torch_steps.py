#!/usr/bin/env python3
"""The PyTorch baselines of bench/gpu/measure.py: the MLP and transformer
block training steps in PyTorch (SGD with momentum, cross-entropy), eager f32,
eager AMP (torch.autocast f16 + GradScaler) or torch.compile AMP.

    python torch_steps.py NAME BATCH IN CLASSES [--compiled]

prints one JSON line {label: [steps/s, peak device memory in bytes]}.
measure.py runs the torch.compile one this way, in a process that has not
loaded LLVM 22 (Triton's LLVM crashes against it).
"""
import argparse
import json
import time

import numpy as np


def batch_data(batch, fin, classes, seed=0):
    """The input batch and one-hot labels every step of a benchmark trains on."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((batch, fin)).astype(np.float32)
    y = np.eye(classes, dtype=np.float32)[rng.integers(0, classes, batch)]
    return x, y


def timed(fn, repeat=3):
    """The best of `repeat` timed calls of fn (seconds), after one warm-up."""
    fn()  # warm-up
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def torch_steps(name, batch, fin, classes, x, y, compiled):
    """The same model in PyTorch: {label: (steps/s, peak device memory in
    bytes)} for eager f32 and eager AMP, or (compiled) torch.compile AMP."""
    import torch
    import torch.nn as nn

    def model():
        if name == "mlp":
            return nn.Sequential(nn.Linear(fin, 4096), nn.GELU(), nn.Linear(4096, 4096),
                                 nn.ReLU(), nn.Linear(4096, classes))
        layer = nn.TransformerEncoderLayer(fin, 16, 4 * fin, dropout=0.0,
                                           activation="gelu", norm_first=True,
                                           batch_first=True)
        return nn.Sequential(layer, nn.Flatten(0, 1), nn.Linear(fin, classes))

    xt = torch.tensor(x, device="cuda")
    if name != "mlp":
        xt = xt.reshape(batch // 256, 256, fin)
    yt = torch.tensor(y.argmax(1), device="cuda")
    out = {}
    runs = ((("compile_amp", True, True),) if compiled else
            (("eager_f32", False, False), ("eager_amp", True, False)))
    for label, amp_on, comp in runs:
        m = model().cuda()
        opt = torch.optim.SGD(m.parameters(), lr=1e-3, momentum=0.9)
        scaler = torch.amp.GradScaler("cuda", enabled=amp_on)
        f = torch.compile(m) if comp else m

        def step():
            opt.zero_grad(set_to_none=True)
            with torch.autocast("cuda", dtype=torch.float16, enabled=amp_on):
                loss = nn.functional.cross_entropy(f(xt), yt)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            torch.cuda.synchronize()
        for _ in range(3):
            step()
        torch.cuda.reset_peak_memory_stats()
        rate = 1.0 / timed(step, repeat=5)
        out[label] = (rate, torch.cuda.max_memory_allocated())
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("name", choices=["mlp", "transformer_block"])
    ap.add_argument("batch", type=int)
    ap.add_argument("fin", type=int)
    ap.add_argument("classes", type=int)
    ap.add_argument("--compiled", action="store_true")
    args = ap.parse_args()
    x, y = batch_data(args.batch, args.fin, args.classes)
    print(json.dumps(torch_steps(args.name, args.batch, args.fin, args.classes, x, y,
                                 args.compiled)))


if __name__ == "__main__":
    main()
