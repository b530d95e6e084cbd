"""The user's ``with torch.autocast(...)`` blocks as ``amp.autocast`` regions.

``torch.export`` records such a block as
``torch.ops.higher_order.wrap_with_autocast(device_type, dtype, enabled,
cache_enabled, body, *args)``, its body traced with PyTorch's runtime casts
(run_decompositions bakes them in as ``convert_element_type`` nodes). So
that amp-mlir's policy decides the types instead:

1. the exported graph is re-traced (``make_fx``, torch-mlir's decompositions)
   with every such call replaced by the opaque op
   ``amp_mlir::autocast_region(args, region)``, and each body is traced on
   its own, in f32, the same way (nested blocks become regions of their own);
2. torch-mlir imports the bodies as private functions
   ``@__amp_autocast_N`` and each ``autocast_region`` as a ``func.call`` of
   its body, and lowers the module to linalg on tensors;
3. each call becomes ``amp.autocast device_type(..) dtype(..) enabled(..)
   cache_enabled(..) -> (types) { func.call ...; amp.yield }`` (PyTorch's
   four arguments, the dialect's four keywords), and MLIR's inliner moves
   the bodies into their regions (amp's dialect lets calls inline there).

The region's results keep the types the body computes in f32 (an f16/bf16
value inside is extended exactly at the region's end, the dialect's
contract).

Layer: the PyTorch front end's import step (used by :mod:`._export`); it
imports the package's IR layer (:mod:`amp_mlir.ir`) for the inliner.
"""

import re
from typing import List

import torch
from torch.fx.experimental.proxy_tensor import make_fx
from torch_mlir.compiler_utils import OutputType, run_pipeline_with_repro_report
from torch_mlir.extras.fx_importer import GraphNodeImporter
from torch_mlir.fx import _module_lowering, get_decomposition_table
from torch_mlir.passmanager import PassManager
from torch_mlir.ir import (FlatSymbolRefAttr, FunctionType, InsertionPoint, Operation,
                          StringAttr, TypeAttr)

from ..ir import Context

__all__ = ["has_autocast_regions", "import_with_regions"]

_HOP = torch.ops.higher_order.wrap_with_autocast
_ASSERT = torch.ops.aten._assert_tensor_metadata.default
_DTYPES = {torch.float16: "f16", torch.bfloat16: "bf16"}

# region id -> (body GraphModule, (device_type, dtype, enabled, cache_enabled))
_REGIONS = {}
_IDS = {}


def _region_id(body, config):
    key = (id(body), config)
    if key not in _IDS:
        _IDS[key] = len(_REGIONS)
        _REGIONS[_IDS[key]] = (body, config)
    return _IDS[key]


class _F32Interpreter(torch.fx.Interpreter):
    """Runs an exported graph without autocast: each wrap_with_autocast call
    becomes an ``amp_mlir::autocast_region`` call, and the dtype assertions
    PyTorch's autocast left (``_assert_tensor_metadata``) are dropped."""

    def call_function(self, target, args, kwargs):
        if target is _HOP:
            device, dtype, enabled, cache, body, *operands = args
            rid = _region_id(body, (device, dtype, bool(enabled), bool(cache)))
            return tuple(torch.ops.amp_mlir.autocast_region(list(operands), rid))
        if target is _ASSERT:
            return None
        return super().call_function(target, args, kwargs)


@torch.library.custom_op("amp_mlir::autocast_region", mutates_args=())
def autocast_region(args: List[torch.Tensor], region: int) -> List[torch.Tensor]:
    """The body of autocast region ``region`` run in f32 (a marker op: the
    front end imports it as an ``amp.autocast`` region)."""
    body, _ = _REGIONS[region]
    return [t.clone() for t in _F32Interpreter(body).run(*args)]


@autocast_region.register_fake
def _autocast_region_fake(args, region):
    body, _ = _REGIONS[region]
    return [torch.empty_like(t) for t in _F32Interpreter(body).run(*args)]


_REGION_OP = torch.ops.amp_mlir.autocast_region.default


def has_autocast_regions(gm):
    """Whether an exported graph (not yet decomposed) holds a
    ``wrap_with_autocast`` call."""
    return any(n.op == "call_function" and n.target is _HOP for n in gm.graph.nodes)


