"""A ``torch.compile`` backend that compiles the graphs Dynamo captures with
amp-mlir: ``torch.compile(model, backend=amp_mlir.torch.backend())``.

Each captured graph is traced to ATen (``make_fx`` with torch-mlir's
decomposition table), imported (:func:`._export.import_fx_graph`) and
compiled by amp-mlir's CPU pipeline; a graph it cannot compile runs in
PyTorch, with a warning naming the op.

Layer: the PyTorch front end's Dynamo backend, above :mod:`._compile` and
:mod:`._export`, which it imports.
"""

import warnings

import torch
from torch.fx.experimental.proxy_tensor import make_fx
from torch_mlir.fx import get_decomposition_table

from ..compiler import pipeline_for
from ..ir import MLIRError
from ._compile import compile_text, to_numpy, to_torch
from ._export import TorchImportError, import_fx_graph, parse_autocast

__all__ = ["backend", "AmpBackendWarning"]


class AmpBackendWarning(UserWarning):
    """A graph the amp-mlir backend left to PyTorch (the message says why)."""


class _CompiledGraph:
    def __init__(self, executable, tuple_output, num_outputs):
        self.executable = executable
        self.tuple_output = tuple_output
        self.num_outputs = num_outputs

    def __call__(self, *args):
        outs = self.executable.invoke("forward", *[to_numpy(a) for a in args])
        outs = outs if isinstance(outs, tuple) else (outs,)
        results = [to_torch(o) for o in outs]
        return tuple(results) if self.tuple_output else results[0]


def _fallback(gm, why):
    warnings.warn(f"amp_mlir.torch.backend: running this graph in PyTorch: {why}",
                  AmpBackendWarning, stacklevel=3)
    return gm.forward


def backend(mode="graph", autocast=None):
    """A ``torch.compile`` backend compiling with amp-mlir's CPU pipeline.

    Args:
        mode: ``"graph"`` or ``"eager"`` (amp-autocast's mode).
        autocast: None or ``(device_type, dtype)`` (torch's spelling): each
            captured graph is one autocast region.

    For inference: a graph whose inputs require gradients while autograd is
    on (training), with symbolic shapes, or with an op torch-mlir or
    amp-mlir cannot lower runs in PyTorch, with an
    :class:`AmpBackendWarning` naming the reason (the op and its source
    line for an op).

    Raises:
        ValueError: bad ``mode`` or ``autocast``.
    """
    parse_autocast(autocast)
    if mode not in ("graph", "eager"):
        raise ValueError(f"amp_mlir.torch.backend: mode must be 'graph' or 'eager', "
                         f"got {mode!r}")
    pipeline = pipeline_for("cpu", autocast=True, mode=mode)

    def compile_graph(gm, example_inputs):
        if not all(isinstance(t, torch.Tensor) for t in example_inputs):
            return _fallback(gm, "symbolic (dynamic) shapes or non-tensor inputs")
        if torch.is_grad_enabled() and any(t.requires_grad for t in example_inputs):
            return _fallback(gm, "inputs require gradients (training graphs: use "
                                 "amp_mlir.torch's training step)")
        if any(t.device.type != "cpu" for t in example_inputs):
            return _fallback(gm, "inputs not on the CPU")
        try:
            # Traced on the real inputs (one eager run of the graph): tracing
            # with fake tensors inside Dynamo's compile left a guard on a
            # name of make_fx's own ("input0") in graphs with a Conv2d, and
            # torch.compile stopped with "Guard failed on the same frame".
            with torch.no_grad():
                aten = make_fx(gm, decomposition_table=get_decomposition_table(),
                               tracing_mode="real")(*example_inputs)
            outputs = [n for n in aten.graph.nodes if n.op == "output"][0].args[0]
            tuple_output = isinstance(outputs, (tuple, list))
            if not tuple_output:
                outputs = (outputs,)
            if not all(isinstance(o, torch.fx.Node) for o in outputs):
                return _fallback(gm, "outputs that are not tensors")
            text = import_fx_graph(aten, example_inputs, autocast=autocast)
            executable = compile_text(text, pipeline)
        except TorchImportError as e:
            return _fallback(gm, f"'{e.op}' cannot be lowered"
                             + (f" ({e.source})" if e.source else ""))
        except MLIRError as e:
            return _fallback(gm, str(e).splitlines()[0])
        return _CompiledGraph(executable, tuple_output, len(outputs))

    return compile_graph
