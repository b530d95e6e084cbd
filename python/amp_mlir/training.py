"""Mixed-precision training steps built as MLIR and run through the CPU JIT.

A model is a list of layers (:class:`Linear`, :class:`ReLU`, :class:`GELU`,
:class:`LayerNorm`, :class:`TransformerBlock`) followed by softmax
cross-entropy. :func:`build_train_step` emits one ``func.func
@train_step``: forward, loss and backward (reverse-mode, :mod:`.autodiff`)
inside an ``amp.autocast`` region, then unscaling, the optimizer update
(SGD with momentum or Adam, on f32 master weights) guarded by
``amp.step_if_finite``, and ``amp.update_scale`` (dynamic loss scaling with
``torch.amp.GradScaler``'s rules). :class:`Trainer` compiles it and keeps the
weights, optimizer state and loss scale as numpy arrays between steps.

Shapes are static: the batch size is fixed when the step is built. Inputs
are ``x: [batch, features]`` f32 and one-hot labels ``y: [batch, classes]``
f32 (for a transformer block, ``batch = sequences * seq_len`` rows).

Layer: training, above compilation and execution: imports :mod:`.autodiff`,
:mod:`.ir`, :mod:`.compiler` and :mod:`.device`; :mod:`.digits` (and the
package's ``__init__``) import it, and :mod:`amp_mlir.torch.training` takes
its loss-scaling lines (:func:`unscale_lines`, :func:`guarded_update_lines`).
"""

import math
import re

import numpy as np

from .autodiff import Graph, Value
from .compiler import compile as amp_compile, pipeline_for
from .device import DeviceArray, to_device
from .distributed import Communicator
from .ir import Context

__all__ = ["Linear", "ReLU", "GELU", "LayerNorm", "TransformerBlock", "SGD", "Adam",
           "build_train_step", "build_loss_and_grads", "Trainer", "cast_statistics",
           "unscale_lines", "guarded_update_lines"]


# --------------------------------------------------------------------------
# Layers
# --------------------------------------------------------------------------

class Layer:
    """A layer: its parameters (name, shape, initializer) and its forward."""

    def params(self):
        """List of ``(name, shape, init(rng) -> np.ndarray)``."""
        return []

    def forward(self, g, x, p):
        """Emits the forward of input ``x`` with parameter values ``p``
        (a dict by parameter name) and returns the output value."""
        raise NotImplementedError


def _positive(**values):
    for name, v in values.items():
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")


def _uniform(shape, bound):
    return lambda rng: rng.uniform(-bound, bound, size=shape).astype(np.float32)


class Linear(Layer):
    """``y = x @ weight + bias``; weight ``[in, out]``, bias ``[out]``, both
    initialized uniform in ``±1/sqrt(in)`` as ``torch.nn.Linear``."""

    def __init__(self, in_features, out_features):
        _positive(in_features=in_features, out_features=out_features)
        self.in_features, self.out_features = in_features, out_features

    def params(self):
        bound = 1.0 / math.sqrt(self.in_features)
        return [("weight", (self.in_features, self.out_features), _uniform(
                    (self.in_features, self.out_features), bound)),
                ("bias", (self.out_features,), _uniform((self.out_features,), bound))]

    def forward(self, g, x, p):
        y = g.matmul(x, p["weight"])
        return y + g.broadcast(p["bias"], y.shape, [0])


class ReLU(Layer):
    """``max(x, 0)``."""

    def forward(self, g, x, p):
        return g.relu(x)


class GELU(Layer):
    """``x * Phi(x) = 0.5 x (1 + erf(x / sqrt(2)))`` (``torch.nn.GELU()``,
    exact form)."""

    def forward(self, g, x, p):
        t = g.erf(g.scale(x, 1.0 / math.sqrt(2.0)))
        return g.mul(g.scale(x, 0.5), g.add(t, g.const(1.0, x.shape)))


def layer_norm(g, x, gamma, beta, eps):
    """Layer normalization over the last dimension of a 2-D ``x``."""
    rows, n = x.shape
    mu = g.scale(g.reduce_sum(x, [1]), 1.0 / n)
    xc = x - g.broadcast(mu, x.shape, [1])
    var = g.scale(g.reduce_sum(xc * xc, [1]), 1.0 / n)
    rstd = g.rsqrt(var + g.const(eps, (rows,)))
    xhat = xc * g.broadcast(rstd, x.shape, [1])
    return xhat * g.broadcast(gamma, x.shape, [0]) + g.broadcast(beta, x.shape, [0])