def _trace(fn_module, inputs):
    table = get_decomposition_table()
    return make_fx(lambda *xs: _F32Interpreter(fn_module).run(*xs),
                   decomposition_table=table, tracing_mode="fake")(*inputs)


def _referenced(gm):
    return [n for n in gm.graph.nodes
            if n.op == "call_function" and n.target is _REGION_OP]


def _func_name(rid):
    return f"__amp_autocast_{rid}"


class _RegionImporter(GraphNodeImporter):
    """torch-mlir's node importer, importing ``amp_mlir::autocast_region`` as
    a ``func.call`` of the region's body function."""

    def _import_torch_op_overload(self, loc, node, concrete_target=None):
        if node.target is not _REGION_OP:
            return super()._import_torch_op_overload(loc, node, concrete_target)
        operands = [self._import_argument(loc, a) for a in node.args[0]]
        result_types = [self._cc.value_info_to_type(v) for v in node.meta["val"]]
        name = _func_name(node.args[1])
        module = self.fx_importer.module
        declared = {str(op.attributes["sym_name"]).strip('"')
                    for op in module.body.operations if "sym_name" in op.attributes}
        if name not in declared:
            # A declaration: torch-mlir's pipeline cannot inline it, so the
            # call (the region's boundary) survives the lowering.
            with InsertionPoint.at_block_begin(module.body):
                Operation.create("func.func", attributes={
                    "sym_name": StringAttr.get(name, context=self._c),
                    "sym_visibility": StringAttr.get("private", context=self._c),
                    "function_type": TypeAttr.get(FunctionType.get(
                        [v.type for v in operands], result_types, context=self._c))},
                    regions=1, loc=loc)
        call = Operation.create(
            "func.call", attributes={"callee": FlatSymbolRefAttr.get(
                name, context=self._c)},
            results=result_types, operands=operands, loc=loc)
        self._multi_result_nodes.add(node)
        for i, value in enumerate(call.results):
            self.bind_node_value(node, value, i)


def _lower(module):
    """torch-mlir's lowering to linalg on tensors without its final contract
    check, which rejects the calls of the region declarations (the caller
    checks that no torch op is left)."""
    module = _module_lowering(False, False, OutputType.TORCH, module)
    with module.context:
        pipeline = str(PassManager.parse(
            "builtin.module(torch-backend-to-linalg-on-tensors-backend-pipeline"
            "{allow-non-finites=True})"))
    pipeline = pipeline.replace(",torch-verify-linalg-on-tensors-backend-contract", "")
    run_pipeline_with_repro_report(module, pipeline,
                                   "Lowering Torch Backend IR -> Linalg-on-Tensors")
    return module


def import_with_regions(gm, flat_inputs, importer_factory, func_name="forward"):
    """Traces and imports an exported graph holding ``wrap_with_autocast``
    calls; returns the lowered torch-mlir modules (linalg on tensors): the
    outer function (calling declarations ``@__amp_autocast_N``), ``{region
    id: module defining @__amp_autocast_N}`` and ``{region id: config}``.
    Each is lowered on its own: torch-mlir's pipeline inlines calls to
    functions it can see, which would erase the regions' boundaries."""
    _REGIONS.clear()
    _IDS.clear()
    outer = _trace(gm, flat_inputs)
    bodies, pending = {}, list(_referenced(outer))
    while pending:
        node = pending.pop()
        rid = node.args[1]
        if rid in bodies:
            continue
        body, config = _REGIONS[rid]
        examples = [torch.zeros(a.meta["val"].shape, dtype=a.meta["val"].dtype)
                    for a in node.args[0]]
        traced = _trace(body, examples)
        bodies[rid] = (traced, config)
        pending += _referenced(traced)
    importer = importer_factory(_RegionImporter)
    importer.import_stateless_graph(outer.graph, func_name=func_name)
    outer_module = _lower(importer.module)
    functions = {}
    for rid, (traced, _) in sorted(bodies.items()):
        body_importer = importer_factory(_RegionImporter)
        body_importer.import_stateless_graph(traced.graph, func_name=_func_name(rid))
        functions[rid] = _lower(body_importer.module)
    return outer_module, functions, {rid: config for rid, (_, config) in bodies.items()}


