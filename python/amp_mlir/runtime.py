"""Element types and the project's CPU and CUDA runtimes, as execution needs them.

Layer: runtime support, below execution (:mod:`.device`, :mod:`.jit`) and
beside :mod:`.ir`. Imports from the package: :mod:`._config` only (it needs
neither MLIR nor the C API's handles).

- MLIR element type names and numpy dtypes: :func:`numpy_dtype` and
  :func:`element_type_of`. f32, f64, f16 (numpy float16), bf16
  (``ml_dtypes.bfloat16``), i1 (bool), i8/i16/i32/i64 and index (int64).
- CPU: the project's CPU runtime ``libamp_cpu_runtime.so`` (the one the JIT
  loads with libAmpMLIRCAPI.so): :func:`cpu_runtime_library`, the memory
  statistics of the buffers compiled CPU code allocates
  (:func:`cpu_memory_stats`, :func:`cpu_reset_peak_memory`) and whether its
  oneDNN contractions are built in (:func:`cpu_has_onednn`).
- CUDA: :func:`cuda_device_count` (the driver's), and the project's CUDA
  runtime ``libamp_cuda_runtime.so`` (the one the JIT loads with
  libAmpMLIRCAPI.so): :func:`cuda_runtime_library` and the memory
  statistics of compiled CUDA code (:func:`cuda_memory_stats`, ...).
"""

import ctypes
import os

import numpy as np

from . import _config

__all__ = ["numpy_dtype", "element_type_of", "cpu_runtime_library", "cpu_memory_stats",
           "cpu_reset_peak_memory", "cpu_has_onednn", "cpu_profile", "cpu_reset_profile",
           "format_cpu_profile", "cuda_device_count",
           "cuda_runtime_library", "cuda_memory_stats", "cuda_reset_peak_memory",
           "cuda_release_cached_memory"]


def numpy_dtype(element_type):
    """The numpy dtype of an MLIR element type name.

    Raises:
        TypeError: unknown type, or bf16 without the ml_dtypes package.
    """
    simple = {"f64": np.float64, "f32": np.float32, "f16": np.float16,
              "i64": np.int64, "i32": np.int32, "i16": np.int16, "i8": np.int8,
              "i1": np.bool_, "index": np.int64}
    if element_type in simple:
        return np.dtype(simple[element_type])
    if element_type == "bf16":
        try:
            import ml_dtypes
        except ImportError as e:
            raise TypeError("amp_mlir: bf16 arrays need the ml_dtypes package "
                            "(pip install ml_dtypes)") from e
        return np.dtype(ml_dtypes.bfloat16)
    raise TypeError(f"amp_mlir: no numpy dtype for MLIR type '{element_type}'")