class LayerNorm(Layer):
    """``torch.nn.LayerNorm(n, eps)`` over the last dimension (weight 1,
    bias 0 at initialization)."""

    def __init__(self, n, eps=1e-5):
        _positive(n=n)
        if not eps > 0:
            raise ValueError(f"eps must be positive, got {eps!r}")
        self.n, self.eps = n, eps

    def params(self):
        return [("weight", (self.n,), lambda rng: np.ones(self.n, np.float32)),
                ("bias", (self.n,), lambda rng: np.zeros(self.n, np.float32))]

    def forward(self, g, x, p):
        return layer_norm(g, x, p["weight"], p["bias"], self.eps)


class TransformerBlock(Layer):
    """A pre-LayerNorm transformer encoder block on ``[seqs * seq_len, d]``
    rows: ``x + MHSA(LN1(x))``, then ``+ MLP(LN2(.))`` with a GELU MLP of
    width ``mlp_ratio * d``. Attention: ``heads`` heads of ``d / heads``,
    softmax of ``q k^T / sqrt(d / heads)`` over each sequence (no mask)."""

    def __init__(self, d, heads, seq_len, mlp_ratio=4, eps=1e-5):
        _positive(d=d, heads=heads, seq_len=seq_len, mlp_ratio=mlp_ratio)
        if d % heads:
            raise ValueError(f"TransformerBlock: d={d} is not a multiple of heads={heads}")
        self.d, self.heads, self.seq_len, self.hidden, self.eps = \
            d, heads, seq_len, mlp_ratio * d, eps

    def params(self):
        d, h = self.d, self.hidden
        ln = lambda n: [lambda rng: np.ones(n, np.float32), lambda rng: np.zeros(n, np.float32)]
        w = lambda i, o: _uniform((i, o), 1.0 / math.sqrt(i))
        return [("ln1_weight", (d,), ln(d)[0]), ("ln1_bias", (d,), ln(d)[1]),
                ("wq", (d, d), w(d, d)), ("wk", (d, d), w(d, d)), ("wv", (d, d), w(d, d)),
                ("wo", (d, d), w(d, d)),
                ("ln2_weight", (d,), ln(d)[0]), ("ln2_bias", (d,), ln(d)[1]),
                ("w1", (d, h), w(d, h)), ("b1", (h,), _uniform((h,), 1.0 / math.sqrt(d))),
                ("w2", (h, d), w(h, d)), ("b2", (d,), _uniform((d,), 1.0 / math.sqrt(h)))]

    def forward(self, g, x, p):
        rows, d = x.shape
        t, nh = self.seq_len, self.heads
        if rows % t:
            raise ValueError(f"TransformerBlock: {rows} rows are not whole sequences of {t}")
        s, dh = rows // t, d // nh

        def split_heads(v):  # [s*t, d] -> [s*nh, t, dh]
            v = g.reshape(v, (s, t, nh, dh))
            v = g.transpose(v, (0, 2, 1, 3))
            return g.reshape(v, (s * nh, t, dh))

        h = layer_norm(g, x, p["ln1_weight"], p["ln1_bias"], self.eps)
        q = split_heads(g.matmul(h, p["wq"]))
        k = split_heads(g.matmul(h, p["wk"]))
        v = split_heads(g.matmul(h, p["wv"]))
        scores = g.scale(g.batch_matmul(q, g.transpose(k, (0, 2, 1))), 1.0 / math.sqrt(dh))
        shape = scores.shape
        m = g.reduce_max(scores, [2])
        e = g.exp(scores - g.broadcast(m, shape, [2]))
        probs = g.div(e, g.broadcast(g.reduce_sum(e, [2]), shape, [2]))
        o = g.batch_matmul(probs, v)                       # [s*nh, t, dh]
        o = g.transpose(g.reshape(o, (s, nh, t, dh)), (0, 2, 1, 3))
        o = g.reshape(o, (rows, d))
        x1 = x + g.matmul(o, p["wo"])
        h2 = layer_norm(g, x1, p["ln2_weight"], p["ln2_bias"], self.eps)
        m1 = g.matmul(h2, p["w1"])
        m1 = GELU().forward(g, m1 + g.broadcast(p["b1"], m1.shape, [0]), {})
        m2 = g.matmul(m1, p["w2"])
        return x1 + m2 + g.broadcast(p["b2"], m2.shape, [0])


