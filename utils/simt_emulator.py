#!/usr/bin/env python3
"""Runs GPU kernels of amp-mlir's passes on the CPU, the lanes of every warp
in lockstep, and checks what they compute against numpy: the tensor-core
matmuls and batched matmuls of `amp-gpu-tensor-core-contractions`, the
transposes of `amp-gpu-tiled-transpose`, and the reductions of
`amp-gpu-scalar-kernels` and `amp-gpu-reduction-kernels`.

No machine of the project's CI has a GPU, and the pass's index arithmetic
(the tiling of blocks and warps, the shared-memory tiles and the copies into
them, the unrolled m16n8k16 pieces, the lanes' fragment positions, the
hoisted accumulators) and its barriers are where a wrong schedule would show.
This emulator executes the pass's output as a GPU would: every thread of
every block at once, as numpy arrays with one row per thread; shared memory
(the launch's workgroup attributions, or views of its dynamic shared memory)
one array per block, with a race check at every access (a thread reading an
element another thread wrote, or overwriting one another thread read or
wrote, with no `gpu.barrier` in between); `ldmatrix` as the PTX ISA
describes it; and `mma.sync` on the
warp's fragments as the PTX ISA lays them out ("Matrix Fragments for
mma.m16n8k16 with floating point type", f16 and bf16):
g = laneid / 4, t = laneid % 4,
  A (16 x 16), four registers of two halves: (row g, columns 2t, 2t+1),
    (g+8, 2t..), (g, 2t+8..), (g+8, 2t+8..);
  B (16 x 8, k x n), two registers: (rows 2t, 2t+1, column g),
    (rows 2t+8, 2t+9, column g);
  C and D (16 x 8), four floats: (row g, columns 2t, 2t+1),
    (row g+8, columns 2t, 2t+1).
The layout is written here from the ISA, apart from the pass. `cp.async`
(`nvgpu.device_async_copy`, commit groups, `wait_group N`) lands as late as
the ISA allows: the source is read at issue, the destination reads as NaN
until the wait that completes the copy's group, and a copy still pending
when the kernel ends is an error. The launch's dynamic shared memory
(`gpu.dynamic_shared_memory`) is used through `memref.view`s, which must
not overlap and must lie within the launch's size.

Divergence: a loop whose bounds differ between threads runs each iteration
with the threads still in it active, and `scf.if` runs each branch with its
threads active; memory ops act for active threads only, and a barrier or
`gpu.all_reduce` that not every thread of a block reaches is an error.

Input: a function in generic MLIR form (`amp-opt --mlir-print-op-generic`)
whose arguments are A (m x k), B (k x n) and C (m x n) memrefs of a matmul
`C += A * B` (`C = VALUE + A * B` with `--filled VALUE`, for a function
that fills C first; rounded to f16 or bf16 with `--round-output TYPE`, for
one that rounds C after the matmul), after `--amp-gpu-tensor-core-contractions` (or b x m x k,
b x k x n and b x m x n of a batched matmul, whose kernels view each batch
element's matrices through `memref.reinterpret_cast`); or IN (r x c) and
OUT (c x r) of a transpose, after `--amp-gpu-tiled-transpose`. The function
is run on small integers (exact in f16, bf16 and f32, so every order of
summation gives the same f32 result) and C (OUT) is compared with numpy's;
an element of OUT never written counts as a difference. Or IN (any shape)
and a 0-d OUT of a full reduction, after `amp-gpu-scalar-kernels`, with
`--reduction sum|prod|max|min|or|and|xor`: OUT must be its first value combined
with every element of IN; or IN and OUT of a partial reduction, after
`amp-gpu-reduction-kernels`, with `--reduction` and `--reduce-dims D,...`
(the dimensions of IN folded; OUT has the others, in order): each element
of OUT must be its first value combined with its slice of IN. With
`--filled VALUE` (a function that fills OUT first, a fill the kernel
starts from), VALUE replaces OUT's first value.
Prints `<function>: <launches> launch(es), <blocks> blocks of <threads>
threads, <mma> mma.sync per warp, max |C - numpy| = <value>` (or OUT) per
function, and exits 1 when a value differs (that printed maximum is not
0). It also exits 1, with a one-line `simt_emulator:` message instead of
the result, on a race (above; in global memory, two threads writing one
element in a launch, or one reading what another wrote); on an access
that is out of bounds or not aligned as it says (`alignment`; 16 bytes for
an ldmatrix row and the copy's size for cp.async, with 16-byte aligned
bases); on an mma.sync told the
wrong multiplicand type; on an op or form this emulator does not model;
and on unreadable input.

It needs numpy: run it with the build's Python (`build/venv/bin/python`,
as the lit tests do).

Usage: build/venv/bin/python utils/simt_emulator.py IN.mlir [--func NAME ...]
       [--seed N] [--filled VALUE] [--round-output TYPE]
       [--reduction KIND [--reduce-dims D,...]]
e.g.   build/bin/amp-opt k.mlir --pass-pipeline="builtin.module(func.func(
         amp-gpu-reduction-kernels))" --mlir-print-op-generic -o k.gen.mlir
       build/venv/bin/python utils/simt_emulator.py k.gen.mlir \
         --reduction sum --reduce-dims 1
"""
import argparse
import itertools
import re
import sys

import numpy as np

FLOAT_TYPES = {"f16": np.float16, "bf16": np.float32, "f32": np.float32,
               "f64": np.float64}


class EmulationError(Exception):
    pass


# --- Parsing the generic form -------------------------------------------------

OP_RE = re.compile(
    r'^\s*(?:(?P<res>%[\w.$-]+)(?::(?P<count>\d+))? = )?"(?P<name>[\w.]+)"'
    r'\((?P<operands>[^)]*)\)(?P<rest>.*)$')
BLOCK_RE = re.compile(r'^\s*\^bb\d+(?:\((?P<args>.*)\))?:\s*$')


class Op:
    def __init__(self, name, results, operands, rest):
        self.name, self.results, self.operands = name, results, operands
        self.rest = rest          # properties, attributes and types, as text
        self.block_args = []      # (name, type) of the region's block
        self.body = None          # the (first) region's ops, or None
        self.regions = []         # every region's ops

    def prop(self, key):
        m = re.search(re.escape(key) + r" = ", self.rest)
        if not m:
            return None
        # The value runs to the next ", key =" or the end of the property
        # dictionary; brackets and angle brackets nest.
        depth, i, s = 0, m.end(), self.rest
        start = i
        while i < len(s):
            c = s[i]
            if s.startswith("->", i):
                i += 2
                continue
            if c in "<([{":
                depth += 1
            elif c in ">)]}":
                if depth == 0:
                    break
                depth -= 1
            elif c == "," and depth == 0:
                break
            i += 1
        return s[start:i].strip()

    def types(self):
        """(operand types, result types) from the trailing function type."""
        m = re.search(r":\s*\((?P<ins>[^()]*)\)\s*->\s*(?P<outs>[^:]*)$",
                      self.rest)
        if not m:
            raise EmulationError(f"{self.name}: no function type in '{self.rest}'")
        outs = m.group("outs").strip()
        if outs.startswith("(") and outs.endswith(")"):
            outs = outs[1:-1]
        return split_types(m.group("ins")), split_types(outs)


def split_types(text):
    out, depth, cur = [], 0, ""
    for i, c in enumerate(text):
        if c == ">" and i and text[i - 1] == "-":
            pass
        elif c in "<([{":
            depth += 1
        elif c in ">)]}":
            depth -= 1
        if c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += c
    if cur.strip():
        out.append(cur.strip())
    return out


