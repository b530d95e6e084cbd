"""PyTorch -> MLIR: a ``torch.nn.Module`` (through ``torch.export``) or an FX
graph (e.g. an AOTAutograd joint graph) imported by torch-mlir as linalg on
tensors, the text amp-mlir's pipelines take.

Layer: the PyTorch front end's import step. It imports torch, torch-mlir
and :mod:`._regions` (the user's autocast blocks, which parses the import in
amp's context to inline the region bodies); :mod:`._compile` compiles its
text. See docs/TorchFrontEnd.md.
"""

import dataclasses
import linecache
import os
import re
from typing import List, Optional, Sequence

import torch
import torch.utils._pytree as pytree
from torch_mlir import ir as tm_ir
from torch_mlir.dialects import torch as torch_d
from torch_mlir.extras.fx_importer import FxImporter
from torch_mlir.fx import get_decomposition_table, stateless_fx_import

from ._regions import has_autocast_regions, import_with_regions, regions_to_amp

__all__ = ["TorchImportError", "import_module", "import_fx_graph", "export_module",
           "parse_autocast", "autocast_attribute", "AUTOCAST_SPELLINGS", "ExportedModule"]

#: ``torch.autocast(device_type, dtype)`` spellings the front end accepts, and
#: the ``dtype`` keyword of ``#amp.autocast`` each maps to.
AUTOCAST_SPELLINGS = {
    ("cpu", "bfloat16"): "bf16",
    ("cpu", "float16"): "f16",
    ("cuda", "float16"): "f16",
    ("cuda", "bfloat16"): "bf16",
}

# Dialects torch-mlir may leave in linalg-on-tensors output that amp-mlir does
# not lower (TMTensor: sort, cumsum/cumprod, scatter; leftover torch ops).
_UNSUPPORTED_DIALECTS = ("torch", "torch_c", "tm_tensor")

_TORCH_DIR = os.path.dirname(torch.__file__) + os.sep


class TorchImportError(RuntimeError):
    """An op of the user's model that torch-mlir or amp-mlir cannot lower.

    Attributes:
        op: the op's name (``aten.erfinv``, ``tm_tensor.sort``, ...).
        source: ``"file:line: code"`` of the user's Python that produced it
            (the innermost frame outside PyTorch's own package), or None
            when the graph carries no stack trace.
        detail: the compiler's message.
    """

    def __init__(self, op, source, detail=""):
        self.op, self.source, self.detail = op, source, detail
        where = f" at {source}" if source else ""
        super().__init__(f"amp_mlir.torch: cannot lower '{op}'{where}"
                         + (f": {detail}" if detail else ""))


def parse_autocast(autocast):
    """``(device_type, dtype)`` validated: returns ``(device_type, amp dtype)``
    (``"bf16"``/``"f16"``), or None for None. ``dtype`` may be a string
    (``"bfloat16"``, ``"float16"``) or a ``torch.dtype``; ``"cpu,bfloat16"``
    is also accepted.

    Raises:
        ValueError: another spelling (the message lists the valid ones).
    """
    if autocast is None:
        return None
    if isinstance(autocast, str):
        autocast = tuple(p.strip() for p in autocast.split(","))
    try:
        device, dtype = autocast
    except (TypeError, ValueError):
        device, dtype = None, None
    if isinstance(dtype, torch.dtype):
        dtype = str(dtype).replace("torch.", "")
    key = (device, dtype)
    if key not in AUTOCAST_SPELLINGS:
        valid = ", ".join(f"({d!r}, {t!r})" for d, t in AUTOCAST_SPELLINGS)
        raise ValueError(f"amp_mlir.torch: unsupported autocast {autocast!r}; "
                         f"valid: None, {valid}")
    return device, AUTOCAST_SPELLINGS[key]


def autocast_attribute(autocast):
    """The ``#amp.autocast<...>`` attribute text of a validated spelling."""
    device, dtype = parse_autocast(autocast)
    return f"#amp.autocast<device_type = {device}, dtype = {dtype}>"


def _user_frame(stack_trace):
    """``file:line: code`` of the innermost frame of ``stack_trace`` (an FX
    node's) outside PyTorch's package, else the innermost frame."""
    frames = re.findall(r'File "([^"]+)", line ([0-9]+)', stack_trace or "")
    if not frames:
        return None
    user = [f for f in frames if not f[0].startswith(_TORCH_DIR)]
    path, line = (user or frames)[-1]
    code = linecache.getline(path, int(line)).strip()
    return f"{path}:{line}" + (f": {code}" if code else "")


