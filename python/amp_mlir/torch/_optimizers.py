"""The optimizer update rules of the compiled training step
(:func:`amp_mlir.torch.compile_train_step`): PyTorch's ``torch.optim.SGD``,
``Adam`` and ``AdamW`` (``torch/optim/sgd.py`` and ``torch/optim/adam.py``
``_single_tensor_*``) as MLIR lines of elementwise ``linalg.generic`` ops
that update each parameter and its state in place, with the state's
read-back into the optimizer.

Layer: below :mod:`.training` (the step), which imports :func:`_optimizer`,
:class:`_Emitter` and :func:`_tensor_type`; imports only numpy and torch.
"""

import math

import numpy as np
import torch


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
