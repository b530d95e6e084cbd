"""A small reverse-mode autodiff that emits MLIR on tensors.

:class:`Graph` records ops on static-shape tensors as MLIR text (linalg named
ops, linalg.reduce/broadcast/transpose, tensor reshapes, arith and math on
tensors), and :meth:`Graph.backward` appends the vector-Jacobian products in
reverse order. Every op is emitted at the graph's float type (f32, or f64
for gradient checks); under ``amp.autocast`` the cast policy later chooses
each op's compute type, so the backward ops follow the same policy as the
forward (a matmul's gradient matmuls run in f16/bf16, reductions and
exp/log in f32).

Layer: model building, the bottom of the training layer: it writes MLIR
text only and imports nothing from the package; :mod:`.training` imports it.
"""

import math

__all__ = ["Graph", "Value"]


class Value:
    """An SSA tensor value of a :class:`Graph`: its name and static shape."""

    def __init__(self, graph, name, shape, element_type=None, differentiable=True):
        self.graph = graph
        self.name = name
        self.shape = tuple(shape)
        self.element_type = element_type or graph.ftype
        self.differentiable = differentiable

    @property
    def type(self):
        return _tensor_type(self.shape, self.element_type)

    # Operator sugar for layer code.
    def __add__(self, other):
        return self.graph.add(self, other)

    def __sub__(self, other):
        return self.graph.sub(self, other)

    def __mul__(self, other):
        if isinstance(other, (int, float)):
            return self.graph.scale(self, float(other))
        return self.graph.mul(self, other)

    __rmul__ = __mul__


def _tensor_type(shape, element_type):
    return "tensor<" + "".join(f"{d}x" for d in shape) + element_type + ">"


def _float(v):
    """An MLIR float literal."""
    if math.isinf(v):
        return "0x7F800000" if v > 0 else "0xFF800000"
    return f"{float(v):.17e}"  # MLIR float literals need a "."