def _location_source(loc_text):
    """The user's frame of a torch-mlir location (``loc(callsite("f":3:0 at
    ...))``): the first file location outside PyTorch's package (torch-mlir
    puts the innermost frame first)."""
    frames = re.findall(r'"([^"]+)":([0-9]+):[0-9]+', loc_text or "")
    if not frames:
        return None
    user = [f for f in frames if not f[0].startswith(_TORCH_DIR)]
    path, line = (user or frames)[0]
    code = linecache.getline(path, int(line)).strip()
    return f"{path}:{line}" + (f": {code}" if code else "")


def _node_source(graph, op):
    """The user's source line of the first FX node calling ``op``
    (``aten.erfinv``), or None."""
    for node in graph.nodes:
        if node.op == "call_function" and str(node.target).startswith(op + "."):
            return _user_frame(node.meta.get("stack_trace"))
    return None


def _walk(op):
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                yield inner.operation
                yield from _walk(inner.operation)


def _failed_op(diagnostics):
    """``(op, location text, message)`` of the first legalization error."""
    for message, loc in diagnostics:
        named = re.search(r'name = "torch\.([^"]+)"', message)
        m = re.search(r"failed to legalize operation '([^']+)'", message)
        if named:
            return named.group(1), loc, message.splitlines()[0]
        if m:
            op = m.group(1)
            return (op[len("torch."):] if op.startswith("torch.aten.") else op), loc, \
                message.splitlines()[0]
    if diagnostics:
        message, loc = diagnostics[0]
        return "<unknown>", loc, message.splitlines()[0]
    return "<unknown>", None, ""


def _new_importer(diagnostics, node_importer=None):
    context = tm_ir.Context()
    torch_d.register_dialect(context)

    def handler(diag):
        if diag.severity == tm_ir.DiagnosticSeverity.ERROR:
            diagnostics.append((str(diag.message), str(diag.location)))
        return True  # handled: not printed on stderr

    context.attach_diagnostic_handler(handler)
    if node_importer is not None:
        return FxImporter(context=context, graph_node_importer_cls=node_importer)
    return FxImporter(context=context)


def _check_static_shapes(gm):
    """Raises :class:`TorchImportError` for the first node whose result has a
    data-dependent size (an unbacked symbol: boolean-mask indexing, nonzero,
    unique). amp-mlir compiles static shapes, and torch-mlir's import does
    not return on some of these graphs, so they are refused before it runs.
    (Backed symbols, which torch.compile's graphs carry for sizes it knows,
    are fine.)"""
    from torch.fx.experimental.symbolic_shapes import free_unbacked_symbols
    for node in gm.graph.nodes:
        if node.op not in ("call_function", "call_method"):
            continue
        vals = node.meta.get("val")
        vals = vals if isinstance(vals, (list, tuple)) else [vals]
        for val in vals:
            if isinstance(val, (torch.Tensor, torch.SymInt)) and free_unbacked_symbols(val):
                op = str(node.target).rsplit(".", 1)[0] if node.op == "call_function" \
                    else str(node.target)
                raise TorchImportError(
                    op, _user_frame(node.meta.get("stack_trace")),
                    "its result has a data-dependent shape; amp-mlir "
                    "compiles static shapes only")


def import_fx_graph(gm: torch.fx.GraphModule, example_inputs=None, *,
                    func_name="forward", autocast=None, debug_info=True) -> str:
    """Imports an FX graph whose inputs are all placeholders (no parameters
    held by the module) as ``func.func @func_name`` in linalg on tensors:
    one tensor argument per placeholder, in order, one result per output.

    This is the reusable import step: :func:`import_module` calls it on the
    graph of ``torch.export`` (parameters lifted to placeholders), and the
    training front end calls it on AOTAutograd joint graphs
    (``aot_export_module(..., trace_joint=True)`` with
    ``torch_mlir.fx.get_decomposition_table()``). Uses
    ``torch_mlir.fx.stateless_fx_import``.

    Args:
        gm: the graph (its nodes carry ``meta["val"]`` fake tensors, as
            export and AOTAutograd graphs do).
        example_inputs: unused today (shapes come from the graph's metadata);
            kept so callers can pass them as AOTAutograd backends receive them.
        autocast: None or ``(device_type, dtype)``: the ``amp.autocast``
            decorator put on the function.
        debug_info: print locations (the user's Python lines), so amp-mlir's
            diagnostics name them.

    Raises:
        TorchImportError: an op torch-mlir cannot lower to linalg, one it
            lowers to a dialect amp-mlir does not compile (``tm_tensor``), or
            one with a data-dependent shape (``x[x > 0]``, ``nonzero``).
        ValueError: an unsupported ``autocast`` spelling.
    """
    del example_inputs
    attribute = autocast_attribute(autocast) if autocast is not None else None
    _check_static_shapes(gm)
    diagnostics = []
    importer = _new_importer(diagnostics)
    try:
        module = stateless_fx_import(gm, output_type="linalg-on-tensors",
                                     fx_importer=importer, model_name=func_name)
    except Exception as e:  # torch-mlir raises TorchMlirCompilerError
        if not diagnostics:
            raise
        op, loc, message = _failed_op(diagnostics)
        source = _node_source(gm.graph, op) or _location_source(loc)
        raise TorchImportError(op, source, message) from e
    for op in _walk(module.operation):
        name = op.name
        if name.split(".")[0] in _UNSUPPORTED_DIALECTS:
            raise TorchImportError(
                name, _location_source(str(op.location)),
                "torch-mlir lowers it to a dialect amp-mlir does not compile")
    text = module.operation.get_asm(enable_debug_info=debug_info,
                                    large_elements_limit=None)
    if attribute is not None:
        text = _decorate(text, func_name, attribute)
    return text


