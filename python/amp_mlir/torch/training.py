"""PyTorch training steps compiled as one mixed-precision step (issue 27).

:func:`compile_train_step` turns a ``torch.nn.Module``, a loss function, a
``torch.optim`` optimizer and optionally a ``torch.amp.GradScaler`` into one
compiled function ``@train_step``:

1. ``%seed = amp.scale_loss 1, %scale`` (``scaler.scale(loss)``; 1 without a
   scaler);
2. the joint forward + backward graph (:mod:`._joint`: AOTAutograd's, imported
   by torch-mlir) inside ``amp.autocast`` when ``autocast`` is given, so the
   forward and the backward follow the same cast policy;
3. ``amp.unscale`` (the gradients times 1/scale, and ``found_inf``), the
   optimizer update on the f32 master weights inside ``amp.step_if_finite``
   (skipped, bit for bit, on inf/NaN gradients), and ``amp.update_scale``
   with the scaler's ``growth_factor``, ``backoff_factor`` and
   ``growth_interval``.

The weights, the optimizer state and the scaler state are numpy arrays that
the step updates in place: they are ``memref`` arguments of ``@train_step``
(``bufferization.to_tensor restrict writable`` in,
``bufferization.materialize_in_destination`` out), which one-shot
bufferization turns into in-place updates, so a step neither copies nor
allocates them. :meth:`TrainStep.sync` writes them back into the model and the
optimizer.

Optimizers (:mod:`._optimizers`; hyper-parameters read from the optimizer; PyTorch's update
rules, ``torch/optim/sgd.py`` and ``torch/optim/adam.py``
``_single_tensor_*``): ``torch.optim.SGD`` (lr, momentum, dampening,
weight_decay, nesterov), ``torch.optim.Adam`` and ``torch.optim.AdamW`` (lr,
betas, eps, weight_decay). Anything else raises ``NotImplementedError``
naming what is supported.
"""

import re

import numpy as np
import torch

from ..compiler import compile as amp_compile, pipeline_for
from ..ir import Context
from ..training import (communicator_for, data_parallel_lines, guarded_update_lines,
                        unscale_lines)
from ._export import parse_autocast
from ._joint import UnsupportedOpError, export_joint
from ._optimizers import _Emitter, _optimizer, _tensor_type

__all__ = ["compile_train_step", "TrainStep", "UnsupportedOpError"]

_ELEMENT_TYPES = {torch.float32: "f32", torch.float64: "f64", torch.float16: "f16",
                  torch.int64: "i64", torch.int32: "i32", torch.bool: "i1"}


# ---------------------------------------------------------------------------
# The step
# ---------------------------------------------------------------------------

def _scaler_settings(scaler):
    if scaler is None:
        return None
    if not isinstance(scaler, torch.amp.GradScaler):
        raise TypeError(f"scaler must be a torch.amp.GradScaler or None, got "
                        f"{type(scaler).__name__}")
    if not scaler.is_enabled():
        return None
    state = scaler.state_dict()  # GradScaler's public state
    return {"scale": float(state["scale"]), "tracker": int(state["_growth_tracker"]),
            "growth_factor": float(state["growth_factor"]),
            "backoff_factor": float(state["backoff_factor"]),
            "growth_interval": int(state["growth_interval"])}


def _memref(tensor_type):
    return "memref" + tensor_type[len("tensor"):]