class Graph:
    """Emits the body of one function.

    Args:
        ftype: the float element type of every value (``"f32"``/``"f64"``).
    """

    def __init__(self, ftype="f32"):
        self.ftype = ftype
        self.lines = []
        self.tape = []  # (vjp, output, inputs) in forward order
        self._count = 0
        self._recording = True

    # -- emission helpers --------------------------------------------------

    def fresh(self, hint="v"):
        self._count += 1
        return f"%{hint}{self._count}"

    def emit(self, text):
        self.lines.append("    " + text)

    def argument(self, name, shape, differentiable=True):
        """A function argument ``%name`` of the given shape."""
        return Value(self, f"%{name}", shape, differentiable=differentiable)

    def _new(self, shape, hint="v", element_type=None, differentiable=True):
        return Value(self, self.fresh(hint), shape, element_type, differentiable)

    def _record(self, out, inputs, vjp):
        if not self._recording:
            return out
        if any(i.differentiable for i in inputs):
            self.tape.append((vjp, out, inputs))
        else:
            out.differentiable = False
        return out

    def const(self, value, shape=()):
        """A splat constant (not differentiated)."""
        out = self._new(shape, "c", differentiable=False)
        self.emit(f"{out.name} = arith.constant dense<{_float(value)}> : {out.type}")
        return out

    def zeros_init(self, shape):
        """A zero-filled destination tensor for linalg ops."""
        empty, zero = self.fresh("e"), self.fresh("z")
        t = _tensor_type(shape, self.ftype)
        self.emit(f"{empty} = tensor.empty() : {t}")
        cst = self.fresh("c")
        self.emit(f"{cst} = arith.constant 0.0 : {self.ftype}")
        self.emit(f"{zero} = linalg.fill ins({cst} : {self.ftype}) outs({empty} : {t}) -> {t}")
        return zero

    def empty(self, shape):
        empty = self.fresh("e")
        self.emit(f"{empty} = tensor.empty() : {_tensor_type(shape, self.ftype)}")
        return empty

    # -- elementwise ---------------------------------------------------------

    def _binary(self, op, a, b, hint):
        if a.shape != b.shape:
            raise ValueError(f"{op}: shapes {a.shape} and {b.shape} differ")
        out = self._new(a.shape, hint)
        self.emit(f"{out.name} = {op} {a.name}, {b.name} : {a.type}")
        return out

    def _unary(self, op, a, hint):
        out = self._new(a.shape, hint)
        self.emit(f"{out.name} = {op} {a.name} : {a.type}")
        return out

    def add(self, a, b):
        out = self._binary("arith.addf", a, b, "add")
        return self._record(out, [a, b], lambda g: [g, g])

    def sub(self, a, b):
        out = self._binary("arith.subf", a, b, "sub")
        return self._record(out, [a, b], lambda g: [g, self.neg(g)])

    def mul(self, a, b):
        out = self._binary("arith.mulf", a, b, "mul")
        return self._record(out, [a, b], lambda g: [self.mul(g, b), self.mul(g, a)])

    def neg(self, a):
        out = self._unary("arith.negf", a, "neg")
        return self._record(out, [a], lambda g: [self.neg(g)])

    def scale(self, a, c):
        """``a * c`` for a Python constant ``c``."""
        out = self._binary("arith.mulf", a, self.const(c, a.shape), "scl")
        return self._record(out, [a], lambda g: [self.scale(g, c)])

    def exp(self, a):
        out = self._unary("math.exp", a, "exp")
        return self._record(out, [a], lambda g: [self.mul(g, out)])

    def log(self, a):
        out = self._unary("math.log", a, "log")
        return self._record(out, [a], lambda g: [self.div(g, a)])

    def div(self, a, b):
        out = self._binary("arith.divf", a, b, "div")
        # d(a/b) = g/b, -g*a/b^2 = -(g/b)*out
        return self._record(out, [a, b], lambda g: [
            self.div(g, b), self.neg(self.mul(self.div(g, b), out))])

    def erf(self, a):
        out = self._unary("math.erf", a, "erf")
        # d erf(x) = 2/sqrt(pi) * exp(-x^2)
        return self._record(out, [a], lambda g: [self.mul(
            g, self.scale(self.exp(self.neg(self.mul(a, a))), 2.0 / math.sqrt(math.pi)))])

    def rsqrt(self, a):
        out = self._unary("math.rsqrt", a, "rsq")
        # d x^-1/2 = -1/2 x^-3/2 = -1/2 out^3
        return self._record(out, [a], lambda g: [self.mul(
            g, self.scale(self.mul(out, self.mul(out, out)), -0.5))])

    def sqrt(self, a):
        out = self._unary("math.sqrt", a, "sqrt")
        # d sqrt(x) = 1 / (2 sqrt(x))
        return self._record(out, [a], lambda g: [self.div(self.scale(g, 0.5), out)])

    def relu(self, a):
        zero = self.const(0.0, a.shape)
        mask = self._new(a.shape, "msk", element_type="i1", differentiable=False)
        self.emit(f"{mask.name} = arith.cmpf ogt, {a.name}, {zero.name} : {a.type}")
        out = self._select(mask, a, zero)
        return self._record(out, [a], lambda g: [self._select(mask, g, self.const(0.0, a.shape))])

    def _select(self, mask, a, b):
        out = self._new(a.shape, "sel")
        self.emit(f"{out.name} = arith.select {mask.name}, {a.name}, {b.name} : {mask.type}, {a.type}")
        return out

    # -- structured ops ----------------------------------------------------

    def matmul(self, a, b):
        """``a @ b`` for ``a: [M, K]``, ``b: [K, N]`` (linalg.matmul)."""
        (m, k), (k2, n) = a.shape, b.shape
        if k != k2:
            raise ValueError(f"matmul: {a.shape} @ {b.shape}")
        init = self.zeros_init((m, n))
        out = self._new((m, n), "mm")
        self.emit(f"{out.name} = linalg.matmul ins({a.name}, {b.name} : {a.type}, {b.type}) "
                  f"outs({init} : {out.type}) -> {out.type}")
        return self._record(out, [a, b], lambda g: [
            self.matmul(g, self.transpose(b, (1, 0))),
            self.matmul(self.transpose(a, (1, 0)), g)])

    def batch_matmul(self, a, b):
        """``a @ b`` per batch for ``a: [B, M, K]``, ``b: [B, K, N]``."""
        (bs, m, k), (bs2, k2, n) = a.shape, b.shape
        if k != k2 or bs != bs2:
            raise ValueError(f"batch_matmul: {a.shape} @ {b.shape}")
        init = self.zeros_init((bs, m, n))
        out = self._new((bs, m, n), "bmm")
        self.emit(f"{out.name} = linalg.batch_matmul ins({a.name}, {b.name} : {a.type}, {b.type}) "
                  f"outs({init} : {out.type}) -> {out.type}")
        return self._record(out, [a, b], lambda g: [
            self.batch_matmul(g, self.transpose(b, (0, 2, 1))),
            self.batch_matmul(self.transpose(a, (0, 2, 1)), g)])

    def transpose(self, a, perm):
        shape = tuple(a.shape[p] for p in perm)
        out = self._new(shape, "tr")
        init = self.empty(shape)
        self.emit(f"{out.name} = linalg.transpose ins({a.name} : {a.type}) outs({init} : {out.type}) "
                  f"permutation = [{', '.join(map(str, perm))}]")
        inverse = tuple(sorted(range(len(perm)), key=lambda i: perm[i]))
        return self._record(out, [a], lambda g: [self.transpose(g, inverse)])

    def broadcast(self, a, shape, dims):
        """``a`` broadcast to ``shape`` by adding the dimensions ``dims``."""
        out = self._new(shape, "bc")
        init = self.empty(shape)
        self.emit(f"{out.name} = linalg.broadcast ins({a.name} : {a.type}) outs({init} : {out.type}) "
                  f"dimensions = [{', '.join(map(str, dims))}]")
        return self._record(out, [a], lambda g: [self.reduce_sum(g, dims)])

    def _reduce(self, a, dims, combiner, init_value, hint):
        shape = tuple(d for i, d in enumerate(a.shape) if i not in dims)
        t = _tensor_type(shape, self.ftype)
        empty, filled, cst = self.fresh("e"), self.fresh("f"), self.fresh("c")
        self.emit(f"{empty} = tensor.empty() : {t}")
        self.emit(f"{cst} = arith.constant {_float(init_value)} : {self.ftype}")
        self.emit(f"{filled} = linalg.fill ins({cst} : {self.ftype}) outs({empty} : {t}) -> {t}")
        out = self._new(shape, hint)
        self.emit(f"{out.name} = linalg.reduce {{ {combiner} }} ins({a.name} : {a.type}) "
                  f"outs({filled} : {t}) dimensions = [{', '.join(map(str, dims))}]")
        return out

    def reduce_sum(self, a, dims):
        out = self._reduce(a, dims, "arith.addf", 0.0, "sum")
        return self._record(out, [a], lambda g: [self.broadcast(g, a.shape, dims)])

    def reduce_max(self, a, dims):
        """Max over ``dims``; not differentiated (used as a shift that cancels
        out, as in softmax and logsumexp)."""
        out = self._reduce(a, dims, "arith.maxnumf", -math.inf, "max")
        out.differentiable = False
        return out

    def reshape(self, a, shape):
        """``a`` reshaped to ``shape`` (tensor.reshape by a constant shape)."""
        if math.prod(shape) != math.prod(a.shape):
            raise ValueError(f"reshape {a.shape} -> {shape}")
        out = self._new(shape, "rs")
        sh = self.fresh("shape")
        self.emit(f"{sh} = arith.constant dense<[{', '.join(map(str, shape))}]> : tensor<{len(shape)}xindex>")
        self.emit(f"{out.name} = tensor.reshape {a.name}({sh}) : ({a.type}, tensor<{len(shape)}xindex>) -> {out.type}")
        return self._record(out, [a], lambda g: [self.reshape(g, a.shape)])

    # -- reverse mode ------------------------------------------------------

    def backward(self, output, seed):
        """Appends the backward pass of ``output`` with upstream gradient
        ``seed`` (same shape) and returns ``{value name: gradient Value}``
        for every differentiable value on the path."""
        grads = {output.name: seed}
        self._recording = False
        for vjp, out, inputs in reversed(list(self.tape)):
            g = grads.get(out.name)
            if g is None:
                continue
            for inp, gi in zip(inputs, vjp(g)):
                if not inp.differentiable or gi is None:
                    continue
                prev = grads.get(inp.name)
                # Accumulate without recording: the backward is not
                # differentiated again.
                if prev is None:
                    grads[inp.name] = gi
                else:
                    acc = self._binary("arith.addf", prev, gi, "acc")
                    grads[inp.name] = acc
        self._recording = True
        return grads

    def body(self):
        return "\n".join(self.lines)
