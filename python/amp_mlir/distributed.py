"""Data-parallel training over MPI: the processes that ``mpirun`` started.

A data-parallel training step (``Trainer(..., distributed=True)``) runs the
same compiled step in every process ("rank") on its own rows of the batch;
the gradients are averaged across the ranks by MPI all-reduces inside the
compiled code (``amp-cpu-pipeline{data-parallel=N}``, docs/Distributed.md),
so every rank applies the same update to the same replicated parameters.

:class:`Communicator` is ``MPI_COMM_WORLD`` of this process, reached through
ctypes on the MPI library that amp-mlir was built against
(``ampGetMpiLibrary()`` of the C API: Debian's OpenMPI, or MPICH); the JIT
calls the same library. Creating one initializes MPI (once per process);
MPI is finalized at a normal exit. An exception that nobody catches on any
rank prints its traceback and aborts every rank (``MPI_Abort``), so that
the others do not wait forever in an all-reduce.

Run with ``mpirun -np 2 python script.py`` (as root, add
``--allow-run-as-root``; with more ranks than cores, ``--oversubscribe``).

Layer: execution support, above the C API binding (:mod:`._capi`), which
is all it imports; :mod:`.jit` (which initializes MPI before it loads a
module that calls it), :mod:`.training` and :mod:`.digits` import it.
"""

import atexit
import ctypes
import sys
import zlib

import numpy as np

from . import _capi as C

__all__ = ["Communicator", "mpi_library", "mpi_implementation", "initialize"]


def mpi_library():
    """Path of the MPI library amp-mlir was built against.

    Raises:
        RuntimeError: the build found no MPI.
    """
    path = C.lib.ampGetMpiLibrary().decode()
    if not path:
        raise RuntimeError(
            "amp_mlir: this build of amp-mlir has no MPI (CMake found none); "
            "install Debian's libopenmpi-dev and openmpi-bin (scripts/setup.sh) "
            "and configure again")
    return path


def mpi_implementation():
    """ABI of :func:`mpi_library`: ``"OpenMPI"`` or ``"MPICH"``."""
    mpi_library()
    return C.lib.ampGetMpiImplementation().decode() or "OpenMPI"


class _Mpi:
    """The MPI library's C functions and predefined handles (OpenMPI: the
    addresses of ``ompi_mpi_*`` globals; MPICH: integer constants)."""

    def __init__(self):
        path = mpi_library()
        # RTLD_GLOBAL: OpenMPI's plugins resolve libmpi's symbols globally.
        self.lib = lib = ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        if mpi_implementation() == "OpenMPI":
            handle = ctypes.c_void_p
            addr = lambda name: handle(ctypes.addressof(ctypes.c_char.in_dll(lib, name)))
            self.comm_world = addr("ompi_mpi_comm_world")
            self.int64 = addr("ompi_mpi_int64_t")
            self.op_max, self.op_min = addr("ompi_mpi_op_max"), addr("ompi_mpi_op_min")
        else:  # MPICH's mpi.h
            handle = ctypes.c_int
            self.comm_world = handle(0x44000000)
            self.int64 = handle(0x4c00083a)
            self.op_max, self.op_min = handle(0x58000001), handle(0x58000002)
        i32p = ctypes.POINTER(ctypes.c_int)
        for name, args in {
                "MPI_Initialized": [i32p], "MPI_Finalized": [i32p],
                "MPI_Init": [ctypes.c_void_p, ctypes.c_void_p], "MPI_Finalize": [],
                "MPI_Comm_rank": [handle, i32p], "MPI_Comm_size": [handle, i32p],
                "MPI_Barrier": [handle], "MPI_Abort": [handle, ctypes.c_int],
                "MPI_Allreduce": [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int,
                                  handle, handle, handle]}.items():
            fn = getattr(lib, name)
            fn.argtypes, fn.restype = args, ctypes.c_int

    def flag(self, fn):
        out = ctypes.c_int(0)
        fn(ctypes.byref(out))
        return bool(out.value)


_MPI = []


def _mpi():
    """The process's MPI, initialized on first use."""
    if not _MPI:
        mpi = _Mpi()
        if not mpi.flag(mpi.lib.MPI_Initialized):
            if mpi.lib.MPI_Init(None, None) != 0:
                raise RuntimeError("amp_mlir: MPI_Init failed")
            atexit.register(_finalize, mpi)
            _install_abort_hook(mpi)
        _MPI.append(mpi)
    return _MPI[0]