def parse(lines, i=0):
    """Parses ops from lines[i] up to the end of the enclosing region; returns
    (ops, index of the line that closes the region)."""
    ops = []
    while i < len(lines):
        line = lines[i]
        if line.strip().startswith("})") or line.strip().startswith("}, {"):
            return ops, i
        if not line.strip() or BLOCK_RE.match(line):
            i += 1
            continue
        m = OP_RE.match(line)
        if not m:
            raise EmulationError(f"cannot parse line {i + 1}: {line.strip()} (the input "
                                 "must be generic MLIR: amp-opt --mlir-print-op-generic)")
        res = m.group("res")
        count = int(m.group("count") or 1)
        results = ([] if res is None else
                   [res] if count == 1 else [f"{res}#{k}" for k in range(count)])
        operands = [o.strip() for o in m.group("operands").split(",") if o.strip()]
        op = Op(m.group("name"), results, operands, m.group("rest"))
        if op.rest.rstrip().endswith("({"):
            block = BLOCK_RE.match(lines[i + 1])
            if block and block.group("args"):
                op.block_args = [tuple(a.split(":", 1)) for a in
                                 split_types(block.group("args"))]
                op.block_args = [(n.strip(), t.strip()) for n, t in op.block_args]
            op.body, end = parse(lines, i + 1)
            op.regions = [op.body]
            # Further regions (scf.if's else) follow "}, {".
            while lines[end].strip().startswith("}, {"):
                region, end = parse(lines, end + 1)
                op.regions.append(region)
            # The types follow the last region's closing line.
            op.rest += " " + lines[end].strip()[2:]
            i = end
        ops.append(op)
        i += 1
    return ops, i


def resolve_aliases(lines):
    """Drops the attribute alias definitions (`#map = affine_map<...>`) and
    writes each use out in full."""
    aliases, rest = {}, []
    for line in lines:
        m = re.match(r"^#([\w.$-]+) = (.*)$", line)
        if m:
            aliases[m.group(1)] = m.group(2)
        else:
            rest.append(line)
    if not aliases:
        return rest
    use = re.compile(r"#([\w.$-]+)")
    return [use.sub(lambda m: aliases.get(m.group(1), m.group(0)), line)
            for line in rest]


# --- Types and values --------------------------------------------------------

def parse_shaped(t):
    """'memref<4x8xf16>' / 'vector<2x2xf32>' -> ((4, 8), 'f16')."""
    m = re.match(r"(?:memref|vector)<(?P<dims>(?:\d+x)*)(?P<elem>\w+)", t)
    if not m:
        raise EmulationError(f"unsupported type {t}")
    dims = tuple(int(d) for d in m.group("dims").split("x") if d)
    return dims, m.group("elem")


def round_to(x, elem):
    """float32 `x` rounded to f16 or bf16 (to nearest even) and back."""
    if elem == "f16":
        return x.astype(np.float16).astype(np.float32)
    bits = x.view(np.uint32)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return np.where(np.isnan(x), x, rounded.astype(np.uint32).view(np.float32))


def numpy_type(elem):
    if elem in FLOAT_TYPES:
        return FLOAT_TYPES[elem]
    if elem == "index" or re.fullmatch(r"i\d+", elem):
        return np.int64
    raise EmulationError(f"unsupported element type {elem}")


def int_width(t):
    """The bit width of the integer type `t` (or of a vector's elements):
    64 for index."""
    elem = parse_shaped(t)[1] if t.startswith("vector") else t
    if elem == "index":
        return 64
    m = re.fullmatch(r"i(\d+)", elem)
    if not m:
        raise EmulationError(f"{t} is not an integer type")
    return int(m.group(1))


def wrap_integer(v, width):
    """int64 values wrapped to `width` bits: two's complement, i1 as 0/1."""
    v = np.asarray(v, dtype=np.int64)
    if width >= 64:
        return v
    if width == 1:
        return v & 1
    half = np.int64(1) << (width - 1)
    return ((v + half) & ((half << 1) - 1)) - half


def unsigned(v, width):
    """The unsigned value of `width`-bit integers held as int64."""
    v = np.asarray(v, dtype=np.int64)
    return v.astype(np.uint64) if width >= 64 else (v & ((1 << width) - 1)).astype(np.uint64)


def eval_affine(map_text, operands):
    """affine_map<(d0, d1)[s0] -> (d0 + s0 floordiv 4)> applied to arrays."""
    m = re.match(r"affine_map<\((?P<dims>[^)]*)\)(?:\[(?P<syms>[^\]]*)\])?"
                 r"\s*->\s*\((?P<expr>.*)\)>$", map_text)
    if not m:
        raise EmulationError(f"unsupported affine map {map_text}")
    names = [d.strip() for d in m.group("dims").split(",") if d.strip()]
    names += [s.strip() for s in (m.group("syms") or "").split(",") if s.strip()]
    expr = m.group("expr")
    if "," in expr or "ceildiv" in expr:
        raise EmulationError(f"unsupported affine map {map_text}")
    # floordiv and mod bind like *, as // and % do in Python; both round
    # towards negative infinity, as the affine ones do.
    expr = expr.replace("floordiv", "//").replace("mod", "%")
    # Only the map's own names, integers and + - * // % ( ): nothing else of
    # the input file reaches eval.
    tokens = re.findall(r"[A-Za-z_]\w*|\d+|//|[-+*%()]|\S", expr)
    if any(t not in names and not t.isdigit() and t not in ("+", "-", "*", "//", "%",
                                                             "(", ")")
           for t in tokens):
        raise EmulationError(f"unsupported affine map {map_text}")
    return eval(expr, {"__builtins__": {}}, dict(zip(names, operands)))


# --- Execution ---------------------------------------------------------------

class Memory:
    """A memref's elements: global memory (one array), or a launch's shared
    memory (one array per block, `shared`). Shared memory also records, per
    element, which thread last wrote and read it in which barrier epoch
    (the number of `gpu.barrier`s executed so far), to find races: a thread
    reading an element another thread wrote, or writing one another thread
    read or wrote, with no barrier in between."""

    def __init__(self, array, shared=False):
        self.array, self.shared = array, shared
        self.shape = array.shape[1:] if shared else array.shape
        # Global memory: the thread that wrote each element in the current
        # launch (-1: none), for races between threads of different blocks.
        self.launch, self.global_writer = None, None
        if shared:
            n = array.size
            self.write_epoch = np.full(n, -1)
            self.writer = np.full(n, -1)
            self.read_epoch = np.full(n, -1)
            self.reader = np.full(n, -1)  # -2: several threads

    def flat_addresses(self, full, emulator):
        if self.shared:
            block = np.broadcast_to(emulator.block_of_thread[:, None], full[0].shape)
            full = [block] + list(full)
        return np.ravel_multi_index(tuple(full), self.array.shape)

    def check_alignment(self, op, flat, alignment):
        """Each access of `alignment` bytes starts at a multiple of it (the
        base of global and shared memory is: the runtime's allocations and
        amp-gpu-align-workgroup-memory's 16 bytes)."""
        if not alignment:
            return
        per_base = int(np.prod(self.shape)) if self.shared else self.array.size
        offset = (flat[:, 0] % per_base) * self.array.itemsize
        bad = offset % alignment != 0
        if np.any(bad):
            raise EmulationError(f"{op.name}: byte offset {int(offset[bad][0])} is not "
                                 f"a multiple of its alignment {alignment}")

    def global_writers(self, emulator):
        if self.launch is not emulator.launch_id:
            self.launch = emulator.launch_id
            self.global_writer = np.full(self.array.size, -1)
        return self.global_writer

    @staticmethod
    def active_part(emulator, flat):
        """The addresses of the active threads (flat), and each one's thread."""
        rows = emulator.active
        threads = np.broadcast_to(np.arange(emulator.threads)[:, None], flat.shape)
        return flat[rows].reshape(-1), threads[rows].reshape(-1)

    def load(self, op, emulator, flat):
        """The elements at `flat` (threads x width); inactive threads get 0."""
        f, t = self.active_part(emulator, flat)
        if not self.shared and emulator.launch_id is not None:
            writer = self.global_writers(emulator)
            other = (writer[f] != -1) & (writer[f] != t)
            if np.any(other):
                raise EmulationError(
                    f"{op.name}: thread {int(t[other][0])} reads global memory thread "
                    f"{int(writer[f][other][0])} wrote in the same launch (a race)")
        if self.shared and len(f):
            raw = (self.write_epoch[f] == emulator.epoch) & (self.writer[f] != t)
            if np.any(raw):
                raise EmulationError(
                    f"{op.name}: thread {int(t[raw][0])} reads shared memory that "
                    f"thread {int(self.writer[f][raw][0])} wrote with no barrier "
                    "in between (a race)")
            # Readers of this epoch: one thread, or several (-2).
            order = np.argsort(f, kind="stable")
            fs, ts = f[order], t[order]
            first = np.ones(len(fs), bool)
            first[1:] = fs[1:] != fs[:-1]
            lo = np.minimum.reduceat(ts, np.flatnonzero(first))
            hi = np.maximum.reduceat(ts, np.flatnonzero(first))
            addr = fs[first]
            mine = ts[first]
            prior_other = (self.read_epoch[addr] == emulator.epoch) & \
                (self.reader[addr] != mine)
            several = (lo != hi) | prior_other
            self.reader[addr] = np.where(several, -2, mine)
            self.read_epoch[addr] = emulator.epoch
        out = np.zeros(flat.shape, dtype=self.array.dtype)
        out[emulator.active] = self.array.reshape(-1)[flat[emulator.active]]
        return out

    def store(self, op, emulator, flat, value):
        """Stores the active threads' rows of `value` at `flat`."""
        f, t = self.active_part(emulator, flat)
        v = np.asarray(value)[emulator.active].reshape(-1)
        order = np.argsort(f, kind="stable")
        same = f[order][1:] == f[order][:-1]
        if np.any(same & (v[order][1:] != v[order][:-1])):
            raise EmulationError(f"{op.name}: threads store different values to "
                                 "one address (a race)")
        if not self.shared and emulator.launch_id is not None:
            writer = self.global_writers(emulator)
            other = (writer[f] != -1) & (writer[f] != t)
            if np.any(other) or np.any(same):
                raise EmulationError(
                    f"{op.name}: two threads write one element of global memory in "
                    "the same launch (a race, or work done twice)")
            writer[f] = t
        if self.shared:
            war = (self.read_epoch[f] == emulator.epoch) & (self.reader[f] != t)
            waw = (self.write_epoch[f] == emulator.epoch) & (self.writer[f] != t)
            if np.any(war | waw):
                kind = "read" if np.any(war) else "wrote"
                raise EmulationError(
                    f"{op.name}: thread {int(t[war | waw][0])} overwrites shared "
                    f"memory another thread {kind} with no barrier in between "
                    "(a race)")
            self.write_epoch[f] = emulator.epoch
            self.writer[f] = t
        self.array.reshape(-1)[f] = v


