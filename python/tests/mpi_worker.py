"""One rank of the data-parallel tests (test_distributed.py starts it with
``mpirun -np 2``): trains the digits MLP on this rank's half of fixed
batches and saves what the test compares into ``<out>/rank<r>.npz``.

Modes: ``f32`` (10 steps, f32), ``inf`` (autocast(cuda, f16) with loss
scaling; rank 1's batch holds an inf at steps 3 and 7), ``die`` (rank 1
exits after 2 steps without a word to the others), ``size3`` (the step
wants 3 processes), ``mismatch`` (rank 1 builds a different batch size),
``torch`` (a torch.nn MLP through ``amp_mlir.torch.compile_train_step``,
10 f32 steps).
"""
import os
import sys

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..")))

import numpy as np  # noqa: E402

from amp_mlir import digits  # noqa: E402
from amp_mlir.distributed import Communicator  # noqa: E402
from amp_mlir.training import SGD, Trainer  # noqa: E402

GLOBAL_BATCH = 64
STEPS = 10
INF_STEPS = (3, 7)


def batches(steps, seed=0):
    """``steps`` fixed global batches of the digits training set."""
    x_train, y_train, _, _ = digits.load_digits_split()
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(x_train))[:steps * GLOBAL_BATCH]
    for i in range(steps):
        idx = order[i * GLOBAL_BATCH:(i + 1) * GLOBAL_BATCH]
        yield x_train[idx], digits.onehot(y_train[idx])


def torch_model():
    """The PyTorch MLP of the ``torch`` mode and its optimizer (seeded)."""
    import torch
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 32), torch.nn.ReLU(),
                                torch.nn.Linear(32, 10))
    return model, torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)


def torch_loss(model, x, y):
    """Mean soft-label cross-entropy of ``model(x)`` against one-hot ``y``."""
    import torch
    return -(y * torch.log_softmax(model(x), dim=1)).sum(dim=1).mean()


def main_torch(comm, out):
    import torch
    from amp_mlir.torch import compile_train_step  # torch_mlir before any JIT runs
    model, opt = torch_model()
    local = GLOBAL_BATCH // comm.size
    example = (torch.zeros(local, 64), torch.zeros(local, 10))
    step = compile_train_step(model, torch_loss, opt, example, distributed=comm)
    params = []
    for x, y in batches(STEPS):
        step(torch.from_numpy(comm.shard(x).copy()), torch.from_numpy(comm.shard(y).copy()))
        step.sync()
        params.append(np.concatenate([p.detach().numpy().ravel()
                                      for p in model.parameters()]))
    np.savez(os.path.join(out, f"rank{comm.rank}.npz"), params=np.stack(params),
             size=comm.size)


def main(mode, out):
    if mode == "torch":
        import amp_mlir.torch  # noqa: F401  (imports torch_mlir first)
    comm = Communicator()
    if mode == "torch":
        return main_torch(comm, out)
    local = GLOBAL_BATCH // comm.size
    kwargs = dict(autocast=None, loss_scaling=False)
    if mode == "inf":
        kwargs = dict(autocast=("cuda", "f16"), loss_scaling=True)
    if mode == "mismatch" and comm.rank == 1:
        local //= 2
    distributed = 3 if mode == "size3" else comm
    trainer = Trainer(digits.mlp(), local, 64, 10, SGD(lr=0.05, momentum=0.9),
                      seed=0, distributed=distributed, **kwargs)
    params, losses = [], []
    for step, (x, y) in enumerate(batches(STEPS)):
        x, y = comm.shard(x).copy(), comm.shard(y)
        if mode == "inf" and comm.rank == 1 and step in INF_STEPS:
            x[0, 5] = np.inf
        if mode == "die" and comm.rank == 1 and step == 2:
            os._exit(3)  # no MPI_Finalize, no message to rank 0
        losses.append(trainer.step(x, y))
        params.append(np.concatenate([p.ravel() for p in trainer.params]))
    np.savez(os.path.join(out, f"rank{comm.rank}.npz"), params=np.stack(params),
             losses=np.array(losses), scales=np.array(trainer.scale_history),
             skipped=trainer.skipped_steps, size=comm.size)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