def element_type_of(dtype):
    """The MLIR element type name of a numpy dtype (float32 -> f32, float16
    -> f16, bfloat16 -> bf16, bool -> i1, int32 -> i32, int64 -> i64, ...).

    Raises:
        TypeError: a dtype with no MLIR type.
    """
    names = {"float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16",
             "bool": "i1", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64"}
    if dtype.name not in names:
        raise TypeError(f"amp_mlir: no MLIR element type for numpy dtype {dtype}")
    return names[dtype.name]


_CPU_RUNTIME = []


def _memory_stats(stats_function):
    """``(current, peak)`` from a runtime's ``void f(uint64_t *, uint64_t *)``."""
    current, peak = ctypes.c_uint64(0), ctypes.c_uint64(0)
    stats_function(ctypes.byref(current), ctypes.byref(peak))
    return current.value, peak.value


def cpu_runtime_library():
    """The project's CPU runtime (libamp_cpu_runtime.so), the one the JIT
    loads with libAmpMLIRCAPI.so (the same library, so the same counters),
    with its allocation and statistics functions declared."""
    if not _CPU_RUNTIME:
        capi = os.environ.get("AMP_MLIR_CAPI_LIBRARY", _config.CAPI_LIBRARY)
        lib = ctypes.CDLL(os.path.join(os.path.dirname(capi), "libamp_cpu_runtime.so"))
        lib.ampCpuMemoryStats.argtypes = [ctypes.POINTER(ctypes.c_uint64)] * 2
        lib.ampCpuMemoryStats.restype = None
        lib.ampCpuResetPeakMemory.argtypes = []
        lib.ampCpuResetPeakMemory.restype = None
        lib.ampCpuHasOnednn.argtypes = []
        lib.ampCpuHasOnednn.restype = ctypes.c_int
        lib.ampCpuTakeAssertFailure.argtypes = []
        lib.ampCpuTakeAssertFailure.restype = ctypes.c_char_p
        lib.ampCpuProfileCount.argtypes = []
        lib.ampCpuProfileCount.restype = ctypes.c_int64
        lib.ampCpuProfileEntry.argtypes = [
            ctypes.c_int64, ctypes.POINTER(ctypes.c_char_p),
            ctypes.POINTER(ctypes.c_uint64), ctypes.POINTER(ctypes.c_uint64)]
        lib.ampCpuProfileEntry.restype = ctypes.c_int
        lib.ampCpuProfileReset.argtypes = []
        lib.ampCpuProfileReset.restype = None
        lib._mlir_memref_to_llvm_free.argtypes = [ctypes.c_void_p]
        lib._mlir_memref_to_llvm_free.restype = None
        _CPU_RUNTIME.append(lib)
    return _CPU_RUNTIME[0]


def cpu_memory_stats():
    """``(current, peak)``: the bytes of the buffers that code compiled by
    ``amp-cpu-pipeline`` allocated (its ``memref.alloc``\ s: activations,
    temporaries, results not yet freed) live now, and the most live at once
    since the start or the last :func:`cpu_reset_peak_memory` (as
    ``torch.cuda.max_memory_allocated``, for the CPU JIT). Arrays passed in
    are the caller's and not counted; results returned to Python count until
    the numpy arrays that hold them are freed."""
    return _memory_stats(cpu_runtime_library().ampCpuMemoryStats)


def cpu_reset_peak_memory():
    """Starts a new peak for :func:`cpu_memory_stats` at the bytes live now."""
    cpu_runtime_library().ampCpuResetPeakMemory()


def cpu_profile():
    """The per-op profile of code compiled with
    ``amp-cpu-pipeline{profile=true}``: a list of ``(name, seconds, calls)``,
    the most expensive op first, summed since the start or the last
    :func:`cpu_reset_profile`. ``name`` is
    ``"function#index op (operand types) location"``: the op's place in the
    function after bufferization (a tiled contraction is its ``scf.forall``,
    a oneDNN call its ``func.call``) and the location of the input op it
    came from."""
    lib = cpu_runtime_library()
    rows = []
    for i in range(lib.ampCpuProfileCount()):
        name, ns, calls = ctypes.c_char_p(), ctypes.c_uint64(0), ctypes.c_uint64(0)
        if lib.ampCpuProfileEntry(i, ctypes.byref(name), ctypes.byref(ns), ctypes.byref(calls)) \
                and calls.value:
            rows.append((name.value.decode(), ns.value * 1e-9, calls.value))
    return sorted(rows, key=lambda row: -row[1])


def cpu_reset_profile():
    """Restarts the sums of :func:`cpu_profile` at zero."""
    cpu_runtime_library().ampCpuProfileReset()


def format_cpu_profile(rows=None, top=None):
    """:func:`cpu_profile`'s rows as a table (total ms, share, calls, op)."""
    rows = cpu_profile() if rows is None else rows
    total = sum(row[1] for row in rows) or 1.0
    lines = [f"{'total ms':>10} {'%':>6} {'calls':>6}  op"]
    for name, seconds, calls in rows[:top]:
        lines.append(f"{1e3 * seconds:10.3f} {100 * seconds / total:6.1f} {calls:6d}  {name}")
    return "\n".join(lines)


def cpu_has_onednn():
    """Whether the CPU runtime was built with oneDNN, so that
    ``amp-cpu-pipeline{gemm=onednn}`` calls its primitives (without it, the
    calls compute with a slow reference loop and say so)."""
    return bool(cpu_runtime_library().ampCpuHasOnednn())


def cuda_device_count():
    """Number of CUDA devices the driver sees (0 without a driver or GPU)."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return 0
    count = ctypes.c_int(0)
    if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(count)) != 0:
        return 0
    return count.value


def cuda_runtime_library():
    """The project's CUDA runtime (libamp_cuda_runtime.so), the one the JIT
    loads with libAmpMLIRCAPI.so, with its memory-statistics functions
    declared. Raises OSError when it was not built (no CUDA toolkit)."""
    capi = os.environ.get("AMP_MLIR_CAPI_LIBRARY", _config.CAPI_LIBRARY)
    lib = ctypes.CDLL(os.path.join(os.path.dirname(capi), "libamp_cuda_runtime.so"))
    lib.ampCudaMemoryStats.argtypes = [ctypes.POINTER(ctypes.c_uint64)] * 2
    lib.ampCudaMemoryStats.restype = None
    lib.ampCudaResetPeakMemory.argtypes = []
    lib.ampCudaResetPeakMemory.restype = None
    lib.ampCudaReleaseCachedMemory.argtypes = []
    lib.ampCudaReleaseCachedMemory.restype = None
    return lib


def cuda_memory_stats():
    """``(current, peak)``: the device memory in bytes (managed memory
    included) that compiled CUDA code holds now and the most it held at once
    since the start or the last :func:`cuda_reset_peak_memory`. Counts the
    runtime's allocations only, and not the freed buffers it keeps for
    reuse (as ``torch.cuda.max_memory_allocated``); works (reports zeros)
    without a GPU. Raises
    OSError when libamp_cuda_runtime.so was not built (no CUDA toolkit)."""
    return _memory_stats(cuda_runtime_library().ampCudaMemoryStats)


def cuda_reset_peak_memory():
    """Starts a new peak for :func:`cuda_memory_stats` at the memory held now."""
    cuda_runtime_library().ampCudaResetPeakMemory()


def cuda_release_cached_memory():
    """Returns the device buffers that the CUDA runtime keeps for reuse after
    compiled code freed them to the driver (as ``torch.cuda.empty_cache``).
    Without a GPU, or before any CUDA code ran, it does nothing."""
    cuda_runtime_library().ampCudaReleaseCachedMemory()
