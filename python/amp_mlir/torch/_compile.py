"""Compiling a ``torch.nn.Module`` with amp-mlir: :func:`compile` exports it
(:mod:`._export`, parameters as arguments), runs amp-mlir's CPU or CUDA
pipeline and JIT, and returns a callable on torch tensors.

Layer: the PyTorch front end's compilation step, above :mod:`._export` and
the package's compiler (:mod:`amp_mlir.compiler`), which it imports.
"""

import re
import time
import warnings

import numpy as np
import torch
import torch.utils._pytree as pytree

from ..compiler import compile as amp_compile
from ..compiler import pipeline_for
from ..device import to_device
from ..ir import MLIRError
from ..jit import RuntimeCheckError
from ..runtime import cuda_device_count
from ._export import TorchImportError, _location_source, export_module, parse_autocast

__all__ = ["compile", "CompiledModule", "to_numpy", "to_torch"]

_MODES = ("graph", "eager")


def to_numpy(tensor):
    """A torch tensor as a numpy array (bf16 as ``ml_dtypes.bfloat16``)."""
    t = tensor.detach()
    if t.device.type != "cpu":
        t = t.cpu()
    if t.dtype == torch.bfloat16:
        import ml_dtypes
        return t.contiguous().view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return t.contiguous().numpy()


def to_torch(array):
    """A numpy array (a result of the JIT) as a torch tensor, sharing its memory."""
    array = np.asarray(array)
    if array.dtype.name == "bfloat16":
        return torch.from_numpy(array.view(np.int16)).view(torch.bfloat16)
    if not array.flags.writeable:  # torch warns on read-only arrays
        array = array.copy()
    return torch.from_numpy(array)


def _op_of(message):
    m = re.search(r"'([a-z_][a-z_0-9]*\.[a-z_0-9.]+)' op", message)
    return m.group(1) if m else None


def _torch_error(error):
    """A :class:`TorchImportError` for an amp-mlir diagnostic that names an op
    and a location in the user's Python, else None."""
    for severity, loc, message in error.diagnostics:
        if severity != "error":
            continue
        op = _op_of(message)
        if op:
            return TorchImportError(op, _location_source(loc), message.splitlines()[0])
    return None


def _user_check_error(error):
    """A :class:`RuntimeCheckError` of the compiled ``forward`` whose message
    names the user's source line (the innermost frame outside PyTorch) in
    place of the locations the check carries."""
    message, _, locations = error.check.partition(" at ")
    source = _location_source(locations)
    return RuntimeCheckError(
        error.function, message + (f" (at {source})" if source else "") +
        "; the module's results for these inputs were discarded")


class CompiledModule:
    """A module compiled by :func:`compile`: call it with torch tensors of
    the example shapes and dtypes; it returns torch tensors in the module's
    output structure (a tuple where the module returns one).

    Attributes:
        text: the imported MLIR (before amp-mlir's pipeline).
        pipeline: the pipeline text it was compiled with.
        compile_seconds: export + import + pipeline + JIT, in seconds.
        executable: the :class:`amp_mlir.Executable`.
    """

    def __init__(self, exported, executable, pipeline, device, compile_seconds):
        self.text = exported.text
        self.executable = executable
        self.pipeline = pipeline
        self.device = device
        self.compile_seconds = compile_seconds
        self._exported = exported
        self._examples = [t for t in pytree.tree_leaves(exported.example_inputs)
                          if isinstance(t, torch.Tensor)]
        self._names = list(exported.input_names)
        if device == "cuda":
            self._constants = [to_device(to_numpy(c)) for c in exported.constants]
        else:
            self._constants = [to_numpy(c) for c in exported.constants]

    def _check(self, args):
        leaves, spec = pytree.tree_flatten(args)
        tensors = [t for t in leaves if isinstance(t, torch.Tensor)]
        if len(tensors) != len(self._examples) or len(leaves) != len(tensors):
            raise ValueError(f"amp_mlir.torch: expected {len(self._examples)} tensor "
                             f"arguments ({', '.join(self._names)}), got {len(leaves)} "
                             f"values ({len(tensors)} tensors)")
        for name, have, want in zip(self._names, tensors, self._examples):
            if have.dtype != want.dtype or tuple(have.shape) != tuple(want.shape):
                raise ValueError(
                    f"amp_mlir.torch: argument '{name}' must be a {want.dtype} tensor "
                    f"of shape {tuple(want.shape)} (as the example), got {have.dtype} "
                    f"{tuple(have.shape)}")
        return tensors

    def __call__(self, *args):
        tensors = self._check(args)
        inputs = [to_numpy(t) for t in tensors]
        if self.device == "cuda":
            outs = self.executable.invoke_device("forward", *self._constants, *inputs)
            outs = outs if isinstance(outs, tuple) else (outs,)
            outs = [o.numpy() for o in outs]
        else:
            try:
                outs = self.executable.invoke("forward", *self._constants, *inputs)
            except RuntimeCheckError as e:
                raise _user_check_error(e) from None
            outs = outs if isinstance(outs, tuple) else (outs,)
        device = tensors[0].device if tensors else torch.device("cpu")
        results = [to_torch(outs[i]).to(device) for i in self._exported.user_outputs]
        return pytree.tree_unflatten(results, self._exported.out_spec)