class View:
    """A memref.reinterpret_cast of global memory: `shape` elements with
    `strides`, from a per-thread element offset into `base` (a Memory).
    Accesses go to the base, with its race checks; an index must be within
    the view's shape and the element within the base."""

    shared = False

    def __init__(self, base, offset, shape, strides):
        self.base, self.offset = base, offset
        self.shape, self.strides = tuple(shape), tuple(strides)
        self.array = base.array

    def flat_addresses(self, full, emulator):
        flat = self.offset[:, None] + sum(i * s for i, s in zip(full, self.strides))
        flat = np.where(emulator.active[:, None], flat, 0)
        bad = (flat < 0) | (flat >= self.base.array.size)
        if np.any(bad):
            raise EmulationError(f"element {int(flat[bad][0])} of a view is outside "
                                 f"its buffer of {self.base.array.size}")
        return flat

    def check_alignment(self, op, flat, alignment):
        self.base.check_alignment(op, flat, alignment)

    def load(self, op, emulator, flat):
        return self.base.load(op, emulator, flat)

    def store(self, op, emulator, flat, value):
        self.base.store(op, emulator, flat, value)


class DynamicShared:
    """A launch's dynamic shared memory (gpu.dynamic_shared_memory): `size`
    bytes per block, used through memref.view."""

    def __init__(self, size):
        self.size = size


def static_list(op, key):
    return [int(v) for v in re.search(r"array<i64:?([^>]*)>", op.prop(key))
            .group(1).split(",") if v.strip()]