def _decorate(text, func_name, attribute):
    """Puts ``amp.autocast = attribute`` on ``func.func @func_name``."""
    start = text.find(f"func.func @{func_name}(")
    if start < 0:
        raise ValueError(f"amp_mlir.torch: no func.func @{func_name} in the import")
    # The signature ends at the '{' that opens the body: the first '{' at
    # bracket depth 0 after the name, outside quoted strings (locations) and
    # not counting the '>' of '->'.
    depth, i, quoted = 0, start, False
    while i < len(text):
        c = text[i]
        if quoted:
            if c == "\\":
                i += 1
            elif c == '"':
                quoted = False
        elif c == '"':
            quoted = True
        elif c == "-" and text.startswith("->", i):
            i += 1
        elif c in "(<[":
            depth += 1
        elif c in ")>]":
            depth -= 1
        elif c == "{" and depth == 0:
            break
        i += 1
    head = text[start:i]
    if " attributes {" in head:
        head = head.replace(" attributes {", f" attributes {{amp.autocast = {attribute}, ", 1)
        return text[:start] + head + text[i:]
    return text[:start] + head.rstrip() + f" attributes {{amp.autocast = {attribute}}} " + \
        text[i:]


def _import_regions(gm, flat_inputs, autocast):
    """:func:`import_fx_graph` for an exported graph with the user's
    ``torch.autocast`` blocks (see :mod:`._regions`)."""
    _check_static_shapes(gm)
    diagnostics = []
    try:
        module, bodies, configs = import_with_regions(
            gm, flat_inputs, lambda cls: _new_importer(diagnostics, cls))
    except Exception as e:
        if not diagnostics:
            raise
        op, loc, message = _failed_op(diagnostics)
        raise TorchImportError(op, _location_source(loc), message) from e
    for m in [module] + list(bodies.values()):
        for op in _walk(m.operation):
            if op.name.split(".")[0] in _UNSUPPORTED_DIALECTS:
                raise TorchImportError(
                    op.name, _location_source(str(op.location)),
                    "torch-mlir lowers it to a dialect amp-mlir does not compile")
    text = regions_to_amp(module.operation.get_asm(), 
                          {rid: str(b) for rid, b in bodies.items()}, configs)
    if autocast is not None:
        text = _decorate(text, "forward", autocast_attribute(autocast))
    return text


@dataclasses.dataclass
class ExportedModule:
    """A module exported for amp-mlir (:func:`export_module`).

    Attributes:
        text: the MLIR (``func.func @forward``).
        constants: the tensors passed before the user's inputs (parameters,
            buffers, lifted constants), in argument order; empty with
            ``weights="inline"``.
        num_user_inputs: tensor arguments after ``constants``.
        user_outputs: the indices of the function's results that are the
            module's outputs (the others are buffer mutations).
        in_spec, out_spec: pytree specs of the module's inputs and outputs.
        example_inputs: the example arguments (a tuple).
        input_names: the names of the user's tensor inputs (``forward``'s
            parameters, as ``torch.export`` names them).
    """
    text: str
    constants: List[torch.Tensor]
    num_user_inputs: int
    user_outputs: List[int]
    in_spec: Optional[pytree.TreeSpec]
    out_spec: Optional[pytree.TreeSpec]
    example_inputs: Sequence[torch.Tensor] = ()
    input_names: Sequence[str] = ()


def _eval_export(module, example_args):
    """``torch.export`` of ``module`` in eval mode (the modes of its
    submodules are restored afterwards), decomposed with torch-mlir's table."""
    if not isinstance(module, torch.nn.Module):
        raise TypeError(f"amp_mlir.torch: expected a torch.nn.Module, got "
                        f"{type(module).__name__}")
    if not isinstance(example_args, tuple):
        example_args = (example_args,)
    modes = [(m, m.training) for m in module.modules()]
    module.eval()
    try:
        program = torch.export.export(module, example_args, strict=False)
    finally:
        for m, training in modes:
            m.training = training
    return program, example_args