def build_step_mlir(joint, optimizer_rule, shapes, arg_types, autocast, scaling,
                    world_size=None, tied=None):
    """The module text: the joint graph (private ``@joint``) and the public
    ``@train_step``.

    ``@train_step(params..., state..., [scale, tracker], updated buffers...,
    lr: tensor<f64>, buffers..., args...) -> (loss, found_inf)``: the weights, the optimizer
    state, the scaler state and the buffers the forward updates are memrefs that the step updates in place (read with
    ``bufferization.to_tensor restrict writable``, written back with
    ``bufferization.materialize_in_destination``, which bufferization turns
    into in-place updates: no copy, no allocation of them per step); the
    buffers and the data are tensors, only read.

    With ``world_size`` (data-parallel, docs/Distributed.md) the gradients
    are averaged over the ranks of ``shard.grid @amp_dp`` and the skip
    decision is the ranks' vote (:func:`amp_mlir.training.data_parallel_lines`).

    ``tied`` (tied parameters: one tensor under several names) gives, for
    each parameter of the joint graph, the index of its tensor in ``shapes``
    (one entry per distinct tensor): the step passes that tensor for each of
    its names and updates it once with the sum of their gradients, as
    PyTorch's autograd accumulates them into the one ``.grad``.
    """
    np_, ns = len(shapes), len(optimizer_rule.state_specs(shapes))
    ptypes = [_tensor_type(s) for s in shapes]
    tied = tied if tied is not None else list(range(np_))
    stypes = [_tensor_type(s) for _, s in optimizer_rule.state_specs(shapes)]
    pnames = [f"%p{i}" for i in range(np_)]
    snames = [f"%st{i}" for i in range(ns)]
    bnames = [f"%b{i}" for i in range(len(joint.buffer_types))]
    anames = [f"%x{i}" for i in range(len(arg_types))]
    resident = list(zip(pnames + snames, ptypes + stypes))
    if scaling:
        resident += [("%scale", "tensor<f32>"), ("%tracker", "tensor<i32>")]
    # Buffers the forward updates are resident too, the others only read.
    mutated = [joint.buffer_names.index(b) for b in joint.mutated]
    resident += [(bnames[i], joint.buffer_types[i]) for i in mutated]
    args = [f"{n}_m: {_memref(t)}" for n, t in resident] + ["%lr: tensor<f64>"]
    args += [f"{n}: {t}" for i, (n, t) in enumerate(zip(bnames, joint.buffer_types))
             if i not in mutated]
    args += [f"{n}: {t}" for n, t in zip(anames, arg_types)]

    lines = [f"    {n} = bufferization.to_tensor {n}_m restrict writable : {_memref(t)} to {t}"
             for n, t in resident]
    seed = "%seed"
    if scaling:
        lines.append("    %one = arith.constant dense<1.0> : tensor<f32>")
        lines.append("    %seed = amp.scale_loss %one, %scale : tensor<f32>")
    else:
        lines.append("    %seed = arith.constant dense<1.0> : tensor<f32>")
    joint_ptypes = [ptypes[u] for u in tied]
    call_types = [joint.buffer_types[i] for i in mutated] + \
        ["tensor<f32>", "tensor<f32>"] + joint_ptypes
    call_args = [pnames[u] for u in tied] + bnames + anames + [seed]
    in_types = joint_ptypes + list(joint.buffer_types) + list(arg_types) + ["tensor<f32>"]
    call = (f"func.call @joint({', '.join(call_args)}) : ({', '.join(in_types)}) -> "
            f"({', '.join(call_types)})")
    n = len(call_types)
    if autocast:
        dev, dtype = autocast
        lines.append(f"    %j:{n} = amp.autocast device_type({dev}) dtype({dtype}) -> "
                     f"({', '.join(call_types)}) {{")
        lines.append(f"      %r:{n} = {call}")
        lines.append(f"      amp.yield {', '.join(f'%r#{i}' for i in range(n))} : "
                     f"{', '.join(call_types)}")
        lines.append("    }")
    else:
        lines.append(f"    %j:{n} = {call}")
    nm = len(mutated)
    loss = f"%j#{nm + 1}"
    # Each tensor's gradient: the sum of its names' (tied parameters).
    grads = []
    for u, t in enumerate(ptypes):
        parts = [f"%j#{nm + 2 + i}" for i, v in enumerate(tied) if v == u]
        total = parts[0]
        for k, part in enumerate(parts[1:]):
            lines.append(f"    %tied{u}_e{k} = tensor.empty() : {t}")
            lines.append(f"    %tied{u}_s{k} = linalg.add ins({total}, {part} : {t}, {t}) "
                         f"outs(%tied{u}_e{k} : {t}) -> {t}")
            total = f"%tied{u}_s{k}"
        grads.append(total)
    e = _Emitter()
    kept, kept_types = pnames + snames, ptypes + stypes
    flag = "%found_inf"
    if scaling:
        unscale, ugrads = unscale_lines(grads, ptypes)
        lines += unscale
        if world_size is not None:
            dp, ugrads = data_parallel_lines(ugrads, ptypes, world_size, True)
            lines += dp
            flag = "%found_any"
        new_params, new_state = optimizer_rule.emit(e, pnames, ugrads, snames, shapes, "%lr")
        guarded, outs = guarded_update_lines(
            kept, kept_types, [l[4:] for l in e.lines], new_params + new_state,
            growth_factor=scaling["growth_factor"], backoff_factor=scaling["backoff_factor"],
            growth_interval=scaling["growth_interval"], found_inf=flag)
        lines += guarded
    else:
        if world_size is not None:
            dp, grads = data_parallel_lines(grads, ptypes, world_size, False)
            lines += dp
        new_params, new_state = optimizer_rule.emit(e, pnames, grads, snames, shapes, "%lr")
        lines += e.lines
        lines.append("    %found_inf = arith.constant false")
        outs = new_params + new_state
    # The new buffer values are written whether the step is skipped or not
    # (PyTorch's forward updates them before GradScaler looks at gradients).
    outs = outs + [f"%j#{k}" for k in range(nm)]
    for new, (name, t) in zip(outs, resident):
        lines.append(f"    bufferization.materialize_in_destination {new} in restrict writable "
                     f"{name}_m : ({t}, {_memref(t)}) -> ()")
    func = [f"  func.func @train_step({', '.join(args)}) -> (tensor<f32>, i1) {{"]
    func += lines
    func.append(f"    return {loss}, {flag} : tensor<f32>, i1")
    func.append("  }")
    text = joint.mlir.replace("func.func @joint(", "func.func private @joint(", 1)
    end = text.rstrip().rindex("}")
    if world_size is not None:
        func.insert(0, f"  shard.grid @amp_dp(shape = {world_size})")
    return text[:end] + "\n".join(func) + "\n}\n"