def softmax_cross_entropy(g, logits, onehot):
    """Mean over rows of ``-sum(onehot * log_softmax(logits))``: a 0-d
    tensor (``torch.nn.functional.cross_entropy``, mean reduction)."""
    rows, _ = logits.shape
    shift = g.reduce_max(logits, [1])
    s = logits - g.broadcast(shift, logits.shape, [1])
    lse = g.log(g.reduce_sum(g.exp(s), [1]))
    logp = s - g.broadcast(lse, logits.shape, [1])
    return g.scale(g.reduce_sum(g.reduce_sum(onehot * logp, [1]), [0]), -1.0 / rows)


# --------------------------------------------------------------------------
# Optimizers (PyTorch's update rules, no weight decay)
# --------------------------------------------------------------------------

class SGD:
    """``torch.optim.SGD(lr, momentum)``: ``buf = momentum * buf + grad``,
    ``param -= lr * buf`` (``buf`` starts at zero, so the first step's buffer
    is the gradient, as in PyTorch)."""

    def __init__(self, lr=0.1, momentum=0.9):
        self.lr, self.momentum = lr, momentum

    def state(self, params):
        """Per-parameter state: ``(name, shape)``; global state first."""
        return [(f"{name}_momentum", shape) for name, shape in params]

    def update(self, g, params, grads, state):
        new_params, new_state = [], []
        for (p, gr, buf) in zip(params, grads, state):
            b = g.scale(buf, self.momentum) + gr
            new_state.append(b)
            new_params.append(p - g.scale(b, self.lr))
        return new_params, new_state


