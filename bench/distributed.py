#!/usr/bin/env python3
"""Data-parallel step time: 1 process vs 2 MPI processes, and the
all-reduces' share of the 2-process step.

For each model (the digits MLP, global batch 64, 17 482 parameters, one
bucket; a wide MLP 1024 -> 2048 -> GELU -> 2048 -> GELU -> 10, global
batch 128, 6.3 M parameters, one bucket of 25 MB), three runs of the same
f32 momentum-SGD step, each timed as the median of --repeat steps after
--warmup, all in this one run:

- ``1 proc``: one process on the global batch (no MPI);
- ``2 procs``: ``mpirun -np 2``, each rank on half of the batch,
  ``Trainer(distributed=True)``: the gradients are all-reduced (the time
  of rank 0, after a barrier);
- ``2 procs, no all-reduce``: the same two processes on half of the batch
  each, but with the one-process step (no all-reduce): the same compute
  and the same contention for cores and memory. Its steps alternate with
  the all-reducing ones (a barrier before each), so that load from other
  jobs hits both alike.

The all-reduce share is ``(2 procs - 2 procs no all-reduce) / 2 procs``.
On a machine with as many cores as ranks the 2-process step should take
about half the 1-process one plus the all-reduce; with fewer free cores
the ranks compete for them (OMP_NUM_THREADS is 1 in every run, so that the
comparison is of processes, not of OpenMP threads). Run with the build's
virtual environment: ``build/venv/bin/python bench/distributed.py``.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))

from amp_mlir.training import GELU, LayerNorm, Linear, ReLU, SGD, Trainer  # noqa: E402

MODELS = {
    "digits MLP": (lambda: [Linear(64, 128), GELU(), LayerNorm(128), Linear(128, 64), ReLU(),
                            Linear(64, 10)], 64, 64),
    "wide MLP": (lambda: [Linear(1024, 2048), GELU(), Linear(2048, 2048), GELU(),
                          Linear(2048, 10)], 128, 1024),
}


def make_step(model, rows, distributed, seed=0):
    """A trainer of ``model`` on ``rows`` rows and its batch."""
    make, _, features = MODELS[model]
    trainer = Trainer(make(), rows, features, 10, SGD(lr=1e-3, momentum=0.9),
                      distributed=distributed)
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((rows, features)).astype(np.float32)
    y = np.eye(10, dtype=np.float32)[rng.integers(0, 10, rows)]
    return lambda: trainer.step(x, y)


def time_steps(steps, warmup, repeat, comm=None):
    """Median seconds of each of ``steps``, timed in turn (interleaved, so
    that a change of the machine's load hits all of them alike)."""
    for step in steps:
        for _ in range(warmup):
            step()
    times = [[] for _ in steps]
    for _ in range(repeat):
        for step, t in zip(steps, times):
            if comm is not None:
                comm.barrier()
            start = time.perf_counter()
            step()
            t.append(time.perf_counter() - start)
    return [float(np.median(t)) for t in times]


def worker(args):
    """One rank under mpirun: the step with and without all-reduce."""
    from amp_mlir.distributed import Communicator
    comm = Communicator()
    rows = MODELS[args.model][1] // comm.size
    dp, local = time_steps([make_step(args.model, rows, comm, comm.rank),
                            make_step(args.model, rows, None, comm.rank)],
                           args.warmup, args.repeat, comm)
    if comm.rank == 0:
        print(json.dumps({"dp": dp, "local": local}))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--models", default=",".join(MODELS),
                        help="comma-separated subset of: " + ", ".join(MODELS))
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        args.model = args.worker
        return worker(args)
    mpirun = shutil.which("mpirun")
    if not mpirun:
        sys.exit("bench/distributed.py: mpirun not found (scripts/setup.sh installs OpenMPI)")
    os.environ["OMP_NUM_THREADS"] = "1"
    print(f"{'model':>11} | {'1 proc':>9} | {'2 procs':>9} | {'2 procs, no all-reduce':>22} | "
          f"{'all-reduce share':>16} | 2 procs / 1 proc")
    for model in args.models.split(","):
        single, = time_steps([make_step(model, MODELS[model][1], None)],
                             args.warmup, args.repeat)
        cmd = [mpirun, "-np", "2"]
        if (os.cpu_count() or 1) < 2:
            cmd.append("--oversubscribe")
        if os.geteuid() == 0:
            cmd.append("--allow-run-as-root")
        cmd += [sys.executable, os.path.abspath(__file__), "--worker", model,
                "--warmup", str(args.warmup), "--repeat", str(args.repeat)]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=1800)
        if proc.returncode:
            sys.exit(proc.stdout + proc.stderr)
        two = json.loads(proc.stdout.strip().splitlines()[-1])
        share = (two["dp"] - two["local"]) / two["dp"]
        print(f"{model:>11} | {single * 1e3:7.2f}ms | {two['dp'] * 1e3:7.2f}ms | "
              f"{two['local'] * 1e3:20.2f}ms | {100 * share:15.1f}% | "
              f"{two['dp'] / single:.2f}")


if __name__ == "__main__":
    main()