def _check_device(device):
    if device not in ("cpu", "cuda"):
        raise ValueError(f"amp_mlir.torch: device must be 'cpu' or 'cuda', got {device!r}")
    if device == "cuda" and cuda_device_count() == 0:
        raise RuntimeError("amp_mlir.torch: device='cuda' needs an NVIDIA GPU and its "
                           "driver; none is available on this machine (use device='cpu')")


def _warn_training(module, entry):
    """Warns when ``module`` (or a submodule) is in training mode: it is
    exported in eval mode (dropout off, batch norm on its running statistics),
    which is not what calling it in training mode computes."""
    if not isinstance(module, torch.nn.Module):
        return
    training = [name or type(module).__name__ for name, m in module.named_modules()
                if m.training]
    if training:
        shown = ", ".join(training[:3]) + (", ..." if len(training) > 3 else "")
        warnings.warn(
            f"amp_mlir.torch.{entry}: the module is in training mode ({shown}); it is "
            "compiled with eval-mode semantics (dropout off, batch norm on its running "
            "statistics). Call module.eval() first, or use compile_train_step to train.",
            UserWarning, stacklevel=3)


def _check_gemm(gemm, device, entry):
    """``gemm`` is one of the values ``device``'s pipeline takes."""
    valid = ("codegen", "onednn") if device == "cpu" else ("codegen", "cublas")
    if gemm not in valid:
        raise ValueError(f"amp_mlir.torch.{entry}: gemm must be one of "
                         f"{', '.join(repr(v) for v in valid)} on device={device!r}, "
                         f"got {gemm!r}")


def compile(module, example_args, *, autocast=None, mode="graph", device="cpu",
            opt_level=3, gemm="codegen"):
    """Compiles ``module`` (a ``torch.nn.Module``, in eval mode) with amp-mlir.

    Args:
        example_args: a tensor or a tuple of tensors: the static shapes and
            dtypes of ``forward``'s arguments.
        autocast: None (f32, except the module's own ``torch.autocast``
            blocks) or ``(device_type, dtype)`` in torch's spelling (see
            :data:`AUTOCAST_SPELLINGS`): the whole of ``forward`` is an
            autocast region.
        mode: ``"graph"`` or ``"eager"``, amp-autocast's propagation mode.
        device: ``"cpu"`` (``amp-cpu-pipeline``) or ``"cuda"``
            (``amp-cuda-pipeline``, needs a GPU).
        opt_level: LLVM's optimisation level for the JIT, 0-3 (3 is the
            fastest code; 1 compiles resnet18 about 2x faster).
        gemm: how contractions and convolutions are computed: ``"codegen"``
            (amp-mlir's own code) or, on the CPU, ``"onednn"`` (oneDNN
            primitives, ``amp-cpu-pipeline{gemm=onednn}``); on CUDA,
            ``"cublas"``.

    Returns:
        a :class:`CompiledModule`.

    Raises:
        TorchImportError: an op torch-mlir or amp-mlir cannot lower (names
            the op and the user's source line).
        ValueError: bad ``autocast``, ``mode``, ``device`` or ``gemm``.
        RuntimeError: ``device="cuda"`` without a GPU.
        amp_mlir.MLIRError: another compiler error.
    """
    parse_autocast(autocast)
    if mode not in _MODES:
        raise ValueError(f"amp_mlir.torch: mode must be 'graph' or 'eager', got {mode!r}")
    _check_device(device)
    _check_gemm(gemm, device, "compile")
    _warn_training(module, "compile")
    start = time.perf_counter()
    exported = export_module(module, example_args, autocast=autocast)
    pipeline = pipeline_for(device, autocast=True, mode=mode, gemm=gemm)
    executable = compile_text(exported.text, pipeline, opt_level=opt_level)
    return CompiledModule(exported, executable, pipeline, device,
                          time.perf_counter() - start)


def compile_text(text, pipeline, opt_level=3):
    """``amp_mlir.compile`` of imported text; an error naming an op and a
    location in the user's Python becomes a :class:`TorchImportError`."""
    try:
        return amp_compile(text, pipeline=pipeline, opt_level=opt_level,
                           source_name="<torch-mlir import>")
    except MLIRError as e:
        error = _torch_error(e)
        if error is None:
            raise
        raise error from e
