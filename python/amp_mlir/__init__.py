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

Layer: the package's front door, above every module; it only re-exports.
The modules, lowest layer first (each imports only modules of lower layers,
at its top, never this one): ``_config`` (build paths), ``_capi`` (the
ctypes binding), ``ir`` (contexts, modules, pipelines) and ``runtime``
(element types, the CPU and CUDA runtimes), ``device`` (device arrays), ``jit``
(execution), ``compiler`` (:func:`compile`), ``autodiff``, ``training``
and ``digits`` (model building and training). See docs/Python.md.
"""
from .ir import Context, FunctionSignature, MLIRError, Module, TensorSpec
from .runtime import (cpu_has_onednn, cpu_memory_stats, cpu_profile, cpu_reset_peak_memory,
                      cpu_reset_profile, format_cpu_profile,
                      cuda_device_count, cuda_memory_stats, cuda_release_cached_memory,
                      cuda_reset_peak_memory, numpy_dtype)
from .device import DeviceArray, to_device
from .jit import ExecutionEngine, RuntimeCheckError
from .compiler import Executable, compile

__all__ = ["Context", "Module", "MLIRError", "TensorSpec", "FunctionSignature",
           "ExecutionEngine", "RuntimeCheckError", "Executable", "compile", "numpy_dtype",
           "cpu_memory_stats", "cpu_reset_peak_memory", "cpu_has_onednn",
           "cpu_profile", "cpu_reset_profile", "format_cpu_profile",
           "cuda_device_count", "cuda_memory_stats", "cuda_reset_peak_memory",
           "cuda_release_cached_memory", "DeviceArray", "to_device"]