def initialize():
    """Initializes MPI in this process if nothing has (idempotent); returns
    the path of the MPI library. The JIT calls it before it loads a module
    that calls MPI.

    Raises:
        RuntimeError: amp-mlir was built without MPI; MPI_Init failed.
    """
    _mpi()
    return mpi_library()


def _finalize(mpi):
    if not mpi.flag(mpi.lib.MPI_Finalized):
        mpi.lib.MPI_Finalize()


def _install_abort_hook(mpi):
    """An uncaught exception on one rank aborts them all: the others may be
    blocked in a collective that the failed rank will never join."""
    previous = sys.excepthook

    def hook(kind, value, tb):
        previous(kind, value, tb)
        sys.stderr.flush()
        if not mpi.flag(mpi.lib.MPI_Finalized):
            mpi.lib.MPI_Abort(mpi.comm_world, 1)

    sys.excepthook = hook


class Communicator:
    """``MPI_COMM_WORLD`` of the processes started by ``mpirun``.

    Args:
        size: the number of processes the program expects, or None (any).

    Attributes:
        rank: this process's rank, 0 .. size-1. size: the number of ranks.

    Raises:
        RuntimeError: amp-mlir was built without MPI; MPI_Init failed;
            ``size`` differs from the number of processes mpirun started.
    """

    def __init__(self, size=None):
        self._mpi = mpi = _mpi()
        out = ctypes.c_int(0)
        mpi.lib.MPI_Comm_rank(mpi.comm_world, ctypes.byref(out))
        self.rank = out.value
        mpi.lib.MPI_Comm_size(mpi.comm_world, ctypes.byref(out))
        self.size = out.value
        if size is not None and size != self.size:
            raise RuntimeError(
                f"amp_mlir: the program expects {size} data-parallel processes, "
                f"but mpirun started {self.size} (rank {self.rank}); launch it "
                f"with mpirun -np {size}")

    def __repr__(self):
        return f"Communicator(rank={self.rank}, size={self.size})"

    def barrier(self):
        """Waits until every rank has called it."""
        self._mpi.lib.MPI_Barrier(self._mpi.comm_world)

    def _allreduce_int(self, value, op):
        send = ctypes.c_int64(int(value))
        recv = ctypes.c_int64(0)
        self._mpi.lib.MPI_Allreduce(ctypes.byref(send), ctypes.byref(recv), 1,
                                    self._mpi.int64, op, self._mpi.comm_world)
        return recv.value

    def max(self, value):
        """The largest of the ranks' integers ``value`` (MPI_Allreduce, MAX)."""
        return self._allreduce_int(value, self._mpi.op_max)

    def min(self, value):
        """The smallest of the ranks' integers ``value`` (MPI_Allreduce, MIN)."""
        return self._allreduce_int(value, self._mpi.op_min)

    def check_same(self, text, what):
        """Raises RuntimeError on every rank when the ranks' ``text`` differ
        (compared by CRC-32), naming ``what``; a collective call."""
        crc = zlib.crc32(text.encode() if isinstance(text, str) else text)
        low, high = self.min(crc), self.max(crc)
        if low != high:
            raise RuntimeError(
                f"amp_mlir: the {self.size} ranks have different {what} "
                f"(rank {self.rank}: CRC-32 {crc:#010x}); every rank must "
                "build the same model, batch size and options")

    def shard(self, array):
        """This rank's rows of ``array`` (numpy): the rank-th of ``size``
        equal blocks along dimension 0.

        Raises:
            ValueError: the rows do not split into ``size`` equal blocks.
        """
        array = np.asarray(array)
        rows = array.shape[0] if array.ndim else 0
        if rows % self.size:
            raise ValueError(f"Communicator.shard: {rows} rows do not split into "
                             f"{self.size} equal blocks")
        n = rows // self.size
        return array[self.rank * n:(self.rank + 1) * n]

    def abort(self, code=1):
        """Ends every rank of the job (MPI_Abort)."""
        self._mpi.lib.MPI_Abort(self._mpi.comm_world, int(code))