def _keywords(config):
    device, dtype, enabled, cache = config
    if device not in ("cpu", "cuda") or dtype not in _DTYPES:
        raise ValueError(f"amp_mlir.torch: torch.autocast({device!r}, dtype={dtype}) is "
                         "not supported (device_type cpu or cuda, dtype float16 or "
                         "bfloat16)")
    return (f"device_type({device}) dtype({_DTYPES[dtype]}) "
            f"enabled({str(enabled).lower()}) cache_enabled({str(cache).lower()})")


_CALL = re.compile(r"^(?P<indent>\s*)(?P<results>%[\w.$-]+(?::\d+)?) = (?:func\.)?call "
                   r"@__amp_autocast_(?P<rid>\d+)\((?P<operands>[^)]*)\) : "
                   r"\((?P<inputs>.*)\) -> (?P<types>.+?)(?P<loc> loc\(.*\))?$")


def regions_to_amp(text, bodies, configs):
    """Turns each ``call @__amp_autocast_N`` of lowered text into an
    ``amp.autocast`` region holding it, then inlines the bodies (MLIR's
    ``inline`` and ``symbol-dce`` through amp's context). ``bodies`` maps a
    region id to the text of a module defining ``@__amp_autocast_N``: its
    function replaces the declaration. Returns the text."""
    text = _merge_bodies(text, bodies)
    out = []
    for line in text.splitlines():
        m = _CALL.match(line)
        if not m:
            out.append(line)
            continue
        types = m.group("types").strip()
        listed = types[1:-1] if types.startswith("(") else types
        n = len(_split_types(listed))
        ind = m.group("indent")
        inner = f"%amp_region_{m.group('rid')}_{len(out)}"
        yields = ", ".join(f"{inner}#{i}" for i in range(n)) if n > 1 else inner
        out.append(f"{ind}{m.group('results')} = amp.autocast "
                   f"{_keywords(configs[int(m.group('rid'))])} -> {types} {{")
        out.append(f"{ind}  {inner}{':' + str(n) if n > 1 else ''} = func.call "
                   f"@__amp_autocast_{m.group('rid')}({m.group('operands')}) : "
                   f"({m.group('inputs')}) -> {types}{m.group('loc') or ''}")
        out.append(f"{ind}  amp.yield {yields} : {listed}")
        out.append(f"{ind}}}")
    module = Context().parse("\n".join(out), source_name="<torch-mlir import>")
    module.run_pipeline("builtin.module(inline, symbol-dce)")
    return str(module)


def _merge_bodies(text, bodies):
    """One module: ``text`` (a module) without its declarations ``func.func
    private @__amp_autocast_N`` and with the function of each ``bodies[N]``
    (made private), their affine-map aliases renamed apart."""
    def is_decl(line):
        return line.lstrip().startswith("func.func private @__amp_autocast_")
    lines = [l for l in text.splitlines() if not is_decl(l)]
    close = max(i for i, l in enumerate(lines) if l.rstrip() == "}")
    heads, funcs = [], []
    for rid, body in sorted(bodies.items()):
        renamed = body
        aliases = {l.split(" = ")[0] for l in body.splitlines() if l.startswith("#")}
        for alias in sorted(aliases, key=len, reverse=True):
            renamed = re.sub(re.escape(alias) + r"(?![\w$.])", f"{alias}_amp{rid}", renamed)
        body_lines = [l for l in renamed.splitlines() if not is_decl(l)]
        heads += [l for l in body_lines if l.startswith("#")]
        start = next(i for i, l in enumerate(body_lines)
                     if l.lstrip().startswith(f"func.func @{_func_name(rid)}("))
        end = next(i for i in range(start, len(body_lines)) if body_lines[i] == "  }")
        func = body_lines[start:end + 1]
        func[0] = func[0].replace("func.func @", "func.func private @", 1)
        funcs += func
    return "\n".join(heads + lines[:close] + funcs + lines[close:])


def _split_types(text):
    """Top-level comma-separated types of a type list."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c in "<([{":
            depth += 1
        elif c in ">)]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if text[start:].strip():
        parts.append(text[start:])
    return parts


