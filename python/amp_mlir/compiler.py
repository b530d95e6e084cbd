"""Compilation: MLIR text or a module, through an amp pipeline, to a callable
:class:`Executable`.

Layer: compilation, above IR (:mod:`.ir`) and execution (:mod:`.jit`,
:mod:`.runtime`), which it imports; below training (:mod:`.training`), which
imports it. :func:`compile` parses (or copies) the module, records the
tensor-level signatures of its public functions, runs the pipeline and
JIT-compiles the result; :func:`pipeline_for` spells the pipeline of a
target (``amp-cpu-pipeline`` or ``amp-cuda-pipeline``) with its options.
"""

from .ir import Context, Module
from .jit import ExecutionEngine
from .runtime import cuda_device_count

__all__ = ["compile", "Executable", "pipeline_for", "CPU_PIPELINE", "CUDA_PIPELINE"]

#: The CPU pipeline (autocast included), :func:`compile`'s default.
CPU_PIPELINE = "amp-cpu-pipeline"
#: The CUDA pipeline (tensor-core kernels, managed memory; needs a GPU to run).
CUDA_PIPELINE = "amp-cuda-pipeline"


def pipeline_for(target, autocast=True, mode="graph", chip="sm_90", gemm="codegen",
                 profile=False):
    """The pipeline text for ``target``: ``cpu`` (``amp-cpu-pipeline`` with
    ``autocast``, ``mode`` and ``gemm``: ``codegen`` or ``onednn``;
    ``profile=True`` times every op, see :func:`amp_mlir.cpu_profile`) or
    ``cuda`` (``amp-cuda-pipeline``, also with ``chip``; ``gemm``:
    ``codegen`` or ``cublas``).

    Raises:
        ValueError: another target.
    """
    enabled = 1 if autocast else 0
    if target == "cpu":
        extra = " profile=true" if profile else ""
        return f"{CPU_PIPELINE}{{autocast={enabled} mode={mode} gemm={gemm}{extra}}}"
    if target == "cuda":
        return (f"{CUDA_PIPELINE}{{autocast={enabled} mode={mode} chip={chip} "
                f"gemm={gemm}}}")
    raise ValueError(f"target must be 'cpu' or 'cuda', got {target!r}")


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


def compile(source, pipeline=CPU_PIPELINE, opt_level=3, context=None,
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
