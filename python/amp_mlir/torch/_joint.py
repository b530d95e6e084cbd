"""The joint forward + backward graph of a PyTorch loss, as linalg-on-tensors MLIR.

:func:`export_joint` traces ``loss_fn(model, *args)`` with AOTAutograd
(``torch._functorch.aot_autograd.aot_export_module(..., trace_joint=True)``)
and imports the FX graph with the front end's ``_export.import_fx_graph``
(torch-mlir's ``stateless_fx_import``,
``output_type="linalg-on-tensors"``). The result is one function::

    @joint(params..., buffers..., args..., seed: tensor<f32>)
        -> (updated buffers..., loss * seed, loss, grad(params)...)

whose gradients are those of ``loss * seed``: the seed of the backward pass is
an argument (the training step passes ``amp.scale_loss(1, scale)``, i.e.
GradScaler's ``scaler.scale(loss)``), and the unscaled loss is a second,
detached output.

Decompositions: torch-mlir's table (``torch_mlir.fx.get_decomposition_table``;
without it the import fails on ``torch.prim.NumToTensor``) with three
scatter-free overrides, so that the graph holds no ``tm_tensor.scatter`` (a
torch-mlir dialect that MLIR and amp-opt do not have):
``aten.nll_loss_backward`` (a one-hot comparison instead of
``torch._decomp.decompositions._nll_loss_backward``'s scatter),
``aten.max_pool2d_with_indices_backward`` and ``aten.embedding_dense_backward``
(one-hot sums instead of index_put / scatter_add).

torch_mlir bundles its own LLVM: it is imported here, at the top, before
anything runs amp's JIT in the process (see docs/Training.md).
"""

import re

import torch
import torch_mlir.fx as _tfx  # before amp's JIT runs: see the module docstring
from torch._functorch.aot_autograd import aot_export_module
from torch.nn.attention import SDPBackend, sdpa_kernel

from ._export import TorchImportError, import_fx_graph

__all__ = ["JointGraph", "export_joint", "UnsupportedOpError"]

aten = torch.ops.aten


class UnsupportedOpError(TorchImportError):
    """The model holds an op that the training step cannot differentiate or
    lower (a :class:`TorchImportError`); ``op`` names it."""

    def __init__(self, op, detail, source=None):
        super().__init__(op, source, detail)


# ---------------------------------------------------------------------------
# Scatter-free decompositions
# ---------------------------------------------------------------------------

def _nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index,
                       total_weight):
    """``torch._decomp.decompositions._nll_loss_backward`` with the scatter of
    -1 at the target replaced by ``-(arange(C) == target)``."""
    channel_dim = 0 if self.dim() < 2 else 1
    if reduction == 1:  # mean
        grad_output = grad_output / total_weight
    if self.dim() == 1 and target.dim() > 0:
        target = target[0]
    target = target.unsqueeze(channel_dim)
    safe_target = torch.where(target != ignore_index, target, 0)
    shape = [1] * self.dim()
    shape[channel_dim] = self.shape[channel_dim]
    classes = torch.arange(self.shape[channel_dim], device=self.device).reshape(shape)
    grad_input = -(classes == safe_target).to(self.dtype)
    if grad_input.dim() > grad_output.dim() > 0:
        grad_output = grad_output.unsqueeze(channel_dim)
    if weight is not None:
        wshape = [1] * self.dim()
        wshape[channel_dim] = weight.shape[0]
        grad_output = grad_output * weight.reshape(wshape)
    grad_output = torch.where(target != ignore_index, grad_output, 0)
    return grad_input * grad_output


def _pair(v):
    return (v[0], v[0]) if len(v) == 1 else (v[0], v[1])