class TrainStep:
    """A compiled training step (see :func:`compile_train_step`).

    Calling it, ``step(*args)``, runs one whole step on tensors of the
    example arguments' shapes and dtypes and returns the loss (a float: the
    unscaled loss of the forward pass, as PyTorch's ``loss.item()``).

    Attributes:
        scale: the current loss scale (float; 1.0 without a scaler).
        skipped: the number of steps skipped for inf/NaN gradients.
        steps: the number of calls.
        mlir: the module's text before compilation.
    """

    def __init__(self, model, loss_fn, optimizer, example_args, autocast, scaler, mode,
                 device, opt_level=3, distributed=None, gemm="codegen",
                 profile=False):
        if device != "cpu":
            raise NotImplementedError(f"device={device!r}: the amp-mlir training step "
                                      "runs on 'cpu'")
        if mode not in ("graph", "eager"):
            raise ValueError(f"mode must be 'graph' or 'eager', got {mode!r}")
        if gemm not in ("codegen", "onednn"):
            raise ValueError(f"amp_mlir.torch.compile_train_step: gemm must be one of "
                             f"'codegen', 'onednn' on device='cpu', got {gemm!r}")
        if not isinstance(model, torch.nn.Module):
            raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
        if not callable(loss_fn):
            raise TypeError("loss_fn must be callable: loss_fn(model, *args) -> scalar loss")
        if not isinstance(optimizer, torch.optim.Optimizer):
            raise TypeError(f"optimizer must be a torch.optim.Optimizer, got "
                            f"{type(optimizer).__name__}")
        if isinstance(example_args, torch.Tensor):
            example_args = (example_args,)
        example_args = tuple(example_args)
        self._autocast = parse_autocast(autocast)
        self._scaling = _scaler_settings(scaler)
        named = [(n, p) for n, p in model.named_parameters()]
        for n, p in named:
            if p.dtype != torch.float32:
                raise TypeError(f"parameter {n} is {p.dtype}: the training step keeps f32 "
                                "master weights (model.float())")
        for i, a in enumerate(example_args):
            if not isinstance(a, torch.Tensor):
                raise TypeError(f"example_args[{i}] must be a tensor, got {type(a).__name__}")
            if a.dtype not in _ELEMENT_TYPES:
                raise TypeError(f"example_args[{i}] has dtype {a.dtype}, not supported")
        rule = None
        if named and all(p.requires_grad for _, p in named):
            rule = _optimizer(optimizer, [n for n, _ in named], [p for _, p in named])
        joint = export_joint(model, loss_fn, example_args)  # checks requires_grad
        # Every name of a tied parameter (an output projection sharing the
        # embedding's weight): the export lists each name as a parameter of
        # its own, with a gradient of its own.
        by_name = dict(model.named_parameters(remove_duplicate=False))
        params = [by_name[n[len("model."):]] for n in joint.param_names]
        # Tied parameters: each tensor once, its names' gradients summed.
        index, unique, tied = {}, [], []
        for p in params:
            if id(p) not in index:
                index[id(p)] = len(unique)
                unique.append(p)
            tied.append(index[id(p)])
        params = unique
        buffers = dict(model.named_buffers())
        buffer_values = [buffers[n[len("model."):]] for n in joint.buffer_names]
        joint.buffer_types = [_type_of(b) for b in buffer_values]
        shapes = [tuple(p.shape) for p in params]
        self._arg_specs = [(tuple(a.shape), a.dtype) for a in example_args]
        self.comm = communicator_for(distributed)
        self.mlir = build_step_mlir(joint, rule, shapes,
                                    [_type_of(a) for a in example_args],
                                    self._autocast, self._scaling,
                                    world_size=self.comm.size if self.comm else None,
                                    tied=tied)
        if self.comm is not None:
            self.comm.check_same(self.mlir, "training steps")
        module = Context().parse(self.mlir, source_name="train_step")
        module.run_pipeline("inline,symbol-dce")
        self._exe = amp_compile(module, pipeline=pipeline_for(
            "cpu", autocast=self._autocast is not None, mode=mode, gemm=gemm,
            profile=profile),
            opt_level=opt_level)
        self._model, self._optimizer, self._rule = model, optimizer, rule
        self._scaler = scaler
        self._mode = mode
        self._params = params
        self._param_arrays = [p.detach().numpy().astype(np.float32, copy=True)
                              for p in params]
        self._state = rule.initial_state(optimizer, params)
        self._scaler_state = []
        if self._scaling:
            self._scaler_state = [np.array(self._scaling["scale"], np.float32),
                                  np.array(self._scaling["tracker"], np.int32)]
        mutated = [joint.buffer_names.index(b) for b in joint.mutated]
        self._updated_buffers = [(buffer_values[i], buffer_values[i].detach().numpy().copy())
                                 for i in mutated]
        self._buffers = [np.ascontiguousarray(b.detach().numpy())
                         for i, b in enumerate(buffer_values) if i not in mutated]
        self._resident = self._param_arrays + self._state + self._scaler_state + \
            [a for _, a in self._updated_buffers]
        if not self._exe.engine._reads_only("train_step"):
            # The JIT would pass copies of the resident arrays.
            raise RuntimeError("amp_mlir: @train_step was not compiled with read-only "
                               "tensor arguments (amp_cpu.read_only_args)")
        self.skipped = 0
        self.steps = 0

    def _lr(self):
        """The optimizer's current lr (an LR scheduler may have changed it)."""
        lr = self._optimizer.param_groups[0]["lr"]
        if isinstance(lr, torch.Tensor) or not isinstance(lr, (int, float)):
            raise TypeError(f"the optimizer's lr must be a Python float, got {lr!r}")
        return np.array(lr, np.float64)

    @property
    def scale(self):
        return float(self._scaler_state[0]) if self._scaling else 1.0

    def _checked(self, args):
        if len(args) != len(self._arg_specs):
            raise TypeError(f"the step takes {len(self._arg_specs)} arguments (as "
                            f"example_args), {len(args)} given")
        out = []
        for i, (a, (shape, dtype)) in enumerate(zip(args, self._arg_specs)):
            if isinstance(a, torch.Tensor):
                if a.dtype != dtype:
                    raise TypeError(f"argument #{i}: dtype {a.dtype}, the example had {dtype}")
                a = a.detach().cpu().numpy()
            a = np.asarray(a)
            if tuple(a.shape) != shape:
                raise ValueError(f"argument #{i}: shape {tuple(a.shape)} differs from the "
                                 f"example's {shape} (the step is compiled for static "
                                 "shapes)")
            want = torch.empty((), dtype=dtype).numpy().dtype
            if a.dtype != want:
                raise TypeError(f"argument #{i}: dtype {a.dtype}, the example had {dtype}")
            out.append(a)
        return out

    def __call__(self, *args):
        data = self._checked(args)
        # The weights and the optimizer and scaler state are updated in place.
        loss, found_inf = self._exe.invoke("train_step", *self._resident, self._lr(),
                                           *self._buffers, *data)
        self.steps += 1
        self.skipped += int(bool(found_inf))
        return float(loss)

    def sync(self):
        """Writes the current weights into the model's parameters, the
        buffers the forward updates (BatchNorm's running statistics) into the
        model's buffers, the optimizer state into the optimizer
        (``optimizer.state``) and the loss scale and growth tracker into the
        GradScaler (``load_state_dict``)."""
        with torch.no_grad():
            for p, a in zip(self._params, self._param_arrays):
                p.copy_(torch.from_numpy(a))
            for b, a in self._updated_buffers:
                b.copy_(torch.from_numpy(a))
        self._rule.write_back(self._optimizer, self._params, self._state)
        if self._scaling:
            self._scaler.load_state_dict({
                "scale": float(self._scaler_state[0]),
                "_growth_tracker": int(self._scaler_state[1]),
                "growth_factor": self._scaling["growth_factor"],
                "backoff_factor": self._scaling["backoff_factor"],
                "growth_interval": self._scaling["growth_interval"]})

    def cast_statistics(self):
        """What the cast policy does to the step: ``{op name: {compute type:
        count}}`` over the inlined step (forward and backward together), from
        ``amp-autocast{annotate=1}`` (``{}`` without autocast)."""
        if not self._autocast:
            return {}
        module = Context().parse(self.mlir, source_name="train_step")
        module.run_pipeline(f"inline,symbol-dce,amp-autocast{{mode={self._mode} "
                            "annotate=1 keep-regions=1}")
        counts = {}
        for op, ctype in re.findall(r"= ([a-z_]+\.[a-z_0-9.]+)[^\n]*?amp\.compute_type = (\w+)",
                                    str(module)):
            counts.setdefault(op, {}).setdefault(ctype, 0)
            counts[op][ctype] += 1
        return counts

    def parameters(self):
        """The current weights: ``{name: numpy array}`` (the step's own
        arrays, updated in place by each step: copy to keep)."""
        by_id = {id(p): n for n, p in self._model.named_parameters()}
        return {by_id[id(p)]: a for p, a in zip(self._params, self._param_arrays)}

    def state_arrays(self):
        """The optimizer and scaler state arrays (in place, as parameters)."""
        return list(self._state) + list(self._scaler_state)