def export_module(module, example_args, *, autocast=None, weights="args"):
    """Exports ``module`` (in eval mode) for amp-mlir; see :func:`import_module`.

    Returns:
        an :class:`ExportedModule`.
    """
    if weights not in ("args", "inline"):
        raise ValueError(f"amp_mlir.torch: weights must be 'args' or 'inline', "
                         f"got {weights!r}")
    parse_autocast(autocast)  # errors before the (slow) export
    program, example_args = _eval_export(module, example_args)
    regions = has_autocast_regions(program.graph_module)
    if not regions:
        program = program.run_decompositions(get_decomposition_table())
    sig = program.graph_signature
    from torch.export.graph_signature import InputKind, OutputKind
    constants = []
    user_inputs, names = 0, []
    for spec in sig.input_specs:
        if spec.kind == InputKind.USER_INPUT:
            user_inputs += 1
            names.append(getattr(spec.arg, "name", f"#{user_inputs - 1}"))
        elif spec.kind in (InputKind.PARAMETER, InputKind.BUFFER):
            constants.append(program.state_dict[spec.target]
                             if spec.target in program.state_dict
                             else program.constants[spec.target])
        elif spec.kind == InputKind.CONSTANT_TENSOR:
            constants.append(program.constants[spec.target])
        else:
            raise TorchImportError(f"input of kind {spec.kind.name}", None,
                                   "amp_mlir.torch takes tensor inputs only")
    user_outputs = [i for i, spec in enumerate(sig.output_specs)
                    if spec.kind == OutputKind.USER_OUTPUT]
    gm = program.graph_module
    if regions:
        if weights == "inline":
            raise ValueError("amp_mlir.torch: weights='inline' is not supported for "
                             "modules with torch.autocast blocks; use weights='args'")
        flat = list(constants) + [t for t in pytree.tree_leaves(example_args)
                                  if isinstance(t, torch.Tensor)]
        text = _import_regions(gm, flat, autocast)
    else:
        if weights == "inline":
            gm = _inline_constants(program)
            constants = []
        text = import_fx_graph(gm, func_name="forward", autocast=autocast)
    call_spec = program.call_spec
    return ExportedModule(text, [c.detach() for c in constants], user_inputs,
                          user_outputs, call_spec.in_spec, call_spec.out_spec,
                          example_inputs=example_args, input_names=names)


def _inline_constants(program):
    """The program's graph with parameters, buffers and constants turned
    from placeholders into ``get_attr`` nodes (imported as dense constants)."""
    from torch.export.graph_signature import InputKind
    gm = program.graph_module
    values = dict(program.state_dict)
    values.update(program.constants)
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    for node, spec in zip(placeholders, program.graph_signature.input_specs):
        if spec.kind == InputKind.USER_INPUT:
            continue
        attr = "_amp_const_" + re.sub(r"\W", "_", spec.target)
        gm.register_buffer(attr, values[spec.target].detach())
        with gm.graph.inserting_before(node):
            get = gm.graph.get_attr(attr)
        get.meta = dict(node.meta)
        node.replace_all_uses_with(get)
        gm.graph.erase_node(node)
    gm.recompile()
    return gm


def import_module(module, example_args, *, autocast=None, weights="args") -> str:
    """The MLIR of ``module`` (a ``torch.nn.Module``, exported in eval mode by
    ``torch.export`` and imported by torch-mlir as linalg on tensors):
    ``func.func @forward``, with ``amp.autocast = #amp.autocast<...>`` on it
    when ``autocast`` is given.

    Args:
        example_args: a tensor or tuple of tensors: the shapes and dtypes of
            ``forward``'s arguments (static).
        autocast: None or ``(device_type, dtype)`` in torch's spelling:
            ``("cpu", "bfloat16")``, ``("cpu", "float16")``,
            ``("cuda", "float16")``, ``("cuda", "bfloat16")``.
        weights: ``"args"`` (default): parameters, buffers and constants are
            ``@forward``'s first arguments (in ``torch.export``'s order), the
            user's inputs follow; ``"inline"``: they are dense constants in
            the text (large: resnet18 is about 94 MB).

    Raises:
        TorchImportError: an op torch-mlir cannot lower (names the op and the
            user's source line).
        ValueError: an unsupported ``autocast`` or ``weights``.
    """
    return export_module(module, example_args, autocast=autocast, weights=weights).text

