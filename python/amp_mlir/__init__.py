"""amp_mlir: automatic mixed precision on MLIR, from Python.

Parse MLIR text, run amp-opt pipelines, JIT-execute functions on numpy
arrays, and build mixed-precision training steps::

    import amp_mlir as amp
    exe = amp.compile(text, pipeline="amp-cpu-pipeline")
    y = exe.invoke("forward", x, w)

    # CUDA: weights stay on the device across calls
    exe = amp.compile(text, pipeline="amp-cuda-pipeline")
    w_dev = amp.to_device(w)
    y_dev = exe.invoke_device("forward", x, w_dev)   # a DeviceArray
    y = y_dev.numpy()

Built on libAmpMLIRCAPI.so (MLIR's C API and amp's) through ctypes; see
README.md for how to make the package importable.
"""
import os

from .ir import Context, FunctionSignature, MLIRError, Module, TensorSpec
from .device import DeviceArray, to_device
from .jit import ExecutionEngine, numpy_dtype

__all__ = ["Context", "Module", "MLIRError", "TensorSpec", "FunctionSignature",
           "ExecutionEngine", "Executable", "compile", "numpy_dtype",
           "cuda_device_count", "cuda_memory_stats", "cuda_reset_peak_memory",
           "cuda_release_cached_memory", "DeviceArray", "to_device"]


def cuda_device_count():
    """Number of CUDA devices the driver sees (0 without a driver or GPU)."""
    import ctypes
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return 0
    count = ctypes.c_int(0)
    if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(count)) != 0:
        return 0
    return count.value


def _cuda_runtime():
    """The project's CUDA runtime (libamp_cuda_runtime.so), the one the JIT
    loads with libAmpMLIRCAPI.so."""
    import ctypes
    from . import _config
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
    import ctypes
    current, peak = ctypes.c_uint64(0), ctypes.c_uint64(0)
    _cuda_runtime().ampCudaMemoryStats(ctypes.byref(current), ctypes.byref(peak))
    return current.value, peak.value


def cuda_reset_peak_memory():
    """Starts a new peak for :func:`cuda_memory_stats` at the memory held now."""
    _cuda_runtime().ampCudaResetPeakMemory()


def cuda_release_cached_memory():
    """Returns the device buffers that the CUDA runtime keeps for reuse after
    compiled code freed them to the driver (as ``torch.cuda.empty_cache``).
    Without a GPU, or before any CUDA code ran, it does nothing."""
    _cuda_runtime().ampCudaReleaseCachedMemory()


class Executable:
    """A module compiled by :func:`compile`: the JIT plus the tensor-level
    signatures of its functions (``signatures``) and the lowered module."""

    def __init__(self, engine):
        self.engine = engine
        self.signatures = engine.signatures

    def invoke(self, name, *args):
        """Calls ``@name``; see :meth:`ExecutionEngine.invoke`."""
        return self.engine.invoke(name, *args)

    def invoke_device(self, name, *args, donate=()):
        """Calls ``@name`` on device arrays (CUDA modules); see
        :meth:`ExecutionEngine.invoke_device`."""
        return self.engine.invoke_device(name, *args, donate=donate)

    def __getattr__(self, name):
        if name in self.__dict__.get("signatures", {}):
            return lambda *args: self.engine.invoke(name, *args)
        raise AttributeError(name)


def compile(source, pipeline="amp-cpu-pipeline", opt_level=3, context=None,
            source_name="<string>"):
    """Parses ``source`` (MLIR text, or a :class:`Module`, which is copied,
    not changed), runs ``pipeline`` (default: the CPU pipeline, autocast
    included) and JIT-compiles it. The public functions with a body are
    callable; declarations and private functions are not.

    Args:
        context: the :class:`Context` to parse in (default: a new one); its
            ``warnings`` then keep the passes' warnings and remarks.
        source_name: the name of the text in diagnostic locations.
        opt_level: LLVM optimisation level, 0-3.

    Raises:
        MLIRError: parse, verification, pass or JIT errors, with MLIR's
            diagnostics (locations included) in the message.
        RuntimeError: the pipeline produced GPU kernels (amp-cuda-pipeline)
            and this machine has no CUDA device.
    """
    if isinstance(source, Module):
        module = source.clone()  # the caller's module stays as it is
    else:
        module = (context or Context()).parse(source, source_name=source_name)
    signatures = {name: module.signature(name)
                  for name in module.functions(public_only=True)}
    module.emit_c_interface()
    module.run_pipeline(pipeline)
    if module.has_gpu_binaries() and cuda_device_count() == 0:
        # Loading the kernels (at JIT initialization) needs a GPU; without
        # one the CUDA runtime would stop the process.
        raise RuntimeError(
            "amp_mlir: the module was compiled for CUDA (gpu.binary kernels) "
            "but no CUDA device is available to load it; compile with "
            "amp-cpu-pipeline, or run on a machine with an NVIDIA GPU")
    return Executable(ExecutionEngine(module, signatures, opt_level=opt_level))
