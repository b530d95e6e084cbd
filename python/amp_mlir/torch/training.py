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

Optimizers (hyper-parameters read from the optimizer; PyTorch's update
rules, ``torch/optim/sgd.py`` and ``torch/optim/adam.py``
``_single_tensor_*``): ``torch.optim.SGD`` (lr, momentum, dampening,
weight_decay, nesterov), ``torch.optim.Adam`` and ``torch.optim.AdamW`` (lr,
betas, eps, weight_decay). Anything else raises ``NotImplementedError``
naming what is supported.
"""

import math
import re

import numpy as np
import torch

from ..compiler import compile as amp_compile, pipeline_for
from ..ir import Context
from ..training import (communicator_for, data_parallel_lines, guarded_update_lines,
                        unscale_lines)
from ._export import parse_autocast
from ._joint import UnsupportedOpError, export_joint

__all__ = ["compile_train_step", "TrainStep", "UnsupportedOpError"]

_ELEMENT_TYPES = {torch.float32: "f32", torch.float64: "f64", torch.float16: "f16",
                  torch.int64: "i64", torch.int32: "i32", torch.bool: "i1"}


def _tensor_type(shape):
    return "tensor<" + "".join(f"{d}x" for d in shape) + "f32>"


def _map(rank):
    dims = ", ".join(f"d{i}" for i in range(rank))
    return f"affine_map<({dims}) -> ({dims})>"


def _scalar_map(rank):
    dims = ", ".join(f"d{i}" for i in range(rank))
    return f"affine_map<({dims}) -> ()>"


def _f(v):
    """An f32 literal (the value rounded to f32, as PyTorch passes a Python
    float scalar to an f32 kernel)."""
    return f"{float(np.float32(v))!r}" if math.isfinite(v) else repr(float(v))


class _Emitter:
    """MLIR lines of an elementwise optimizer update: one ``linalg.generic``
    per parameter whose outputs are the parameter and its state tensors
    themselves, read through the outputs' block arguments (so that no
    canonicalization replaces them by ``tensor.empty`` and bufferization
    updates them in place)."""

    def __init__(self):
        self.lines, self._n = [], 0

    def fresh(self, hint):
        self._n += 1
        return f"%o_{hint}{self._n}"

    def emit(self, line):
        self.lines.append("    " + line)

    def generic(self, shape, ins, scalars, outs, body):
        """``ins``/``outs``: names of tensors of ``shape``; ``scalars``: names
        of 0-d tensors; ``body(args) -> yielded`` writes the payload with
        ``self.op`` from the block arguments (ins, scalars, outs)."""
        rank = len(shape)
        t = _tensor_type(shape)
        maps = [_map(rank)] * len(ins) + [_scalar_map(rank)] * len(scalars) + \
            [_map(rank)] * len(outs)
        iters = ", ".join(['"parallel"'] * rank)
        in_types = [t] * len(ins) + ["tensor<f32>"] * len(scalars)
        name = self.fresh("upd")
        self.emit(f"{name}:{len(outs)} = linalg.generic {{indexing_maps = [{', '.join(maps)}], "
                  f"iterator_types = [{iters}]}} ins({', '.join(ins + scalars)} : "
                  f"{', '.join(in_types)}) outs({', '.join(outs)} : "
                  f"{', '.join([t] * len(outs))}) {{")
        args = [self.fresh("a") for _ in ins + scalars + outs]
        self.emit("^bb0(" + ", ".join(f"{a}: f32" for a in args) + "):")
        self._body = []
        yielded = body(args)
        for line in self._body:
            self.emit("  " + line)
        self.emit(f"  linalg.yield {', '.join(yielded)} : {', '.join(['f32'] * len(yielded))}")
        self.emit(f"}} -> ({', '.join([t] * len(outs))})")
        return [f"{name}#{i}" for i in range(len(outs))]

    def op(self, text):
        """A payload op ``text`` (``arith.mulf %a, %b``) on f32; its name."""
        v = self.fresh("s")
        self._body.append(f"{v} = {text} : f32")
        return v

    def const(self, value):
        v = self.fresh("c")
        self._body.append(f"{v} = arith.constant {_f(value)} : f32")
        return v

    def axpy(self, x, a, y):
        """``x + a * y`` (PyTorch's ``x.add(y, alpha=a)``)."""
        return self.op(f"arith.addf {x}, {self.op(f'arith.mulf {self.const(a)}, {y}')}")


# ---------------------------------------------------------------------------
# Optimizers
# ---------------------------------------------------------------------------

def _group(optimizer, names, params):
    if len(optimizer.param_groups) != 1:
        raise NotImplementedError(
            f"{type(optimizer).__name__} with {len(optimizer.param_groups)} parameter "
            "groups: the amp-mlir training step supports one group holding every "
            "parameter of the model")
    group = optimizer.param_groups[0]
    ids = [id(p) for p in group["params"]]
    if sorted(ids) != sorted(id(p) for p in params) or len(ids) != len(params):
        raise ValueError(f"the {type(optimizer).__name__}'s parameters are not exactly the "
                         f"model's parameters ({', '.join(names)})")
    for key in ("maximize", "differentiable"):
        if group.get(key):
            raise NotImplementedError(f"{type(optimizer).__name__}({key}=True) is not "
                                      "supported by the amp-mlir training step")
    for key in ("lr",):
        if isinstance(group[key], torch.Tensor):
            raise NotImplementedError(f"{type(optimizer).__name__}: a tensor {key} is not "
                                      "supported (give a Python float)")
    return group


class _SGD:
    """``torch.optim.SGD``'s ``_single_tensor_sgd``: ``d = g + wd p``;
    ``buf = d`` on the first step, else ``momentum buf + (1 - dampening) d``;
    ``d = d + momentum buf`` (nesterov) or ``buf``; ``p = p - lr d``. State:
    ``momentum_buffer`` per parameter and a 0-d "started" flag (0 until the
    first step taken)."""

    def __init__(self, group):
        self.lr, self.momentum = float(group["lr"]), float(group["momentum"])
        self.dampening, self.wd = float(group["dampening"]), float(group["weight_decay"])
        self.nesterov = bool(group["nesterov"])

    def state_specs(self, shapes):
        if not self.momentum:
            return []
        return [("started", ())] + [("momentum_buffer", s) for s in shapes]

    def initial_state(self, optimizer, params):
        if not self.momentum:
            return []
        bufs = [optimizer.state.get(p, {}).get("momentum_buffer") for p in params]
        started = all(b is not None for b in bufs)
        out = [np.array(1.0 if started else 0.0, np.float32)]
        out += [b.detach().numpy().astype(np.float32).copy() if started else
                np.zeros(p.shape, np.float32) for b, p in zip(bufs, params)]
        return out

    def write_back(self, optimizer, params, state):
        if self.momentum and state[0] > 0:
            for p, buf in zip(params, state[1:]):
                optimizer.state[p]["momentum_buffer"] = torch.from_numpy(buf.copy())

    def emit(self, e, params, grads, state, shapes, lr):
        # -lr as the f32 alpha of param.add_(d, alpha=-lr), from the step's
        # f64 lr argument (read from the optimizer at every call).
        lr64, neg, neg32, neg_lr = (e.fresh(h) for h in ("lr", "nlr", "nlr32", "nlrt"))
        e.emit(f"{lr64} = tensor.extract {lr}[] : tensor<f64>")
        e.emit(f"{neg} = arith.negf {lr64} : f64")
        e.emit(f"{neg32} = arith.truncf {neg} : f64 to f32")
        e.emit(f"{neg_lr} = tensor.from_elements {neg32} : tensor<f32>")
        new_params, new_state = [], []
        if self.momentum:
            started = state[0]
            new_state.append(None)  # set below
        for i, (p, g, shape) in enumerate(zip(params, grads, shapes)):
            if self.momentum:
                buf = state[1 + i]

                def body(a, self=self):
                    ag, ast, anl, ap, ab = a
                    d = e.axpy(ag, self.wd, ap) if self.wd else ag
                    cont = e.op(f"arith.mulf {ab}, {e.const(self.momentum)}")
                    cont = e.axpy(cont, 1.0 - self.dampening, d)
                    first = e.op(f"arith.cmpf oeq, {ast}, {e.const(0.0)}")
                    nb = e.op(f"arith.select {first}, {d}, {cont}")
                    step = e.axpy(d, self.momentum, nb) if self.nesterov else nb
                    new_p = e.op(f"arith.addf {ap}, {e.op(f'arith.mulf {anl}, {step}')}")
                    return [new_p, nb]
                np_, nb = e.generic(shape, [g], [started, neg_lr], [p, buf], body)
                new_params.append(np_)
                new_state.append(nb)
            else:
                def body(a, self=self):
                    ag, anl, ap = a
                    d = e.axpy(ag, self.wd, ap) if self.wd else ag
                    return [e.op(f"arith.addf {ap}, {e.op(f'arith.mulf {anl}, {d}')}")]
                new_params += e.generic(shape, [g], [neg_lr], [p], body)
        if self.momentum:
            one = e.fresh("one")
            e.emit(f"{one} = arith.constant dense<1.0> : tensor<f32>")
            new_state[0] = one
        return new_params, new_state


class _Adam:
    """``torch.optim.Adam``/``AdamW``'s ``_single_tensor_adam``: ``step += 1``;
    AdamW ``p = p (1 - lr wd)``, Adam ``g = g + wd p``; ``m = lerp(m, g, 1 -
    b1)``; ``v = b2 v + (1 - b2) g g``; ``p = p - lr / (1 - b1^step) * m /
    (sqrt(v) / sqrt(1 - b2^step) + eps)`` (bias corrections in f64, as
    PyTorch's Python floats). State: a 0-d ``step`` and ``exp_avg``,
    ``exp_avg_sq`` per parameter."""

    def __init__(self, group, decoupled):
        if group.get("amsgrad"):
            raise NotImplementedError("Adam/AdamW(amsgrad=True) is not supported by the "
                                      "amp-mlir training step")
        self.lr, (self.b1, self.b2) = float(group["lr"]), map(float, group["betas"])
        self.eps, self.wd = float(group["eps"]), float(group["weight_decay"])
        self.decoupled = decoupled

    def state_specs(self, shapes):
        out = [("step", ())]
        for s in shapes:
            out += [("exp_avg", s), ("exp_avg_sq", s)]
        return out

    def initial_state(self, optimizer, params):
        states = [optimizer.state.get(p, {}) for p in params]
        if all("step" in s for s in states) and states:
            out = [np.array(float(states[0]["step"]), np.float32)]
            for s in states:
                out += [s["exp_avg"].detach().numpy().astype(np.float32).copy(),
                        s["exp_avg_sq"].detach().numpy().astype(np.float32).copy()]
            return out
        out = [np.array(0.0, np.float32)]
        for p in params:
            out += [np.zeros(p.shape, np.float32), np.zeros(p.shape, np.float32)]
        return out

    def write_back(self, optimizer, params, state):
        if state[0] > 0:
            for i, p in enumerate(params):
                optimizer.state[p] = {"step": torch.tensor(float(state[0])),
                                      "exp_avg": torch.from_numpy(state[1 + 2 * i].copy()),
                                      "exp_avg_sq": torch.from_numpy(state[2 + 2 * i].copy())}

    def emit(self, e, params, grads, state, shapes, lr):
        step = state[0]
        # step + 1, and the bias corrections in f64 (0-d tensors, read by
        # every parameter's update).
        names = {k: e.fresh(k) for k in ("st", "stf", "one", "newstep", "t", "b1p", "b2p",
                                          "ssz", "bc2s", "sszt", "bc2st", "ssz32", "bc232")}
        n = names
        e.emit(f"{n['st']} = tensor.extract {step}[] : tensor<f32>")
        e.emit(f"{n['one']} = arith.constant 1.0 : f32")
        e.emit(f"{n['stf']} = arith.addf {n['st']}, {n['one']} : f32")
        e.emit(f"{n['newstep']} = tensor.from_elements {n['stf']} : tensor<f32>")
        e.emit(f"{n['t']} = arith.extf {n['stf']} : f32 to f64")
        c = {k: e.fresh(k) for k in ("b1", "b2", "lr", "one64")}
        e.emit(f"{c['b1']} = arith.constant {self.b1!r} : f64")
        e.emit(f"{c['b2']} = arith.constant {self.b2!r} : f64")
        e.emit(f"{c['lr']} = tensor.extract {lr}[] : tensor<f64>")
        e.emit(f"{c['one64']} = arith.constant 1.0 : f64")
        e.emit(f"{n['b1p']} = math.powf {c['b1']}, {n['t']} : f64")
        e.emit(f"{n['b2p']} = math.powf {c['b2']}, {n['t']} : f64")
        bc1, bc2 = e.fresh("bc1"), e.fresh("bc2")
        e.emit(f"{bc1} = arith.subf {c['one64']}, {n['b1p']} : f64")
        e.emit(f"{bc2} = arith.subf {c['one64']}, {n['b2p']} : f64")
        e.emit(f"{n['ssz']} = arith.divf {c['lr']}, {bc1} : f64")
        e.emit(f"{n['bc2s']} = math.sqrt {bc2} : f64")
        e.emit(f"{n['ssz32']} = arith.truncf {n['ssz']} : f64 to f32")
        e.emit(f"{n['bc232']} = arith.truncf {n['bc2s']} : f64 to f32")
        e.emit(f"{n['sszt']} = tensor.from_elements {n['ssz32']} : tensor<f32>")
        e.emit(f"{n['bc2st']} = tensor.from_elements {n['bc232']} : tensor<f32>")
        scalars = [n["sszt"], n["bc2st"]]
        if self.wd and self.decoupled:
            # AdamW's param.mul_(1 - lr * weight_decay), the factor in f64.
            wd, lw, dec, dec32, dect = (e.fresh(h) for h in ("wd", "lw", "dec", "dec32",
                                                              "dect"))
            e.emit(f"{wd} = arith.constant {self.wd!r} : f64")
            e.emit(f"{lw} = arith.mulf {c['lr']}, {wd} : f64")
            e.emit(f"{dec} = arith.subf {c['one64']}, {lw} : f64")
            e.emit(f"{dec32} = arith.truncf {dec} : f64 to f32")
            e.emit(f"{dect} = tensor.from_elements {dec32} : tensor<f32>")
            scalars.append(dect)
        new_params, new_state = [], [n["newstep"]]
        for i, (p, g, shape) in enumerate(zip(params, grads, shapes)):
            m, v = state[1 + 2 * i], state[2 + 2 * i]

            def body(a, self=self):
                ag, assz, abc2 = a[:3]
                ap, am, av = a[-3:]
                if self.wd and self.decoupled:
                    ap = e.op(f"arith.mulf {ap}, {a[3]}")
                elif self.wd:
                    ag = e.axpy(ag, self.wd, ap)
                nm = e.axpy(am, 1.0 - self.b1, e.op(f"arith.subf {ag}, {am}"))
                nv = e.op(f"arith.mulf {av}, {e.const(self.b2)}")
                nv = e.axpy(nv, 1.0 - self.b2, e.op(f"arith.mulf {ag}, {ag}"))
                denom = e.op(f"arith.divf {e.op(f'math.sqrt {nv}')}, {abc2}")
                denom = e.op(f"arith.addf {denom}, {e.const(self.eps)}")
                upd = e.op(f"arith.mulf {e.op(f'arith.negf {assz}')}, "
                           f"{e.op(f'arith.divf {nm}, {denom}')}")
                return [e.op(f"arith.addf {ap}, {upd}"), nm, nv]
            np_, nm, nv = e.generic(shape, [g], scalars, [p, m, v], body)
            new_params.append(np_)
            new_state += [nm, nv]
        return new_params, new_state


def _optimizer(optimizer, names, params):
    kinds = {torch.optim.SGD: lambda g: _SGD(g),
             torch.optim.Adam: lambda g: _Adam(g, decoupled=bool(g.get(
                 "decoupled_weight_decay", False))),
             torch.optim.AdamW: lambda g: _Adam(g, decoupled=True)}
    kind = kinds.get(type(optimizer))
    if kind is None:
        raise NotImplementedError(
            f"optimizer {type(optimizer).__name__} is not supported by the amp-mlir "
            "training step: use torch.optim.SGD (lr, momentum, dampening, weight_decay, "
            "nesterov), torch.optim.Adam or torch.optim.AdamW (lr, betas, eps, weight_decay)")
    return kind(_group(optimizer, names, params))


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
                    world_size=None):
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
    """
    np_, ns = len(shapes), len(optimizer_rule.state_specs(shapes))
    ptypes = [_tensor_type(s) for s in shapes]
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
    call_types = [joint.buffer_types[i] for i in mutated] + \
        ["tensor<f32>", "tensor<f32>"] + ptypes
    call_args = pnames + bnames + anames + [seed]
    in_types = ptypes + list(joint.buffer_types) + list(arg_types) + ["tensor<f32>"]
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
    grads = [f"%j#{nm + 2 + i}" for i in range(np_)]
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
                 device, opt_level=3, distributed=None):
        if device != "cpu":
            raise NotImplementedError(f"device={device!r}: the amp-mlir training step "
                                      "runs on 'cpu'")
        if mode not in ("graph", "eager"):
            raise ValueError(f"mode must be 'graph' or 'eager', got {mode!r}")
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
        by_name = dict(model.named_parameters())
        params = [by_name[n[len("model."):]] for n in joint.param_names]
        buffers = dict(model.named_buffers())
        buffer_values = [buffers[n[len("model."):]] for n in joint.buffer_names]
        joint.buffer_types = [_type_of(b) for b in buffer_values]
        shapes = [tuple(p.shape) for p in params]
        self._arg_specs = [(tuple(a.shape), a.dtype) for a in example_args]
        self.comm = communicator_for(distributed)
        self.mlir = build_step_mlir(joint, rule, shapes,
                                    [_type_of(a) for a in example_args],
                                    self._autocast, self._scaling,
                                    world_size=self.comm.size if self.comm else None)
        if self.comm is not None:
            self.comm.check_same(self.mlir, "training steps")
        module = Context().parse(self.mlir, source_name="train_step")
        module.run_pipeline("inline,symbol-dce")
        self._exe = amp_compile(module, pipeline=pipeline_for(
            "cpu", autocast=self._autocast is not None, mode=mode), opt_level=opt_level)
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
                       distributed=None):
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

    Returns:
        :class:`TrainStep`.

    Raises:
        UnsupportedOpError: an op that cannot be differentiated or lowered
            (``.op`` names it). ValueError: a non-scalar loss, a parameter
            that does not require grad (named), a bad ``autocast``/``mode``.
        NotImplementedError: another optimizer, option or device.
        TypeError: non-tensor arguments, non-f32 parameters.
    """
    return TrainStep(model, loss_fn, optimizer, example_args, autocast, scaler, mode, device,
                     opt_level, distributed)