def _max_pool2d_backward(grad_output, self, kernel_size, stride, padding, dilation,
                         ceil_mode, indices):
    """The gradient of max_pool2d: each output's gradient goes to the input
    element its index names (flat ``h * W + w`` per channel). Windows that do
    not overlap (stride = kernel, no padding or dilation, whole windows):
    the gradient and index broadcast over their window and compared with the
    element's own position; otherwise a one-hot sum over output positions."""
    batched = self.dim() == 4
    if not batched:
        self, grad_output, indices = (t.unsqueeze(0) for t in (self, grad_output, indices))
    n, c, h, w = self.shape
    oh, ow = grad_output.shape[-2:]
    kh, kw = _pair(kernel_size)
    sh, sw = _pair(stride) if stride else (kh, kw)
    ph, pw = _pair(padding)
    dh, dw = _pair(dilation)
    positions = torch.arange(h * w, device=self.device)
    if (sh, sw) == (kh, kw) and (ph, pw) == (0, 0) and (dh, dw) == (1, 1) \
            and oh * kh == h and ow * kw == w:
        def spread(t):
            return t[:, :, :, None, :, None].expand(n, c, oh, kh, ow, kw).reshape(n, c, h, w)
        own = spread(indices) == positions.reshape(h, w)
        out = torch.where(own, spread(grad_output), 0).to(self.dtype)
    else:
        onehot = (indices.reshape(n, c, oh * ow, 1) == positions).to(grad_output.dtype)
        out = (grad_output.reshape(n, c, oh * ow, 1) * onehot).sum(2)
        out = out.reshape(n, c, h, w).to(self.dtype)
    return out if batched else out.squeeze(0)


def _embedding_dense_backward(grad_output, indices, num_weights, padding_idx,
                              scale_grad_by_freq):
    """``grad_weight = onehot(indices)^T @ grad_output`` (rows of
    ``padding_idx`` zero), instead of an index_put accumulation."""
    if scale_grad_by_freq:
        raise UnsupportedOpError(
            "aten.embedding_dense_backward",
            "embedding with scale_grad_by_freq=True is not supported by the "
            "amp-mlir training step")
    dim = grad_output.shape[-1]
    flat = indices.reshape(-1)
    onehot = (flat[:, None] == torch.arange(num_weights, device=flat.device))
    if padding_idx is not None and padding_idx >= 0:
        onehot = onehot & (flat[:, None] != padding_idx)
    return onehot.to(grad_output.dtype).t() @ grad_output.reshape(-1, dim)


def decomposition_table():
    """torch-mlir's decomposition table with the scatter-free overrides."""
    table = dict(_tfx.get_decomposition_table())
    table[aten.nll_loss_backward.default] = _nll_loss_backward
    table[aten.max_pool2d_with_indices_backward.default] = _max_pool2d_backward
    table[aten.embedding_dense_backward.default] = _embedding_dense_backward
    return table


# ---------------------------------------------------------------------------
# Export
# ---------------------------------------------------------------------------

class _LossModule(torch.nn.Module):
    """``forward(*args, seed) -> (loss * seed, loss.detach())`` around the
    user's ``loss_fn(model, *args)``."""

    def __init__(self, model, loss_fn):
        super().__init__()
        self.model = model
        self.loss_fn = loss_fn

    def forward(self, *args):
        *data, seed = args
        loss = self.loss_fn(self.model, *data)
        if not isinstance(loss, torch.Tensor):
            raise TypeError(f"loss_fn must return a tensor, got {type(loss).__name__}")
        if loss.dim() != 0:
            raise ValueError(f"loss_fn must return a scalar (0-d) loss, got shape "
                             f"{tuple(loss.shape)}")
        return loss * seed, loss.detach()


class JointGraph:
    """The imported joint graph.

    Attributes:
        mlir: the module's text (``func.func @joint``).
        param_names / buffer_names: the model's parameters (that require
            grad) and buffers, in the function's argument order.
        mutated: the buffers the forward updates (BatchNorm's running
            statistics), whose new values are the function's first results
            (before the scaled loss).
        arg_specs: ``[(shape, torch.dtype)]`` of the user's arguments.
    """

    def __init__(self, mlir, param_names, buffer_names, arg_specs, mutated=()):
        self.mlir, self.param_names, self.buffer_names, self.arg_specs = \
            mlir, param_names, buffer_names, arg_specs
        self.mutated = list(mutated)


_DERIVATIVE = re.compile(r"derivative for '?([\w.:]+)'? is not implemented|"
                         r"([\w.:]+) does not support automatic differentiation")