class Emulator:
    def __init__(self, operand_type):
        self.mma_count = 0
        self.launches = []
        self.launch_id = None
        # The multiplicands' element type (the A argument's): what mma.sync
        # must be told it multiplies.
        self.operand_type = operand_type

    def run_function(self, func, args):
        """Runs `func` on numpy arrays, one per memref argument (written in
        place)."""
        if any(not t.startswith("memref") for _, t in func.block_args):
            raise EmulationError("only memref arguments are emulated")
        env = {name: Memory(value) for (name, _), value in zip(func.block_args, args)}
        self.threads = 1
        self.active = np.ones(1, bool)
        self.run_ops(func.body, env)

    def get(self, env, name):
        if name not in env:
            raise EmulationError(f"use of undefined value {name}")
        v = env[name]
        if isinstance(v, (Memory, View, tuple)):
            return v
        # Values from outside a launch are uniform: one row for all threads.
        if v.shape[0] != self.threads:
            v = np.broadcast_to(v, (self.threads,) + v.shape[1:])
        return v

    def uniform(self, env, name):
        v = self.get(env, name)
        if not np.all(v == v[0]):
            raise EmulationError(f"{name} differs between threads "
                                 "(divergent control flow is not emulated)")
        return int(v[0])

    def run_ops(self, ops, env):
        for op in ops:
            if op.name in ("gpu.terminator", "func.return"):
                continue
            if op.name == "scf.yield":
                return [self.get(env, o) for o in op.operands]
            handler = getattr(self, "op_" + op.name.replace(".", "_"), None)
            if handler is None:
                hint = (" (run the pass that makes it a kernel first)"
                        if op.name.startswith("linalg.") else "")
                raise EmulationError(f"op '{op.name}' is not emulated{hint}")
            values = handler(op, env)
            if values is not None:
                for name, value in zip(op.results, values):
                    env[name] = value
        return []

    # Constants and index arithmetic.
    def op_arith_constant(self, op, env):
        value = op.prop("value")
        if value in ("true", "false"):  # i1 constants carry no type
            value += " : i1"
        m = re.match(r"(?:dense<(?P<splat>[^>]*)>|(?P<scalar>[^:]+))\s*:\s*(?P<type>.*)$",
                     value)
        if not m:
            raise EmulationError(f"unsupported constant {value}")
        text = (m.group("splat") or m.group("scalar")).strip()
        t = m.group("type").strip()
        if text in ("true", "false"):
            text = "1" if text == "true" else "0"
        elem = parse_shaped(t)[1] if t.startswith("vector") else t
        if text.startswith("0x") and elem in FLOAT_TYPES:
            # A float's bit pattern (infinities, NaNs).
            bits = int(text, 16)
            text = repr(float({"f16": lambda: np.uint16(bits).view(np.float16),
                               "bf16": lambda: np.uint32(bits << 16).view(np.float32),
                               "f32": lambda: np.uint32(bits).view(np.float32),
                               "f64": lambda: np.uint64(bits).view(np.float64)}[elem]()))
        if t.startswith("vector"):
            shape, elem = parse_shaped(t)
            return [np.full((1,) + shape, float(text) if elem in FLOAT_TYPES
                            else int(text), dtype=numpy_type(elem))]
        return [np.asarray([float(text) if t in FLOAT_TYPES else int(text)],
                           dtype=numpy_type(t))]

    def op_ub_poison(self, op, env):
        t = op.types()[1][0]
        if t.startswith("vector"):
            shape, elem = parse_shaped(t)
        else:
            shape, elem = (), t
        fill = np.nan if elem in FLOAT_TYPES else -(1 << 40)
        return [np.full((1,) + shape, fill, dtype=numpy_type(elem))]

    def op_affine_apply(self, op, env):
        value = np.asarray(eval_affine(op.prop("map"),
                                       [self.get(env, o) for o in op.operands]),
                           dtype=np.int64)
        # A map without operands is a constant: one row, as arith.constant.
        return [value.reshape(1) if value.ndim == 0 else value]

    def binary(fn):
        def handler(self, op, env):
            a, b = (self.get(env, o) for o in op.operands)
            return [fn(a, b)]
        return handler

    def integer(fn):
        """An integer op on int64 rows, its result wrapped to the width of
        its type (two's complement; i1 as 0 and 1)."""
        def handler(self, op, env):
            a, b = (self.get(env, o) for o in op.operands)
            return [wrap_integer(fn(a, b, int_width(op.types()[1][0])),
                                 int_width(op.types()[1][0]))]
        return handler

    op_arith_addi = integer(lambda a, b, w: a + b)
    op_arith_subi = integer(lambda a, b, w: a - b)
    op_arith_muli = integer(lambda a, b, w: a * b)
    op_arith_divui = integer(lambda a, b, w: unsigned(a, w) // unsigned(b, w))
    op_arith_remui = integer(lambda a, b, w: unsigned(a, w) % unsigned(b, w))
    op_arith_minui = integer(lambda a, b, w: np.where(unsigned(a, w) <= unsigned(b, w), a, b))
    op_arith_maxui = integer(lambda a, b, w: np.where(unsigned(a, w) >= unsigned(b, w), a, b))
    op_arith_addf = binary(lambda a, b: a + b)
    op_arith_mulf = binary(lambda a, b: a * b)
    op_arith_subf = binary(lambda a, b: a - b)
    op_arith_divf = binary(lambda a, b: a / b)
    op_arith_maximumf = binary(np.maximum)
    op_arith_minimumf = binary(np.minimum)
    op_arith_maxnumf = binary(np.fmax)
    op_arith_minnumf = binary(np.fmin)
    op_arith_maxsi = binary(np.maximum)
    op_arith_minsi = binary(np.minimum)
    op_arith_andi = binary(lambda a, b: a & b)
    op_arith_ori = binary(lambda a, b: a | b)
    op_arith_xori = binary(lambda a, b: a ^ b)

    def op_arith_negf(self, op, env):
        return [-self.get(env, op.operands[0])]

    def op_arith_select(self, op, env):
        c, a, b = (self.get(env, o) for o in op.operands)
        return [self.merge(c.astype(bool), a, b)]

    CMPI = {0: np.equal, 1: np.not_equal, 2: np.less, 3: np.less_equal, 4: np.greater,
            5: np.greater_equal, 6: np.less, 7: np.less_equal, 8: np.greater,
            9: np.greater_equal}

    def op_arith_cmpi(self, op, env):
        a, b = (self.get(env, o) for o in op.operands)
        pred = int(op.prop("predicate").split(":")[0])
        if pred >= 6 and (np.any(a < 0) or np.any(b < 0)):
            raise EmulationError("arith.cmpi: unsigned comparison of negative values")
        return [self.CMPI[pred](a, b).astype(np.int64)]

    def op_arith_cmpf(self, op, env):
        a, b = (self.get(env, o) for o in op.operands)
        pred = int(op.prop("predicate").split(":")[0])
        unordered = np.isnan(a) | np.isnan(b)
        base = {1: np.equal, 2: np.greater, 3: np.greater_equal, 4: np.less,
                5: np.less_equal, 6: np.not_equal}
        if pred in (0, 15):
            r = np.full(a.shape, pred == 15)
        elif pred == 7:
            r = ~unordered
        elif pred == 14:
            r = unordered
        elif pred <= 6:
            r = base[pred](a, b) & ~unordered
        else:
            r = base[pred - 7](a, b) | unordered
        return [r.astype(np.int64)]

    def cast_to(self, op, env):
        """extui, extsi, trunci, index_cast, extf, truncf, sitofp, uitofp:
        the operand converted to the result type (bf16 rounded to nearest
        even, held in float32)."""
        v = self.get(env, op.operands[0])
        t = op.types()[1][0]
        elem = parse_shaped(t)[1] if t.startswith("vector") else t
        if elem == "i1":
            return [v.astype(np.int64) & 1]
        if elem == "bf16":
            return [round_to(v.astype(np.float32), "bf16")]
        return [v.astype(numpy_type(elem))]

    op_arith_extui = op_arith_extsi = op_arith_trunci = op_arith_index_cast = cast_to
    op_arith_extf = op_arith_truncf = op_arith_sitofp = op_arith_uitofp = cast_to

    # GPU ids.
    def op_gpu_launch(self, op, env):
        sizes = [self.uniform(env, o) for o in op.operands]
        segments = [int(s) for s in
                    re.search(r"array<i32: ([\d, ]+)>", op.prop("operandSegmentSizes"))
                    .group(1).split(",")]
        # async dependencies, grid x/y/z, block x/y/z, cluster x/y/z,
        # dynamic shared memory size
        if segments[0] or any(segments[7:10]) or len(segments) != 11:
            raise EmulationError("gpu.launch: async or cluster operands are not "
                                 "emulated")
        self.dynamic_shared_bytes = sizes.pop() if segments[10] else 0
        self.dynamic_shared_views = []
        grid, block = sizes[:3], sizes[3:]
        per_block = block[0] * block[1] * block[2]
        blocks = grid[0] * grid[1] * grid[2]
        outer_threads = self.threads
        self.threads = blocks * per_block
        t = np.arange(self.threads)
        b, tid = t // per_block, t % per_block
        ids = [b % grid[0], b // grid[0] % grid[1], b // (grid[0] * grid[1]),
               tid % block[0], tid // block[0] % block[1], tid // (block[0] * block[1])]
        inner = dict(env)
        for (name, _), value in zip(op.block_args, ids + [np.full(self.threads, s)
                                                         for s in sizes]):
            inner[name] = value
        # Workgroup attributions: shared memory, one array per block.
        for name, t in op.block_args[12:]:
            if "#gpu.address_space<workgroup>" not in t:
                raise EmulationError(f"gpu.launch: attribution {name} : {t} is not "
                                     "workgroup memory")
            shape, elem = parse_shaped(t)
            inner[name] = Memory(np.full((blocks,) + shape, np.nan if elem in FLOAT_TYPES
                                         else 0, dtype=numpy_type(elem)), shared=True)
        self.block_of_thread = b
        self.launch_blocks = blocks
        self.epoch = 0
        self.launch_id = object()
        outer_active, self.active = self.active, np.ones(self.threads, bool)
        self.ids = {"block": ids[:3], "thread": ids[3:], "lane": tid % 32}
        self.launches.append((blocks, per_block))
        # cp.async copies issued and not yet committed to a group (per
        # copy: the issuing threads), and the committed groups.
        self.async_uncommitted, self.async_groups = [], []
        self.run_ops(op.body, inner)
        if self.async_uncommitted or any(np.any(g["pending"]) for g in self.async_groups):
            raise EmulationError("gpu.launch: cp.async copies (nvgpu.device_async_copy) "
                                 "still pending when the kernel ends: no "
                                 "nvgpu.device_async_wait covers them")
        self.threads = outer_threads
        self.launch_id = None
        self.active = outer_active

    def dim_id(kind):
        def handler(self, op, env):
            dim = "xyz".index(re.search(r"#gpu<dim (\w)>", op.rest).group(1))
            return [self.ids[kind][dim]]
        return handler

    op_gpu_block_id = dim_id("block")
    op_gpu_thread_id = dim_id("thread")

    def op_gpu_lane_id(self, op, env):
        return [self.ids["lane"]]

    # Loops.
    def op_scf_for(self, op, env):
        """A loop; with bounds that differ between threads, each iteration
        runs with the threads still in the loop active (the others keep
        their carried values)."""
        lb, ub, step = (self.get(env, o) for o in op.operands[:3])
        carried = [self.get(env, o) for o in op.operands[3:]]
        names = [n for n, _ in op.block_args]
        if np.any(step[self.active] <= 0):
            raise EmulationError("scf.for: a step that is not positive")
        outer_active = self.active
        for i in itertools.count():
            iv = lb + i * step
            running = outer_active & (iv < ub)
            if not np.any(running):
                break
            self.active = running
            inner = dict(env)
            inner[names[0]] = iv
            for name, value in zip(names[1:], carried):
                inner[name] = value
            carried = [self.merge(running, new, old)
                       for new, old in zip(self.run_ops(op.body, inner), carried)]
        self.active = outer_active
        return carried

    def merge(self, mask, a, b):
        """a where `mask` (one flag per thread), else b."""
        if isinstance(a, tuple):
            return tuple(self.merge(mask, x, y) for x, y in zip(a, b))
        return np.where(mask.reshape((-1,) + (1,) * (np.ndim(a) - 1)), a, b)

    def op_scf_if(self, op, env):
        """Both branches run, each with its threads active."""
        cond = self.get(env, op.operands[0]).astype(bool)
        outer_active = self.active
        results = []
        for region, taken in zip(op.regions, (cond, ~cond)):
            self.active = outer_active & taken
            results.append(self.run_ops(region, dict(env)))
        self.active = outer_active
        if not op.results:
            return None
        if len(results) != 2:
            raise EmulationError("scf.if: results without an else region")
        return [self.merge(cond, a, b) for a, b in zip(*results)]

    def op_affine_delinearize_index(self, op, env):
        if len(op.operands) != 1:
            raise EmulationError("affine.delinearize_index: dynamic bases are not emulated")
        basis = [int(b) for b in re.search(r"array<i64:([^>]*)>", op.prop("static_basis"))
                 .group(1).split(",")]
        x = self.get(env, op.operands[0])
        if len(op.results) == len(basis):  # the first is the outer bound
            basis = basis[1:]
        results, stride = [], int(np.prod(basis)) if basis else 1
        results.append(x // stride)
        for b in basis:
            stride //= b
            results.append(x // stride % b)
        return results

    def op_gpu_all_reduce(self, op, env):
        """The block's reduction of every thread's value, to every thread."""
        if op.body:
            raise EmulationError("gpu.all_reduce: reductions with a body are not emulated")
        if not np.all(self.active):
            raise EmulationError("gpu.all_reduce: not every thread of the block "
                                 "reaches it (divergent code)")
        kind = re.search(r"all_reduce_op (\w+)", op.prop("op")).group(1)
        blocks, per_block = self.launches[-1]
        v = self.get(env, op.operands[0]).reshape(blocks, per_block)
        result_type = op.types()[1][0]
        width = None if result_type in FLOAT_TYPES else int_width(result_type)

        def unsigned_pick(pick):
            def reduce(x, axis):
                keys = unsigned(x, width)
                return np.take_along_axis(x, pick(keys, axis=axis)[:, None], axis=1)[:, 0]
            return reduce
        reduce = {"add": np.sum, "mul": np.prod, "and": np.bitwise_and.reduce,
                  "or": np.bitwise_or.reduce, "xor": np.bitwise_xor.reduce,
                  "minui": unsigned_pick(np.argmin), "minsi": np.min,
                  "maxui": unsigned_pick(np.argmax), "maxsi": np.max,
                  "minnumf": np.nanmin, "maxnumf": np.nanmax, "minimumf": np.min,
                  "maximumf": np.max}.get(kind)
        if reduce is None:
            raise EmulationError(f"gpu.all_reduce: {kind} is not emulated")
        r = reduce(v, axis=1).astype(v.dtype)
        if kind in ("add", "mul") and v.dtype == np.int64:
            r = wrap_integer(r, width)
        return [np.repeat(r, per_block)]

    # Memory.
    def memory(self, env, name):
        mem = env[name]
        if not isinstance(mem, (Memory, View)):
            raise EmulationError(f"{name} is not a memref")
        return mem

    def addresses(self, op, env, mem, indices, width=1):
        """Flat addresses (threads x width) of `width` consecutive elements
        along the last dimension from each thread's indices."""
        idx = [self.get(env, o) for o in indices]
        if len(idx) != len(mem.shape):
            raise EmulationError(f"{op.name}: {len(idx)} indices for a rank-"
                                 f"{len(mem.shape)} memref")
        if not idx:  # a 0-d memref: its one element (per block if shared)
            base = self.block_of_thread if mem.shared else np.zeros(self.threads, int)
            return np.broadcast_to(base[:, None], (self.threads, width)).copy()
        full = [np.broadcast_to(i[:, None], (self.threads, width)) for i in idx[:-1]]
        full.append(idx[-1][:, None] + np.arange(width))
        for dim, (i, size) in enumerate(zip(full, mem.shape)):
            bad = ((i < 0) | (i >= size)) & self.active[:, None]
            if np.any(bad):
                raise EmulationError(f"{op.name}: index {int(i[bad][0])} out of "
                                     f"bounds in dimension {dim} of size {size}")
        # Inactive threads' indices may be anything: element 0 stands in.
        full = [np.where(self.active[:, None], i, 0) for i in full]
        return mem.flat_addresses(full, self)

    def op_memref_alloc(self, op, env):
        """A host allocation of static shape (a kernel's scratch buffer),
        its elements NaN (floats) or a sentinel, so that a read before a
        write shows."""
        if op.operands:
            raise EmulationError("memref.alloc: dynamic sizes are not emulated")
        shape, elem = parse_shaped(op.types()[1][0])
        fill = np.nan if elem in FLOAT_TYPES else -(1 << 40)
        return [Memory(np.full(shape, fill, dtype=numpy_type(elem)))]

    def op_memref_dealloc(self, op, env):
        self.memory(env, op.operands[0])

    DYNAMIC = -9223372036854775808

    def op_memref_reinterpret_cast(self, op, env):
        """A strided view of a global buffer (operands: source, then the
        dynamic offset, sizes and strides in order)."""
        base = self.memory(env, op.operands[0])
        if not isinstance(base, Memory) or base.shared:
            raise EmulationError("memref.reinterpret_cast: of global buffers only")
        dynamic = iter(op.operands[1:])
        def resolve(values):
            return [self.get(env, next(dynamic)) if v == self.DYNAMIC
                    else np.full(self.threads, v) for v in values]
        offset, = resolve(static_list(op, "static_offsets"))
        sizes = resolve(static_list(op, "static_sizes"))
        strides = resolve(static_list(op, "static_strides"))
        if any(np.any(v != v[0]) for v in sizes + strides):
            raise EmulationError("memref.reinterpret_cast: sizes and strides that "
                                 "differ between threads are not emulated")
        return [View(base, np.asarray(offset, dtype=np.int64),
                     [int(v[0]) for v in sizes], [int(v[0]) for v in strides])]

    def op_gpu_dynamic_shared_memory(self, op, env):
        """The launch's dynamic shared memory, as bytes for memref.view."""
        if not self.dynamic_shared_bytes:
            raise EmulationError("gpu.dynamic_shared_memory: the launch has no "
                                 "dynamic_shared_memory_size")
        return [DynamicShared(self.dynamic_shared_bytes)]

    def op_memref_view(self, op, env):
        """A typed buffer in the launch's dynamic shared memory, at a byte
        offset; its elements start as NaN (floats) or a sentinel. Views
        must lie within the size the launch gives, aligned to 16 bytes, and
        not overlap (each is a buffer of its own here)."""
        source = env[op.operands[0]]
        if not isinstance(source, DynamicShared):
            raise EmulationError("memref.view: of gpu.dynamic_shared_memory only")
        if len(op.operands) != 2:
            raise EmulationError("memref.view: dynamic sizes are not emulated")
        offset = self.uniform(env, op.operands[1])
        shape, elem = parse_shaped(op.types()[1][0])
        elem_bytes = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "i8": 1, "i32": 4,
                      "i64": 8}.get(elem)
        if elem_bytes is None:
            raise EmulationError(f"memref.view: {elem} elements are not emulated")
        end = offset + int(np.prod(shape)) * elem_bytes
        if offset % 16:
            raise EmulationError(f"memref.view: byte offset {offset} is not a multiple "
                                 "of 16")
        if end > source.size:
            raise EmulationError(f"memref.view: bytes [{offset}, {end}) are not within "
                                 f"the {source.size} bytes of dynamic shared memory")
        for lo, hi in self.dynamic_shared_views:
            if offset < hi and lo < end:
                raise EmulationError(f"memref.view: bytes [{offset}, {end}) overlap "
                                     f"another view's [{lo}, {hi})")
        self.dynamic_shared_views.append((offset, end))
        fill = np.nan if elem in FLOAT_TYPES else 0
        return [Memory(np.full((self.launch_blocks,) + shape, fill,
                               dtype=numpy_type(elem)), shared=True)]

    def op_memref_load(self, op, env):
        mem = self.memory(env, op.operands[0])
        return [mem.load(op, self, self.addresses(op, env, mem, op.operands[1:]))[:, 0]]

    def op_vector_load(self, op, env):
        mem = self.memory(env, op.operands[0])
        shape, _ = parse_shaped(op.types()[1][0])
        if len(shape) != 1:
            raise EmulationError("vector.load: only 1-D vectors are emulated")
        flat = self.addresses(op, env, mem, op.operands[1:], shape[0])
        mem.check_alignment(op, flat, self.alignment(op))
        return [mem.load(op, self, flat)]

    def op_vector_store(self, op, env):
        value = self.get(env, op.operands[0])
        mem = self.memory(env, op.operands[1])
        if value.ndim != 2:
            raise EmulationError("vector.store: only 1-D vectors are emulated")
        flat = self.addresses(op, env, mem, op.operands[2:], value.shape[1])
        mem.check_alignment(op, flat, self.alignment(op))
        mem.store(op, self, flat, value)

    @staticmethod
    def alignment(op):
        text = op.prop("alignment")
        return int(text.split(":")[0]) if text else 0

    def op_memref_store(self, op, env):
        value = self.get(env, op.operands[0])
        mem = self.memory(env, op.operands[1])
        mem.store(op, self, self.addresses(op, env, mem, op.operands[2:]), value[:, None])

    def op_gpu_barrier(self, op, env):
        if not np.all(self.active):
            raise EmulationError("gpu.barrier: not every thread of the block reaches "
                                 "it (divergent code)")
        self.epoch += 1

    def op_nvgpu_ldmatrix(self, op, env):
        """ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16 (PTX ISA,
        "Warp-level matrix load instruction: ldmatrix"): lanes 8i..8i+7 give
        the addresses of the 8 rows (8 contiguous 16-bit elements each) of
        matrix i; lane l receives, per matrix, row l / 4, elements 2(l % 4)
        and 2(l % 4) + 1, or with .trans column l / 4, rows 2(l % 4) and
        2(l % 4) + 1."""
        self.whole_warps(op)
        tiles = int(op.prop("numTiles").split(":")[0])
        transpose = op.prop("transpose") == "true"
        mem = self.memory(env, op.operands[0])
        if not mem.shared or tiles not in (1, 2, 4):
            raise EmulationError("nvgpu.ldmatrix: x1, x2 or x4 from shared memory only")
        flat = self.addresses(op, env, mem, op.operands[1:], 8)
        # Each row is 16 bytes, at a 16-byte aligned address.
        mem.check_alignment(op, flat, 16)
        # Lanes past 8 * tiles give no address: read the row of a lane that
        # does (the same warp reads it anyway).
        lane = np.arange(self.threads) % 32
        used = np.arange(self.threads) - lane + lane % (8 * tiles)
        rows = mem.load(op, self, flat[used]).reshape(self.threads // 32, 32, 8)
        l = np.arange(32)
        out = np.zeros((self.threads // 32, 32, tiles, 2), dtype=rows.dtype)
        for m in range(tiles):
            for j in (0, 1):
                if transpose:
                    out[:, :, m, j] = rows[:, 8 * m + 2 * (l % 4) + j, l // 4]
                else:
                    out[:, :, m, j] = rows[:, 8 * m + l // 4, 2 * (l % 4) + j]
        return [out.reshape(self.threads, tiles, 2)]

    # cp.async (PTX ISA, "Data Movement and Conversion Instructions:
    # cp.async"): a copy lands in shared memory at some time between its
    # issue and the cp.async.wait_group that completes its group. Modelled
    # as late as allowed: at issue the source is read and the destination
    # poisoned (NaN, or a sentinel for integers: a read before completion
    # shows in the result) and recorded as written by the thread, at
    # completion the data is written (a thread reading it needs a barrier
    # after the wait, as on the GPU).
    def op_nvgpu_device_async_copy(self, op, env):
        segments = [int(v) for v in re.search(
            r"array<i32: ([\d, ]+)>", op.prop("operandSegmentSizes")).group(1).split(",")]
        dst_rank, src_rank, has_src_elements = segments[1], segments[3], segments[4]
        if has_src_elements:
            raise EmulationError("nvgpu.device_async_copy: srcElements (a partial "
                                 "copy) is not emulated")
        width = int(op.prop("dstElements").split(":")[0])
        operands = op.operands
        dst = self.memory(env, operands[0])
        src = self.memory(env, operands[1 + dst_rank])
        if not dst.shared or src.shared:
            raise EmulationError("nvgpu.device_async_copy: from global to shared "
                                 "memory only")
        elem = parse_shaped(op.types()[0][0])[1]
        elem_bytes = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8}.get(elem)
        if elem_bytes is None:
            raise EmulationError(f"nvgpu.device_async_copy: {elem} elements are not "
                                 "emulated")
        nbytes = width * elem_bytes
        if nbytes not in (4, 8, 16):
            raise EmulationError(f"nvgpu.device_async_copy: {nbytes} bytes; cp.async "
                                 "copies 4, 8 or 16")
        dst_flat = self.addresses(op, env, dst, operands[1:1 + dst_rank], width)
        src_flat = self.addresses(op, env, src, operands[2 + dst_rank:2 + dst_rank + src_rank],
                                  width)
        for mem, flat in ((dst, dst_flat), (src, src_flat)):
            per_base = int(np.prod(mem.shape)) if mem.shared else mem.array.size
            bad = (flat[:, 0] % per_base) * elem_bytes % nbytes != 0
            if np.any(bad & self.active):
                raise EmulationError("nvgpu.device_async_copy: an address not aligned "
                                     f"to the copy's {nbytes} bytes")
        values = src.load(op, self, src_flat)
        poison = np.full(values.shape, np.nan if np.issubdtype(dst.array.dtype, np.floating)
                         else -(1 << 40), dtype=dst.array.dtype)
        dst.store(op, self, dst_flat, poison)
        self.async_uncommitted.append({"op": op, "mem": dst, "flat": dst_flat,
                                       "values": values, "threads": self.active.copy()})
        return [np.zeros(self.threads, np.int64)]

    def op_nvgpu_device_async_create_group(self, op, env):
        """cp.async.commit_group: the active threads' uncommitted copies
        become a group (one per thread)."""
        copies = []
        for c in self.async_uncommitted:
            mine = c["threads"] & self.active
            if np.any(mine):
                copies.append(dict(c, threads=mine))
                c["threads"] = c["threads"] & ~self.active
        self.async_uncommitted = [c for c in self.async_uncommitted if np.any(c["threads"])]
        self.async_groups.append({"copies": copies, "pending": self.active.copy()})
        return [np.zeros(self.threads, np.int64)]

    def op_nvgpu_device_async_wait(self, op, env):
        """cp.async.wait_group N: each active thread's groups but its N most
        recent complete (their copies land now)."""
        keep = int((op.prop("numGroups") or "0").split(":")[0])
        later = np.zeros(self.threads, np.int64)
        outer_active = self.active
        for group in reversed(self.async_groups):
            done = group["pending"] & outer_active & (later >= keep)
            later += group["pending"]
            if not np.any(done):
                continue
            for c in group["copies"]:
                self.active = c["threads"] & done
                if np.any(self.active):
                    c["mem"].store(c["op"], self, c["flat"], c["values"])
            group["pending"] = group["pending"] & ~done
        self.active = outer_active
        self.async_groups = [g for g in self.async_groups if np.any(g["pending"])]

    # Vectors.
    def position(self, op):
        return tuple(int(p) for p in re.search(r"array<i64:?([^>]*)>",
                                               op.prop("static_position"))
                     .group(1).split(",") if p.strip())

    def op_vector_insert(self, op, env):
        value, dest = self.get(env, op.operands[0]), self.get(env, op.operands[1])
        if len(op.operands) > 2:
            raise EmulationError("vector.insert: dynamic positions are not emulated")
        out = np.array(dest, copy=True)
        out[(slice(None),) + self.position(op)] = value
        return [out]

    def op_vector_extract(self, op, env):
        if len(op.operands) > 1:
            raise EmulationError("vector.extract: dynamic positions are not emulated")
        return [self.get(env, op.operands[0])[(slice(None),) + self.position(op)]]

    def op_vector_from_elements(self, op, env):
        shape, _ = parse_shaped(op.types()[1][0])
        elements = np.stack([self.get(env, o) for o in op.operands], axis=1)
        return [elements.reshape((self.threads,) + shape)]

    def op_llvm_bitcast(self, op, env):
        ins, outs = op.types()
        if not (ins[0] in ("vector<2xbf16>", "vector<2xf16>") and outs[0] == "i32"):
            raise EmulationError(f"llvm.bitcast {ins[0]} -> {outs[0]} is not emulated")
        # A register of two halves, the first in the low half: kept as the
        # pair.
        return [self.get(env, op.operands[0])]

    def op_llvm_extractvalue(self, op, env):
        (i,) = self.position_of(op, "position")
        return [self.get(env, op.operands[0])[i]]

    def position_of(self, op, key):
        return tuple(int(p) for p in re.search(r"array<i64:([^>]*)>", op.prop(key))
                     .group(1).split(","))

    # Tensor cores.
    def whole_warps(self, op):
        """Warp-wide ops need every lane: whole warps, all active."""
        if any(t % 32 for _, t in self.launches[-1:]) or not np.all(self.active):
            raise EmulationError(f"{op.name}: needs whole warps, every lane active")

    def warp_mma(self, a, b, c):
        """a: (T, 4, 2), b: (T, 2, 2), c: (T, 2, 2) lane fragments of
        m16n8k16 (see the module docstring) -> d, as c."""
        w = self.threads // 32
        a, b, c = (x.reshape((w, 32) + x.shape[1:]).astype(np.float64)
                   for x in (a, b, c))
        lane = np.arange(32)
        g, t2 = lane // 4, lane % 4 * 2
        A = np.zeros((w, 16, 16))
        B = np.zeros((w, 16, 8))
        C = np.zeros((w, 16, 8))
        for j in (0, 1):
            for reg, (dr, dc) in enumerate([(0, 0), (8, 0), (0, 8), (8, 8)]):
                A[:, g + dr, t2 + dc + j] = a[:, :, reg, j]
            for reg, dr in enumerate([0, 8]):
                B[:, t2 + dr + j, g] = b[:, :, reg, j]
                C[:, g + dr, t2 + j] = c[:, :, reg, j]
        D = (A @ B + C).astype(np.float32)
        d = np.zeros((w, 32, 2, 2), dtype=np.float32)
        for j in (0, 1):
            for reg, dr in enumerate([0, 8]):
                d[:, :, reg, j] = D[:, g + dr, t2 + j]
        self.mma_count += 1
        return d.reshape(self.threads, 2, 2)

    def check_mma_shape(self, op):
        shape = op.prop("mmaShape") or op.prop("shape")
        if shape not in ("[16, 8, 16]", "#nvvm.shape<m = 16, n = 8, k = 16>"):
            raise EmulationError(f"{op.name}: shape {shape} is not emulated")

    def check_mma_types(self, op, a_type, b_type):
        if a_type != self.operand_type or b_type != self.operand_type:
            raise EmulationError(f"{op.name}: multiplies {a_type} x {b_type}, the "
                                 f"operands are {self.operand_type}")

    def op_nvgpu_mma_sync(self, op, env):
        self.whole_warps(op)
        self.check_mma_shape(op)
        ins, outs = op.types()
        self.check_mma_types(op, parse_shaped(ins[0])[1], parse_shaped(ins[1])[1])
        if parse_shaped(ins[2])[1] != "f32" or parse_shaped(outs[0])[1] != "f32":
            raise EmulationError("nvgpu.mma.sync: only f32 accumulators are emulated")
        a, b, c = (self.get(env, o) for o in op.operands)
        if a.shape[1:] != (4, 2) or b.shape[1:] != (2, 2) or c.shape[1:] != (2, 2):
            raise EmulationError("nvgpu.mma.sync: fragments other than f16 "
                                 "m16n8k16's are not emulated")
        return [self.warp_mma(a, b, c)]

    def op_nvvm_mma_sync(self, op, env):
        self.whole_warps(op)
        self.check_mma_shape(op)
        if (op.prop("layoutA") != "#nvvm.mma_layout<row>" or
                op.prop("layoutB") != "#nvvm.mma_layout<col>"):
            raise EmulationError("nvvm.mma.sync: only row x col layouts are emulated")
        kind = re.compile(r"#nvvm.mma_type<(\w+)>")
        types = [kind.fullmatch(op.prop(key) or "") for key in
                 ("multiplicandAPtxType", "multiplicandBPtxType")]
        if not all(types):
            raise EmulationError("nvvm.mma.sync: multiplicand types missing")
        self.check_mma_types(op, types[0].group(1), types[1].group(1))
        regs = [self.get(env, o) for o in op.operands]
        if len(regs) != 10 or any(r.shape != (self.threads, 2) for r in regs[:6]) or \
                any(r.shape != (self.threads,) for r in regs[6:]):
            raise EmulationError("nvvm.mma.sync: only 4 + 2 + 4 registers "
                                 "(16-bit multiplicands, f32 accumulators)")
        a = np.stack(regs[:4], axis=1)
        b = np.stack(regs[4:6], axis=1)
        c = np.stack(regs[6:], axis=1).reshape(self.threads, 2, 2)
        d = self.warp_mma(a, b, c).reshape(self.threads, 4)
        return [tuple(d[:, i] for i in range(4))]

    del binary, integer, dim_id


def small_integers(rng, shape, elem, low, high):
    return rng.integers(low, high, size=shape).astype(numpy_type(elem))


def reduced_axes(spec, shape, out_shape):
    """The axes of IN (shape) that a reduction to OUT (out_shape) folds:
    `spec` ("0,2"), or every axis for a 0-d OUT. OUT must be IN's shape
    without them, in order."""
    if spec is None:
        if out_shape != ():
            raise EmulationError("a reduction to a non-0-d OUT needs --reduce-dims")
        return tuple(range(len(shape)))
    try:
        axes = tuple(sorted({int(a) for a in spec.split(",")}))
    except ValueError:
        raise EmulationError(f"--reduce-dims {spec!r} is not a list of dimensions")
    if not axes or axes[0] < 0 or axes[-1] >= len(shape):
        raise EmulationError(f"--reduce-dims {spec!r} does not fit IN's rank {len(shape)}")
    kept = tuple(d for i, d in enumerate(shape) if i not in axes)
    if kept != tuple(out_shape):
        raise EmulationError(f"OUT {out_shape} is not IN {shape} without dimensions "
                             f"{list(axes)}")
    return axes


def reduction_inputs(rng, kind, shape, elem, out_elem, out_shape=()):
    """IN and OUT's first values for a reduction of `kind`, chosen so
    that a wrong starting value or an element folded twice or never changes
    the result: no zeros; max over negative values from a negative start
    and min over positive ones (a start of 0 would show); products of +-1
    (exact, and a start of 2 would show); bitwise ops on i1, or on small
    integers."""
    def draw(size):
        if elem == "i1":
            return rng.integers(0, 2, size=size)
        if kind in ("and", "or", "xor"):
            if elem in FLOAT_TYPES:
                raise EmulationError(f"--reduction {kind} of {elem}")
            return rng.integers(1, 256, size=size)
        if kind == "prod":
            return rng.choice([-1, 1], size=size)
        magnitude = rng.integers(1, 10, size=size)
        if kind == "max":
            return -magnitude
        if kind == "min":
            return magnitude
        return magnitude * rng.choice([-1, 1], size=size)
    x = np.asarray(draw(shape)).astype(numpy_type(elem))
    out = np.asarray(draw(out_shape)).astype(numpy_type(out_elem))
    return x, out


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("input")
    ap.add_argument("--func", action="append", help="function(s) to run (default: all)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--reduction", choices=["sum", "prod", "max", "min", "or", "and", "xor"],
                    help="what a reduction (IN, OUT) computes: OUT is combined "
                         "with IN folded over --reduce-dims (all of it for a 0-d OUT)")
    ap.add_argument("--filled", type=float, metavar="VALUE",
                    help="a matmul whose function fills C with VALUE first: C must be "
                         "VALUE + A * B whatever C held (the kernel starts from the "
                         "fill, amp-gpu-tensor-core-contractions' fused fills); a "
                         "reduction whose function fills OUT with VALUE first: OUT "
                         "must be VALUE combined with IN's fold (the reduction "
                         "kernels' fused fills)")
    ap.add_argument("--round-output", choices=["f16", "bf16"],
                    help="a matmul whose function rounds C to TYPE and back after it "
                         "(keep-narrow-rounding): C must be A * B (+ C or the "
                         "--filled VALUE) so rounded, to nearest even "
                         "(amp-gpu-tensor-core-contractions' fused epilogues)")
    ap.add_argument("--reduce-dims", metavar="D,D,...",
                    help="the dimensions of IN a reduction folds (OUT has the others, "
                         "in order)")
    args = ap.parse_args()
    try:
        with open(args.input, encoding="utf-8") as f:
            lines = resolve_aliases(f.read().splitlines())
        ops, _ = parse(lines)
    except (OSError, UnicodeDecodeError, EmulationError) as e:
        print(f"simt_emulator: {args.input}: {e}", file=sys.stderr)
        return 1
    funcs = []
    for top in ops:  # functions in a module, or on their own
        for op in (top.body or []) if top.name == "builtin.module" else [top]:
            if op.name == "func.func":
                funcs.append((op.prop("sym_name").strip('"'), op))
    if args.func:
        funcs = [f for f in funcs if f[0] in args.func]
    if not funcs:
        print("simt_emulator: no function to run", file=sys.stderr)
        return 1
    rng = np.random.default_rng(args.seed)
    # Overflows and NaNs of a wrong kernel show in the comparison.
    np.seterr(all="ignore")
    failed = False
    for name, func in funcs:
        try:
            types = [t for _, t in func.block_args]
            if len(types) not in (2, 3):
                raise EmulationError("expected the arguments A, B, C of a matmul "
                                     "or IN, OUT of a transpose")
            shapes = [parse_shaped(t) for t in types]
            if len(types) == 2 and (args.reduction or shapes[1][0] == ()):
                if not args.reduction:
                    raise EmulationError("a full reduction (IN, 0-d OUT) needs "
                                         "--reduction")
                (shape, ei), (out_shape, eo) = shapes
                axes = reduced_axes(args.reduce_dims, shape, out_shape)
                x, out = reduction_inputs(rng, args.reduction, shape, ei, eo,
                                          out_shape)
                combine = {"sum": np.add, "prod": np.multiply, "max": np.maximum,
                           "min": np.minimum, "or": np.bitwise_or,
                           "and": np.bitwise_and, "xor": np.bitwise_xor}[args.reduction]
                exact = np.float64 if ei in FLOAT_TYPES else np.int64
                start = out if args.filled is None else np.full_like(out, args.filled)
                expected = combine(start.astype(exact),
                                   combine.reduce(x.astype(exact), axis=axes))
                if eo not in FLOAT_TYPES:  # integer sums and products wrap
                    expected = wrap_integer(expected, int_width(eo))
                emulator = Emulator(ei)
                emulator.run_function(func, [x, out])
                c = out
            elif len(types) == 3 and all(len(shape) == 3 and 0 not in shape
                                         for shape, _ in shapes):
                ((nb, m, k), ea), ((nb2, k2, n), eb), ((nb3, m2, n2), ec) = shapes
                if (nb, m, k, n) != (nb2, m2, k2, n2) or nb != nb3:
                    raise EmulationError(f"shapes {types} are not a batched matmul's")
                a = small_integers(rng, (nb, m, k), ea, -3, 4)
                b = small_integers(rng, (nb, k, n), eb, -3, 4)
                c = small_integers(rng, (nb, m, n), ec, -8, 9)
                expected = a.astype(np.float64) @ b.astype(np.float64) + \
                    (c if args.filled is None else args.filled)
                emulator = Emulator(ea)
                emulator.run_function(func, [a, b, c])
            elif len(types) == 2 and len(shapes[1][0]) < len(shapes[0][0]):
                raise EmulationError(f"arguments {types} look like a reduction's (OUT "
                                     "has fewer dimensions than IN): give --reduction "
                                     "and --reduce-dims")
            elif any(len(shape) != 2 or 0 in shape for shape, _ in shapes):
                raise EmulationError(f"arguments {types} are not non-empty matrices "
                                     "(or 3-D batches of them) of a matmul, nor IN and "
                                     "OUT of a transpose")
            elif len(types) == 2:
                ((r, c_), ei), ((c2, r2), eo) = shapes
                if (r, c_) != (r2, c2) or ei != eo:
                    raise EmulationError(f"shapes {types} are not a transpose's")
                x = small_integers(rng, (r, c_), ei, -100, 101)
                out = np.full((c_, r), np.nan if eo in FLOAT_TYPES else -1,
                              dtype=numpy_type(eo))
                emulator = Emulator(ei)
                emulator.run_function(func, [x, out])
                c, expected = out, x.T
            else:
                ((m, k), ea), ((k2, n), eb), ((m2, n2), ec) = shapes
                if (m, k, n) != (m2, k2, n2):
                    raise EmulationError(f"shapes {types} are not a matmul's")
                # |products| <= 9, |sums| <= 9 * k + 8: exact in f32 for the
                # sizes a test uses, and A, B exact in f16 and bf16.
                a = small_integers(rng, (m, k), ea, -3, 4)
                b = small_integers(rng, (k, n), eb, -3, 4)
                c = small_integers(rng, (m, n), ec, -8, 9)
                expected = a.astype(np.float64) @ b.astype(np.float64) + \
                    (c if args.filled is None else args.filled)
                emulator = Emulator(ea)
                emulator.run_function(func, [a, b, c])
            if args.round_output and len(types) == 3:
                expected = round_to(expected.astype(np.float32), args.round_output)
            # NaN (an element never written) counts as a difference.
            diff = float(np.max(np.nan_to_num(np.abs(c.astype(np.float64) - expected),
                                              nan=np.inf)))
            blocks = sum(b for b, _ in emulator.launches)
            per_block = sorted({t for _, t in emulator.launches})
            result = "C" if len(types) == 3 else "OUT"
            print(f"{name}: {len(emulator.launches)} launch(es), {blocks} blocks "
                  f"of {','.join(map(str, per_block))} threads, "
                  f"{emulator.mma_count} mma.sync per warp, "
                  f"max |{result} - numpy| = {diff:g}")
            failed |= diff != 0
        except EmulationError as e:
            print(f"simt_emulator: {name}: {e}", file=sys.stderr)
            failed = True
        except (ValueError, IndexError, TypeError, KeyError) as e:
            # Input outside what the emulator models (e.g. operands of
            # unexpected shapes): an error, never a result.
            print(f"simt_emulator: {name}: unsupported input ({type(e).__name__}: {e})",
                  file=sys.stderr)
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
