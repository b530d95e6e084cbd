"""amp_mlir.torch: the PyTorch front end.

Compiles ``torch.nn.Module``s through ``torch.export`` and torch-mlir (linalg
on tensors) into amp-mlir's pipelines, with autocast::

    import amp_mlir.torch as amp_torch
    text = amp_torch.import_module(model, (x,), autocast=("cpu", "bfloat16"))
    fn = amp_torch.compile(model, (x,), autocast=("cpu", "bfloat16"))
    y = fn(x)                                    # torch tensors in and out

Training steps (forward + backward + optimizer + GradScaler as one compiled
step): :func:`compile_train_step`, see docs/Training.md.

See docs/TorchFrontEnd.md. Layer: above the package's compiler
(:mod:`amp_mlir.compiler`); it only re-exports its modules' names.
"""

# --- import (PyTorch -> MLIR): _export.py --------------------------------
from ._export import (AUTOCAST_SPELLINGS, ExportedModule, TorchImportError,
                      export_module, import_fx_graph, import_module, parse_autocast)

__all__ = ["AUTOCAST_SPELLINGS", "ExportedModule", "TorchImportError", "export_module",
           "import_fx_graph", "import_module", "parse_autocast"]

# --- compilation (amp-mlir pipeline + JIT): _compile.py -------------------
from ._compile import CompiledModule, compile  # noqa: E402

__all__ += ["CompiledModule", "compile"]

# --- torch.compile backend: _backend.py -----------------------------------
from ._backend import AmpBackendWarning, backend  # noqa: E402

__all__ += ["AmpBackendWarning", "backend"]

# --- training steps (issue 27): training.py --------------------------------
from .training import TrainStep, UnsupportedOpError, compile_train_step  # noqa: E402

__all__ += ["TrainStep", "UnsupportedOpError", "compile_train_step"]