class Adam:
    """``torch.optim.Adam(lr, betas, eps)``: ``m = b1 m + (1-b1) g``,
    ``v = b2 v + (1-b2) g^2``, ``param -= lr / (1-b1^t) * m / (sqrt(v) /
    sqrt(1-b2^t) + eps)``. The running powers ``b1^t, b2^t`` are 0-d state
    tensors, advanced only on steps that are taken."""

    def __init__(self, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
        self.lr, (self.b1, self.b2), self.eps = lr, betas, eps

    def state(self, params):
        out = [("adam_beta1_power", ()), ("adam_beta2_power", ())]
        for name, shape in params:
            out += [(f"{name}_exp_avg", shape), (f"{name}_exp_avg_sq", shape)]
        return out

    def initial_state(self, name):
        return 1.0 if name.startswith("adam_beta") else 0.0

    def update(self, g, params, grads, state):
        b1p = g.scale(state[0], self.b1)
        b2p = g.scale(state[1], self.b2)
        one = g.const(1.0)
        bc1, bc2 = one - b1p, one - b2p
        new_params, new_state = [], [b1p, b2p]
        for i, (p, gr) in enumerate(zip(params, grads)):
            m, v = state[2 + 2 * i], state[3 + 2 * i]
            m = g.scale(m, self.b1) + g.scale(gr, 1.0 - self.b1)
            v = g.scale(v, self.b2) + g.scale(gr * gr, 1.0 - self.b2)
            dims = list(range(len(p.shape)))
            sqrt_bc2 = g.broadcast(g.sqrt(bc2), p.shape, dims)
            step = g.broadcast(g.div(g.const(self.lr), bc1), p.shape, dims)
            denom = g.div(g.sqrt(v), sqrt_bc2) + g.const(self.eps, p.shape)
            new_params.append(p - g.div(step * m, denom))
            new_state += [m, v]
        return new_params, new_state


# --------------------------------------------------------------------------
# IR builders
# --------------------------------------------------------------------------

def _model_params(layers):
    """``[(argument name, shape, init)]`` of all layers, in order."""
    out = []
    for i, layer in enumerate(layers):
        for name, shape, init in layer.params():
            out.append((f"l{i}_{name}", tuple(shape), init))
    return out


def _forward(g, layers, x, values):
    it = iter(values)
    for i, layer in enumerate(layers):
        p = {name: next(it) for name, _, _ in layer.params()}
        x = layer.forward(g, x, p)
    return x


def _autocast_header(autocast):
    device, dtype = autocast
    return f"amp.autocast device_type({device}) dtype({dtype})"


def _check_autocast(autocast):
    if autocast is None:
        return
    device, dtype = autocast
    if device not in ("cpu", "cuda") or dtype not in ("f16", "bf16"):
        raise ValueError(f"autocast must be (cpu|cuda, f16|bf16), got {autocast!r}")


def build_train_step(layers, batch, in_features, classes, optimizer, autocast=None,
                     loss_scaling=False, eval_batch=None, world_size=None):
    """MLIR text of ``@train_step`` and ``@predict`` for ``layers``.

    Args:
        layers: list of layers; the last one produces ``classes`` logits.
        batch: rows per step. in_features / classes: input and output widths.
        optimizer: :class:`SGD` or :class:`Adam`.
        autocast: ``None`` (f32) or ``(device_type, dtype)``, e.g.
            ``("cpu", "bf16")`` or ``("cuda", "f16")``: forward, loss and
            backward run in an ``amp.autocast`` region.
        loss_scaling: dynamic loss scaling (GradScaler). The step then takes
            and returns the scale (``tensor<f32>``) and growth tracker
            (``tensor<i32>``), and skips the update on inf/NaN gradients.
        eval_batch: rows of ``@predict`` (default ``batch``).
        world_size: data-parallel over this many MPI processes (None: one
            process). ``batch`` is then the rows of one rank; the module
            has a grid ``shard.grid @amp_dp(shape = N)``, every gradient
            (unscaled, with loss scaling) becomes its mean over the ranks
            (``shard.all_reduce`` sum divided by N; amp-cpu-pipeline packs
            them into buckets and lowers them to MPI), and ``found_inf`` is
            all-reduced with max, so every rank skips together.

    ``@train_step(x, y, params..., state..., [scale, tracker]) -> (loss,
    params..., state..., [scale, tracker], found_inf)``; ``@predict(x,
    params...) -> logits``.
    """
    _check_autocast(autocast)
    _positive(batch=batch, in_features=in_features, classes=classes)
    if eval_batch is not None:
        _positive(eval_batch=eval_batch)
    params = _model_params(layers)
    if not params:
        raise ValueError("the model has no parameters: there is nothing to train")
    pspecs = [(n, s) for n, s, _ in params]
    sspecs = optimizer.state(pspecs)
    g = Graph("f32")
    x = g.argument("x", (batch, in_features), differentiable=False)
    y = g.argument("y", (batch, classes), differentiable=False)
    pvals = [g.argument(n, s) for n, s in pspecs]
    svals = [g.argument(n, s, differentiable=False) for n, s in sspecs]
    scale = g.argument("scale", (), differentiable=False) if loss_scaling else None

    # Forward, loss, backward.
    logits = _forward(g, layers, x, pvals)
    if logits.shape != (batch, classes):
        raise ValueError(f"the model produces {logits.shape}, expected {(batch, classes)}")
    loss = softmax_cross_entropy(g, logits, y)
    one = g.const(1.0)
    if loss_scaling:
        # d(scale * loss)/d loss: backpropagating the scaled loss.
        seed = g._new((), "seed", differentiable=False)
        g.emit(f"{seed.name} = amp.scale_loss {one.name}, %scale : tensor<f32>")
    else:
        seed = one
    grads_by_name = g.backward(loss, seed)
    grads = [grads_by_name.get(p.name) or g.const(0.0, p.shape) for p in pvals]
    compute = g.lines
    result_types = ", ".join(["tensor<f32>"] + [p.type for p in pvals])

    lines = []
    if autocast:
        lines.append(f"    %r:{1 + len(grads)} = {_autocast_header(autocast)} -> ({result_types}) {{")
        lines += ["  " + l for l in compute]
        lines.append(f"      amp.yield {', '.join([loss.name] + [gr.name for gr in grads])} : {result_types}")
        lines.append("    }")
        loss_name = "%r#0"
        grad_names = [f"%r#{1 + i}" for i in range(len(grads))]
    else:
        lines += compute
        loss_name, grad_names = loss.name, [gr.name for gr in grads]

    # Unscale, update, scale update (f32, outside the autocast region).
    g.lines = []
    kept = pvals + svals
    if loss_scaling:
        unscale, grad_names = unscale_lines(grad_names, [p.type for p in pvals])
        lines += unscale
    if world_size is not None:
        _positive(world_size=world_size)
        dp, grad_names = data_parallel_lines(grad_names, [p.type for p in pvals],
                                             world_size, loss_scaling)
        lines += dp
    grad_vals = [Value(g, n, p.shape, differentiable=False) for n, p in zip(grad_names, pvals)]
    new_params, new_state = optimizer.update(g, pvals, grad_vals, svals)
    updated = new_params + new_state
    if loss_scaling:
        flag = "%found_any" if world_size is not None else "%found_inf"
        guarded, out_names = guarded_update_lines(
            [v.name for v in kept], [v.type for v in kept], g.lines,
            [v.name for v in updated], found_inf=flag)
        lines += guarded
        out_types = [v.type for v in kept] + ["tensor<f32>", "tensor<i32>"]
    else:
        lines += g.lines
        lines.append("    %found_inf = arith.constant false")
        out_names = [v.name for v in updated]
        out_types = [v.type for v in kept]

    args = [f"%x: tensor<{batch}x{in_features}xf32>", f"%y: tensor<{batch}x{classes}xf32>"]
    args += [f"{v.name}: {v.type}" for v in kept]
    if loss_scaling:
        args += ["%scale: tensor<f32>", "%tracker: tensor<i32>"]
    rtypes = ["tensor<f32>"] + out_types + ["i1"]
    text = [f"  func.func @train_step({', '.join(args)}) -> ({', '.join(rtypes)}) {{"]
    text += lines
    found = "%found_any" if world_size is not None and loss_scaling else "%found_inf"
    text.append(f"    return {', '.join([loss_name] + out_names + [found])} : "
                f"{', '.join(rtypes)}")
    text.append("  }")
    text.append(_build_predict(layers, eval_batch or batch, in_features, classes, autocast))
    if world_size is not None:
        text.insert(0, f"  shard.grid @amp_dp(shape = {world_size})")
    return "module {\n" + "\n".join(text) + "\n}\n"


def unscale_lines(grad_names, grad_types, scale="%scale"):
    """GradScaler's ``unscale_`` of a step's gradients: the MLIR lines
    (``amp.unscale``, which also sets ``%found_inf``) and the names of the
    unscaled gradients. Shared by :func:`build_train_step` and
    :mod:`amp_mlir.torch.training`."""
    if not grad_names:
        return [f"    %found_inf = amp.unscale by {scale}"], []
    lines = [f"    %ug:{len(grad_names)}, %found_inf = amp.unscale {', '.join(grad_names)} "
             f"by {scale} : {', '.join(grad_types)}"]
    return lines, [f"%ug#{i}" for i in range(len(grad_names))]


def guarded_update_lines(kept, kept_types, update, updated, scale="%scale",
                         tracker="%tracker", growth_factor=2.0, backoff_factor=0.5,
                         growth_interval=2000, found_inf="%found_inf"):
    """GradScaler's ``step`` and ``update``: the optimizer's ``update`` lines
    (which compute ``updated`` from ``kept``: weights and optimizer state)
    inside ``amp.step_if_finite %found_inf``, then ``amp.update_scale`` with
    GradScaler's settings, both on the flag ``found_inf`` (a data-parallel
    step passes the ranks' vote). Returns the lines and the names of the new
    kept values followed by ``%new_scale, %new_tracker``."""
    types = ", ".join(kept_types)
    lines = [f"    %upd:{len(kept)} = amp.step_if_finite {found_inf} keep("
             f"{', '.join(kept)} : {types}) {{"]
    lines += ["  " + l for l in update]
    lines.append(f"      amp.yield {', '.join(updated)} : {types}")
    lines.append("    }")
    attrs = []
    if growth_factor != 2.0:
        attrs.append(f"growth_factor = {float(growth_factor)!r} : f64")
    if backoff_factor != 0.5:
        attrs.append(f"backoff_factor = {float(backoff_factor)!r} : f64")
    if growth_interval != 2000:
        attrs.append(f"growth_interval = {int(growth_interval)} : i32")
    attr_text = f" {{{', '.join(attrs)}}}" if attrs else ""
    lines.append(f"    %new_scale, %new_tracker = amp.update_scale {scale}, {tracker}, "
                 f"{found_inf}{attr_text}")
    return lines, [f"%upd#{i}" for i in range(len(kept))] + ["%new_scale", "%new_tracker"]


def data_parallel_lines(grad_names, grad_types, world_size, loss_scaling):
    """The collectives of a data-parallel step over the ``world_size`` ranks
    of ``shard.grid @amp_dp`` (which the module must declare): each
    gradient's mean over the ranks (DDP's rule: ``shard.all_reduce`` sum,
    divided by the world size) and, with loss scaling, ``%found_any``:
    ``%found_inf`` of any rank (max of a one-element i32 tensor, as
    ShardedGradScaler votes). Returns the MLIR lines and the names of the
    averaged gradients. Shared by :func:`build_train_step` and
    :mod:`amp_mlir.torch.training`."""
    lines, out = [], []
    for i, (name, t) in enumerate(zip(grad_names, grad_types)):
        lines.append(f"    %dp_sum{i} = shard.all_reduce {name} on @amp_dp grid_axes = [0] "
                     f"reduction = sum : {t} -> {t}")
        lines.append(f"    %dp_n{i} = arith.constant dense<{float(world_size)!r}> : {t}")
        lines.append(f"    %dp_mean{i} = arith.divf %dp_sum{i}, %dp_n{i} : {t}")
        out.append(f"%dp_mean{i}")
    if loss_scaling:
        lines += [
            "    %dp_flag = arith.extui %found_inf : i1 to i32",
            "    %dp_flags = tensor.from_elements %dp_flag : tensor<1xi32>",
            "    %dp_any = shard.all_reduce %dp_flags on @amp_dp grid_axes = [0] "
            "reduction = max : tensor<1xi32> -> tensor<1xi32>",
            "    %dp_c0 = arith.constant 0 : index",
            "    %dp_anyi = tensor.extract %dp_any[%dp_c0] : tensor<1xi32>",
            "    %dp_zero = arith.constant 0 : i32",
            "    %found_any = arith.cmpi ne, %dp_anyi, %dp_zero : i32",
        ]
    return lines, out


def _build_predict(layers, batch, in_features, classes, autocast):
    g = Graph("f32")
    x = g.argument("x", (batch, in_features), differentiable=False)
    pvals = [g.argument(n, s) for n, s, _ in _model_params(layers)]
    logits = _forward(g, layers, x, pvals)
    t = logits.type
    args = [f"%x: {x.type}"] + [f"{p.name}: {p.type}" for p in pvals]
    out = [f"  func.func @predict({', '.join(args)}) -> {t} {{"]
    if autocast:
        out.append(f"    %logits = {_autocast_header(autocast)} -> {t} {{")
        out += ["  " + l for l in g.lines]
        out.append(f"      amp.yield {logits.name} : {t}")
        out.append("    }")
        out.append(f"    return %logits : {t}")
    else:
        out += g.lines
        out.append(f"    return {logits.name} : {t}")
    out.append("  }")
    return "\n".join(out)


def build_loss_and_grads(layers, batch, in_features, out_features, ftype="f64"):
    """MLIR text of ``@loss(x, r, params...) -> loss`` and
    ``@loss_and_grads(x, r, params...) -> (loss, dx, dparams...)`` with
    ``loss = sum(layers(x) * r)`` at float type ``ftype``: a random
    projection ``r`` makes every output element matter. For gradient checks
    against finite differences."""
    params = _model_params(layers)

    def make(with_grads):
        g = Graph(ftype)
        x = g.argument("x", (batch, in_features))
        r = g.argument("r", (batch, out_features), differentiable=False)
        pvals = [g.argument(n, s) for n, s, _ in params]
        out = _forward(g, layers, x, pvals)
        loss = g.reduce_sum(g.reduce_sum(out * r, [1]), [0])
        results, types = [loss.name], [loss.type]
        if with_grads:
            grads = g.backward(loss, g.const(1.0))
            for v in [x] + pvals:
                gv = grads.get(v.name) or g.const(0.0, v.shape)
                results.append(gv.name)
                types.append(v.type)
        args = [f"{v.name}: {v.type}" for v in [x, r] + pvals]
        name = "loss_and_grads" if with_grads else "loss"
        return (f"  func.func @{name}({', '.join(args)}) -> ({', '.join(types)}) {{\n"
                + g.body() + f"\n    return {', '.join(results)} : {', '.join(types)}\n  }}")

    return "module {\n" + make(False) + "\n" + make(True) + "\n}\n"


# --------------------------------------------------------------------------
# Runtime
# --------------------------------------------------------------------------

class Trainer:
    """Compiles a training step and runs it on numpy batches.

    Args:
        layers, batch, in_features, classes, optimizer, autocast,
        loss_scaling, eval_batch: as :func:`build_train_step`.
        seed: seed of the parameter initialization (numpy PCG64).
        init_scale: initial loss scale (GradScaler's 65536).
        mode: autocast mode of the pipeline (``graph`` or ``eager``).
        target: ``cpu`` (amp-cpu-pipeline) or ``cuda`` (amp-cuda-pipeline
            for ``chip``; needs a CUDA device: RuntimeError otherwise). On
            ``cuda`` the parameters, optimizer state and loss-scaler state
            stay on the device between steps (:class:`DeviceArray`, the
            managed entry point ``@train_step__amp_managed``): a step copies
            only the batch in (none when ``x``/``y`` are device arrays) and
            the loss and loss scale out.
        gemm: matmuls on ``cuda``: ``codegen`` (tensor-core kernels) or
            ``cublas`` (cublasGemmEx); see amp-cuda-pipeline.
        distributed: data-parallel training over the MPI processes that
            ``mpirun`` started (``cpu`` only): ``True`` (all of them), an
            int (that many, RuntimeError when mpirun started another
            number) or a :class:`~amp_mlir.distributed.Communicator`. Each
            rank calls :meth:`step` on its own ``batch`` rows
            (``comm.shard(global_batch)``); the gradients are averaged
            across the ranks inside the compiled step, and with loss scaling
            an inf/NaN on any rank makes every rank skip the step and back
            off the scale. Parameters start equal (same ``seed``) and stay
            equal on all ranks. ``step`` returns this rank's loss. Every
            rank must build the same step (RuntimeError otherwise).

    Attributes:
        params, state: lists of numpy arrays (f32 master weights, optimizer
            state; on ``cuda``, copies of the device arrays).
        scale, tracker: the loss scale (f32) and the growth tracker (i32),
            0-d numpy arrays. scale_history: the loss scale after every step.
        skipped_steps: steps whose gradients had inf/NaN.
        comm: the :class:`~amp_mlir.distributed.Communicator`, or None.
    """

    def __init__(self, layers, batch, in_features, classes, optimizer, autocast=None,
                 loss_scaling=False, eval_batch=None, seed=0, init_scale=65536.0,
                 mode="graph", target="cpu", chip="sm_90", gemm="codegen",
                 distributed=None):
        if loss_scaling and not (np.isfinite(init_scale) and init_scale > 0):
            raise ValueError(f"init_scale must be finite and positive, got {init_scale!r}")
        if loss_scaling and init_scale > float(np.finfo(np.float32).max):
            raise ValueError(f"init_scale {init_scale!r} overflows f32")
        self.layers, self.batch, self.optimizer = layers, batch, optimizer
        self.loss_scaling = loss_scaling
        self.eval_batch = eval_batch or batch
        if distributed not in (None, False) and target != "cpu":
            raise ValueError("distributed training runs on target='cpu' only "
                             "(docs/Distributed.md)")
        self.comm = communicator_for(distributed)
        self.ir = build_train_step(layers, batch, in_features, classes, optimizer,
                                   autocast, loss_scaling, eval_batch,
                                   world_size=self.comm.size if self.comm else None)
        if self.comm is not None:
            self.comm.check_same(self.ir, "training steps")
        pipeline = pipeline_for(target, autocast, mode=mode, chip=chip, gemm=gemm)
        self.exe = amp_compile(self.ir, pipeline=pipeline)
        rng = np.random.default_rng(seed)
        specs = _model_params(layers)
        self.param_names = [n for n, _, _ in specs]
        params = [init(rng) for _, _, init in specs]
        state = [np.full(shape, getattr(optimizer, "initial_state", lambda n: 0.0)(name),
                         np.float32)
                 for name, shape in optimizer.state([(n, s) for n, s, _ in specs])]
        scaler = [np.array(init_scale, np.float32), np.array(0, np.int32)]
        # On cuda the step's arrays stay on the device (donated to each
        # step, which updates them in place).
        self._resident = target == "cuda"
        if self._resident:
            params, state, scaler = ([to_device(a) for a in group]
                                     for group in (params, state, scaler))
        self._params, self._state, self._scaler = params, state, scaler
        self.scale_history, self.skipped_steps = [], 0

    def _host(self, arrays):
        return [a.numpy() for a in arrays] if self._resident else list(arrays)

    @property
    def params(self):
        return self._host(self._params)

    @property
    def state(self):
        return self._host(self._state)

    @property
    def scale(self):
        return self._host(self._scaler[:1])[0]

    @property
    def tracker(self):
        return self._host(self._scaler[1:])[0]

    def step(self, x, y_onehot):
        """One training step on a batch ``x`` ``[batch, in_features]`` and
        one-hot labels ``[batch, classes]`` (f32 numpy arrays, or device
        arrays on ``cuda``); returns the (unscaled) loss as a float."""
        args = [self._batch(x), self._batch(y_onehot)] + self._params + self._state
        if self.loss_scaling:
            args += self._scaler
        if self._resident:
            # Weights, optimizer and scaler state: updated in place.
            out = self.exe.invoke_device("train_step", *args, donate=range(2, len(args)))
        else:
            out = self.exe.invoke("train_step", *args)
        loss, rest = out[0], list(out[1:])
        n, m = len(self._params), len(self._state)
        self._params, self._state = rest[:n], rest[n:n + m]
        found_inf = rest[-1]
        if self.loss_scaling:
            self._scaler = rest[-3:-1]
            self.scale_history.append(float(self.scale))
        self.skipped_steps += int(found_inf)
        return float(loss.numpy() if self._resident else loss)

    def _batch(self, a):
        return a if self._resident and isinstance(a, DeviceArray) else np.asarray(a, np.float32)

    def predict(self, x):
        """Logits of ``x`` (``[eval_batch, in_features]``), a numpy array."""
        if self._resident:
            return self.exe.invoke_device("predict", self._batch(x), *self._params).numpy()
        return self.exe.invoke("predict", np.asarray(x, np.float32), *self._params)


def communicator_for(distributed):
    """A ``distributed`` argument (``None``/``False``, ``True``, a number of
    processes, a Communicator) as a Communicator, or None. Shared by
    :class:`Trainer` and :func:`amp_mlir.torch.compile_train_step`.

    Raises:
        TypeError: another value. RuntimeError: MPI is missing, or mpirun
            started another number of processes than the one given."""
    if distributed is None or distributed is False:
        return None
    if distributed is True:
        return Communicator()
    if isinstance(distributed, Communicator):
        return distributed
    if isinstance(distributed, int) and distributed >= 1:
        return Communicator(size=distributed)
    raise TypeError(f"distributed must be None, True, a number of processes or a "
                    f"Communicator, got {distributed!r}")


def cast_statistics(ir_text, mode="graph"):
    """Counts of the autocast pass on ``ir_text``: ops per compute type
    (``{"f16": n, "bf16": n, "f32": n}``) and ``amp.cast`` ops inserted."""
    module = Context().parse(ir_text)
    module.run_pipeline(f"amp-autocast{{mode={mode} annotate=1 keep-regions=1}}")
    text = str(module)
    counts = {}
    for t in re.findall(r"amp\.compute_type = (\w+)", text):
        counts[t] = counts.get(t, 0) + 1
    counts["casts"] = len(re.findall(r"= amp\.cast ", text))
    return counts