# Where AOTAutograd's errors name the op: PyTorch's FX interpreter notes
# "While executing %x : ... = call_function[target=torch.ops.aten.foo.default]",
# the dispatcher says "aten::foo", fake tensors "aten.foo.default".
_OP_NAMES = (re.compile(r"target=torch\.ops\.(\w+)\.(\w+)"),
             re.compile(r"\b(aten|prims)::(\w+)"),
             re.compile(r"\b(aten|prims)\.(\w+)\.\w+"))


def _failing_op(error):
    """The op an AOTAutograd error is about (``aten.nonzero``), or
    ``"<unknown>"`` when its message names none."""
    message = str(error)
    m = _DERIVATIVE.search(message)
    if m:
        return m.group(1) or m.group(2)
    for pattern in _OP_NAMES:
        m = pattern.search(message)
        if m:
            return f"{m.group(1)}.{m.group(2)}"
    return "<unknown>"


def export_joint(model, loss_fn, example_args):
    """Traces ``loss_fn(model, *example_args)`` and its gradient with respect
    to every parameter of ``model`` and imports it (see the module docstring).

    Raises:
        ValueError: a non-scalar loss, or parameters some of which do not
            require grad (named).
        UnsupportedOpError: an op without a derivative, or one torch-mlir
            cannot lower to linalg (named).
        TypeError: a non-tensor argument or loss.
    """
    params = dict(model.named_parameters())
    frozen = [n for n, p in params.items() if not p.requires_grad]
    if frozen:
        raise ValueError(
            f"parameter(s) {', '.join(frozen)} do not require grad while others do: "
            "the amp-mlir training step trains every parameter of the model "
            "(set requires_grad=True, or make frozen tensors buffers)")
    if not params:
        raise ValueError("the model has no parameters: there is nothing to train")
    for i, a in enumerate(example_args):
        if not isinstance(a, torch.Tensor):
            raise TypeError(f"example_args[{i}] must be a tensor, got {type(a).__name__}")
    wrapper = _LossModule(model, loss_fn)
    seed = torch.ones((), dtype=torch.float32)
    try:
        # scaled_dot_product_attention as matmuls and softmax (PyTorch's
        # math backend): the CPU flash kernel's backward has no lowering.
        with sdpa_kernel([SDPBackend.MATH]):
            gm, sig = aot_export_module(wrapper, tuple(example_args) + (seed,),
                                        trace_joint=True, output_loss_index=0,
                                        decompositions=decomposition_table())
    except (UnsupportedOpError, ValueError, TypeError):
        raise
    except Exception as e:  # noqa: BLE001 - AOTAutograd raises many kinds
        op = _failing_op(e)
        raise UnsupportedOpError(
            op, f"cannot differentiate the loss ({type(e).__name__}): {e}") from e
    # Buffers the forward updates (BatchNorm's running statistics): their new
    # values are the graph's first outputs, in this order.
    mutated = list(sig.buffers_to_mutate.values())
    unknown = [b for b in mutated if b not in sig.buffers]
    if unknown:
        raise UnsupportedOpError("input mutation", f"the loss updates {', '.join(unknown)}, "
                                 "which is not a buffer of the model: not supported")
    if getattr(sig, "user_inputs_to_mutate", None):
        raise UnsupportedOpError("input mutation", "loss_fn updates its input(s) in place: "
                                 "not supported by the amp-mlir training step")
    grads = sig.backward_signature.gradients_to_parameters
    param_names = list(sig.parameters)
    order = list(sig.user_outputs)[:2] + [g for g in grads]
    if [grads[g] for g in order[2:]] != param_names:
        raise RuntimeError("amp_mlir: unexpected gradient order in the joint graph")
    try:
        # The front end's FX import (torch_mlir.fx.stateless_fx_import to
        # linalg on tensors; errors name the op and the user's line, and
        # ops left in torch-mlir's TMTensor dialect are refused).
        text = import_fx_graph(gm, func_name="joint", debug_info=False)
    except TorchImportError as e:
        raise UnsupportedOpError(e.op, e.detail, e.source) from e
    arg_specs = [(tuple(a.shape), a.dtype) for a in example_args]
    return JointGraph(text, param_names, list(sig.buffers), arg_specs, mutated)