def _type_of(t):
    et = _ELEMENT_TYPES.get(t.dtype)
    if et is None:
        raise TypeError(f"tensor of dtype {t.dtype} is not supported")
    return "tensor<" + "".join(f"{d}x" for d in t.shape) + et + ">"


def compile_train_step(model, loss_fn, optimizer, example_args, *, autocast=None,
                       scaler=None, mode="graph", device="cpu", opt_level=3,
                       distributed=None, gemm="codegen", profile=False):
    """Compiles one whole training step of ``model``.

    Args:
        model: a ``torch.nn.Module`` with f32 parameters, all requiring grad.
        loss_fn: ``loss_fn(model, *args)`` -> a scalar (0-d) loss tensor.
        optimizer: ``torch.optim.SGD``, ``Adam`` or ``AdamW`` over exactly the
            model's parameters (one group); its hyper-parameters and any state
            it already has are read.
        example_args: tensors whose shapes and dtypes every call must have.
        autocast: ``None`` (f32) or ``(device_type, dtype)``: ``("cpu",
            "bfloat16")``, ``("cuda", "float16")``... (torch dtypes too): the
            forward and backward run under amp-mlir's cast policy for it.
        scaler: a ``torch.amp.GradScaler`` (its scale, growth tracker and
            settings are read) or ``None``: no loss scaling.
        mode: the autocast pass's mode, ``graph`` or ``eager``.
        device: ``cpu``.
        opt_level: LLVM's optimisation level for the JIT, 0-3.
        distributed: data-parallel over the MPI processes that ``mpirun``
            started (docs/Distributed.md): ``True``, their number, or an
            :class:`amp_mlir.distributed.Communicator`; ``None``: one
            process. Every rank compiles the same step (RuntimeError
            otherwise) from equal weights and calls it on its own rows; the
            gradients are averaged across the ranks inside the step, and an
            inf/NaN on any rank makes all of them skip. The returned loss is
            the rank's own.
        gemm: the step's contractions and convolutions: ``"codegen"``
            (amp-mlir's own code) or ``"onednn"`` (oneDNN primitives,
            ``amp-cpu-pipeline{gemm=onednn}``).
        profile: time every op of the step (``amp-cpu-pipeline{profile=true}``);
            :func:`amp_mlir.cpu_profile` / :func:`amp_mlir.format_cpu_profile`
            give the table. Off by default (the timers cost a little per op).

    Returns:
        :class:`TrainStep`.

    Raises:
        UnsupportedOpError: an op that cannot be differentiated or lowered
            (``.op`` names it). ValueError: a non-scalar loss, a parameter
            that does not require grad (named), a bad ``autocast``/``mode``/
            ``gemm``.
        NotImplementedError: another optimizer, option or device.
        TypeError: non-tensor arguments, non-f32 parameters.
    """
    return TrainStep(model, loss_fn, optimizer, example_args, autocast, scaler, mode, device,
                     opt_level, distributed, gemm, profile)
