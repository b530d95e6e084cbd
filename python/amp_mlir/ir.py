"""MLIR contexts, modules and pass pipelines through the C API.

Every error MLIR reports (parser, verifier, pass failure) is raised as
:class:`MLIRError` whose message holds the diagnostics with their locations,
as ``mlir-opt`` prints them.

Layer: IR, above the C API binding (:mod:`._capi`), which is all it imports
from the package; everything that handles modules (execution, compilation,
training) builds on it.
"""

import ctypes
import re

from . import _capi as C

__all__ = ["MLIRError", "Context", "Module", "FunctionSignature", "TensorSpec"]


class MLIRError(RuntimeError):
    """An MLIR diagnostic turned into an exception.

    Attributes:
        diagnostics: list of ``(severity, location, message)`` strings, in
            the order MLIR emitted them (notes follow their error).
    """

    def __init__(self, what, diagnostics):
        self.diagnostics = list(diagnostics)
        lines = [f"{loc}: {sev}: {msg}" for sev, loc, msg in self.diagnostics]
        super().__init__(what + (":\n" + "\n".join(lines) if lines else ""))


# Debian's MLIR 22 parser dereferences a null attribute (a segfault that
# kills the Python process) when the integer list of linalg.transpose's
# `permutation` or linalg.broadcast's / linalg.reduce's `dimensions` in their
# custom syntax does not parse (e.g. `permutation = [1 0]`): upstream's
# parseDenseI64ArrayAttr (mlir/lib/Dialect/Linalg/IR/LinalgOps.cpp) sets the
# attribute without checking DenseI64ArrayAttr::parse's result. Found by
# tools/amp-fuzz (tools/amp-fuzz/findings/README.md). Such text is refused
# here with a located error instead; a well-formed list goes to MLIR.
_CUSTOM_I64_LIST = re.compile(r"\)\s*(permutation|dimensions)\s*=\s*")
_I64_LIST = re.compile(r"\[\s*(-?\d+\s*(,\s*-?\d+\s*)*)?\]")


def _refuse_known_parser_crashes(text, source_name):
    for match in _CUSTOM_I64_LIST.finditer(text):
        if _I64_LIST.match(text, match.end()):
            continue
        line = text.count("\n", 0, match.start(1)) + 1
        column = match.start(1) - (text.rfind("\n", 0, match.start(1)) + 1) + 1
        raise MLIRError(
            f"failed to parse {source_name}",
            [("error", f"{source_name}:{line}:{column}",
              f"'{match.group(1)}' must be a list of integers such as [1, 0] "
              "(refused before MLIR's parser, which crashes on a malformed one "
              "in linalg.transpose/broadcast/reduce)")])


_SEVERITIES = {C.SEVERITY_ERROR: "error", C.SEVERITY_WARNING: "warning",
               C.SEVERITY_NOTE: "note", C.SEVERITY_REMARK: "remark"}


class Context:
    """An MLIR context with every upstream dialect, the amp dialect, the cast
    policy models, the LLVM IR translations and all passes registered.

    Diagnostics are collected rather than printed; errors surface as
    :class:`MLIRError`, warnings and remarks in :attr:`warnings`.
    """

    def __init__(self, threading=False):
        C.lib.ampRegisterAllPasses()
        self._ctx = C.lib.mlirContextCreateWithThreading(threading)
        registry = C.lib.mlirDialectRegistryCreate()
        C.lib.ampRegisterAllDialects(registry)
        C.lib.mlirContextAppendDialectRegistry(self._ctx, registry)
        C.lib.mlirDialectRegistryDestroy(registry)
        C.lib.mlirContextLoadAllAvailableDialects(self._ctx)
        C.lib.mlirRegisterAllLLVMTranslations(self._ctx)
        self._pending = []
        self.warnings = []
        # Name of the text being parsed or transformed: the C API parses
        # every string as buffer "-", and the locations keep that name.
        self._source_name = None
        self._handler = C.MlirDiagnosticHandler(self._on_diagnostic)
        self._handler_id = C.lib.mlirContextAttachDiagnosticHandler(
            self._ctx, self._handler, None, C.MlirDeleteUserData(0))

    def _on_diagnostic(self, diag, _user):
        def one(d):
            severity = _SEVERITIES.get(C.lib.mlirDiagnosticGetSeverity(d), "error")
            loc = C.print_to_string(C.lib.mlirLocationPrint,
                                    C.lib.mlirDiagnosticGetLocation(d))
            # loc("file":3:7) -> file:3:7, as mlir-opt prints it.
            m = re.fullmatch(r'loc\("(.*)":(\d+):(\d+)\)', loc)
            if m:
                name = m.group(1)
                if name == "-" and self._source_name:
                    name = self._source_name
                loc = f"{name}:{m.group(2)}:{m.group(3)}"
            msg = C.print_to_string(C.lib.mlirDiagnosticPrint, d)
            entry = (severity, loc, msg)
            self._pending.append(entry)
            if severity in ("warning", "remark"):
                self.warnings.append(entry)
            for i in range(C.lib.mlirDiagnosticGetNumNotes(d)):
                one(C.lib.mlirDiagnosticGetNote(d, i))
        one(diag)
        return 1  # success: handled, nothing printed to stderr

    def _take_diagnostics(self):
        pending, self._pending = self._pending, []
        return pending

    def parse(self, text, source_name="<string>"):
        """Parses MLIR assembly into a verified :class:`Module`;
        ``source_name`` names the text in diagnostics.

        Raises:
            MLIRError: with the parser's or verifier's diagnostics.
        """
        _refuse_known_parser_crashes(text, source_name)
        self._take_diagnostics()
        self._source_name = source_name
        try:
            module = C.lib.mlirModuleCreateParse(self._ctx, C.MlirStringRef.of(text))
        finally:
            self._source_name = None
        if C.is_null(module):
            raise MLIRError(f"failed to parse or verify {source_name}",
                            self._take_diagnostics())
        result = Module(self, module)
        result.source_name = source_name
        return result

    def __del__(self):
        ctx = getattr(self, "_ctx", None)
        if ctx is not None and not C.is_null(ctx):
            C.lib.mlirContextDestroy(ctx)
            self._ctx = C.MlirContext()


_ELEMENT_TYPES = ("f64", "f32", "f16", "bf16", "i64", "i32", "i16", "i8", "i1",
                  "index")


class TensorSpec:
    """Shape and element type of a function argument or result.

    ``shape`` is a tuple of ints (``None`` for a dynamic dimension), or
    ``None`` for a scalar; ``element_type`` is an MLIR type name such as
    ``"f32"``, ``"bf16"`` or ``"i1"``.
    """

    def __init__(self, shape, element_type):
        self.shape = shape
        self.element_type = element_type

    @property
    def is_scalar(self):
        return self.shape is None

    @property
    def rank(self):
        return 0 if self.shape is None else len(self.shape)

    @classmethod
    def parse(cls, text):
        text = text.strip()
        if text in _ELEMENT_TYPES:
            return cls(None, text)
        m = re.fullmatch(r"(?:tensor|memref)<((?:[0-9?]+x)*)([a-z0-9]+)>", text)
        if not m or m.group(2) not in _ELEMENT_TYPES:
            raise TypeError(
                f"amp_mlir: unsupported argument or result type '{text}' "
                f"(expected a ranked tensor/memref or a scalar of {', '.join(_ELEMENT_TYPES)})")
        dims = [d for d in m.group(1).split("x") if d]
        return cls(tuple(None if d == "?" else int(d) for d in dims), m.group(2))

    def __repr__(self):
        if self.shape is None:
            return self.element_type
        dims = "".join(("?" if d is None else str(d)) + "x" for d in self.shape)
        return f"tensor<{dims}{self.element_type}>"


class FunctionSignature:
    """Inputs and results of a ``func.func``, as :class:`TensorSpec` lists."""

    def __init__(self, name, inputs, results):
        self.name, self.inputs, self.results = name, inputs, results

    def __repr__(self):
        return f"@{self.name}({', '.join(map(repr, self.inputs))}) -> ({', '.join(map(repr, self.results))})"


class Module:
    """A parsed MLIR module owned by a :class:`Context`."""

    def __init__(self, context, handle, source_name=None):
        self.context = context
        self._module = handle
        #: Name of the parsed text, used in diagnostic locations.
        self.source_name = source_name

    @property
    def operation(self):
        return C.lib.mlirModuleGetOperation(self._module)

    def __str__(self):
        return C.print_to_string(C.lib.mlirOperationPrint, self.operation)

    def functions(self, public_only=False):
        """Type texts ``(inputs, results)`` of the module's top-level
        ``func.func`` ops, by name; with ``public_only``, only the public
        functions with a body (the ones the JIT can call)."""
        out = {}
        op = C.lib.mlirBlockGetFirstOperation(C.lib.mlirModuleGetBody(self._module))
        while not C.is_null(op):
            name = C.lib.mlirIdentifierStr(C.lib.mlirOperationGetName(op)).str()
            if name == "func.func":
                sym = C.lib.mlirStringAttrGetValue(C.lib.mlirOperationGetAttributeByName(
                    op, C.MlirStringRef.of("sym_name"))).str()
                ftype = C.lib.mlirTypeAttrGetValue(C.lib.mlirOperationGetAttributeByName(
                    op, C.MlirStringRef.of("function_type")))
                def spec(t):
                    return C.print_to_string(C.lib.mlirTypePrint, t)
                inputs = [spec(C.lib.mlirFunctionTypeGetInput(ftype, i))
                          for i in range(C.lib.mlirFunctionTypeGetNumInputs(ftype))]
                results = [spec(C.lib.mlirFunctionTypeGetResult(ftype, i))
                           for i in range(C.lib.mlirFunctionTypeGetNumResults(ftype))]
                visibility = C.lib.mlirOperationGetAttributeByName(
                    op, C.MlirStringRef.of("sym_visibility"))
                public = C.is_null(visibility) or \
                    C.lib.mlirStringAttrGetValue(visibility).str() == "public"
                has_body = not C.is_null(C.lib.mlirRegionGetFirstBlock(
                    C.lib.mlirOperationGetRegion(op, 0)))
                if public and has_body or not public_only:
                    out[sym] = (inputs, results)
            op = C.lib.mlirOperationGetNextInBlock(op)
        return out

    def function_attribute(self, name, attribute):
        """The text of attribute ``attribute`` of the top-level ``func.func``
        or ``llvm.func`` ``@name`` (e.g. ``array<i64: 1, 2>``), or None when
        the function or the attribute is absent."""
        if not isinstance(name, str) or not isinstance(attribute, str):
            raise TypeError("function_attribute takes two strings: the function's "
                            "and the attribute's names")
        op = C.lib.mlirBlockGetFirstOperation(C.lib.mlirModuleGetBody(self._module))
        while not C.is_null(op):
            kind = C.lib.mlirIdentifierStr(C.lib.mlirOperationGetName(op)).str()
            if kind in ("func.func", "llvm.func"):
                sym = C.lib.mlirOperationGetAttributeByName(op, C.MlirStringRef.of("sym_name"))
                if C.lib.mlirStringAttrGetValue(sym).str() == name:
                    attr = C.lib.mlirOperationGetAttributeByName(
                        op, C.MlirStringRef.of(attribute))
                    if C.is_null(attr):
                        return None
                    return C.print_to_string(C.lib.mlirAttributePrint, attr)
            op = C.lib.mlirOperationGetNextInBlock(op)
        return None

    def signature(self, name):
        """The :class:`FunctionSignature` of ``func.func @name``.

        Raises:
            KeyError: no such function.
            TypeError: an argument or result type the JIT layer cannot pass.
        """
        funcs = self.functions()
        if name not in funcs:
            raise KeyError(f"amp_mlir: no func.func @{name} in the module "
                           f"(functions: {', '.join(sorted(funcs)) or 'none'})")
        inputs, results = funcs[name]
        return FunctionSignature(name, [TensorSpec.parse(t) for t in inputs],
                                 [TensorSpec.parse(t) for t in results])

    def run_pipeline(self, pipeline):
        """Runs a textual pass pipeline on the module, as ``amp-opt
        --pass-pipeline``. ``pipeline`` may name the root
        (``builtin.module(...)``) or not (``amp-cpu-pipeline{autocast=0}``).

        Raises:
            MLIRError: the pipeline does not parse, or a pass fails.
        """
        if not pipeline.lstrip().startswith("builtin.module("):
            pipeline = f"builtin.module({pipeline})"
        ctx = self.context
        ctx._take_diagnostics()
        ctx._source_name = self.source_name
        pm = C.lib.mlirPassManagerCreate(ctx._ctx)
        try:
            errors = []
            cb = C.MlirStringCallback(lambda s, _: errors.append(s.str()))
            res = C.lib.mlirParsePassPipeline(
                C.lib.mlirPassManagerGetAsOpPassManager(pm),
                C.MlirStringRef.of(pipeline), cb, None)
            if not res.value:
                raise MLIRError(f"invalid pass pipeline '{pipeline}'",
                                [("error", "<pipeline>", "".join(errors).strip())])
            if not C.lib.mlirPassManagerRunOnOp(pm, self.operation).value:
                raise MLIRError(f"pass pipeline '{pipeline}' failed",
                                ctx._take_diagnostics())
        finally:
            C.lib.mlirPassManagerDestroy(pm)
            ctx._source_name = None
        return self

    def has_gpu_binaries(self):
        """Whether the module holds compiled GPU kernels (``gpu.binary``)."""
        op = C.lib.mlirBlockGetFirstOperation(C.lib.mlirModuleGetBody(self._module))
        while not C.is_null(op):
            if C.lib.mlirIdentifierStr(C.lib.mlirOperationGetName(op)).str() == "gpu.binary":
                return True
            op = C.lib.mlirOperationGetNextInBlock(op)
        return False

    def clone(self):
        """A deep copy of the module (in the same context)."""
        op = C.lib.mlirOperationClone(self.operation)
        return Module(self.context, C.lib.mlirModuleFromOperation(op), self.source_name)

    def emit_c_interface(self):
        """Marks every public function ``llvm.emit_c_interface`` (before
        lowering) so the JIT exposes memref-descriptor wrappers."""
        C.lib.ampModuleEmitCInterface(self._module)
        return self

    def __del__(self):
        module = getattr(self, "_module", None)
        if module is not None and not C.is_null(module) and \
                not C.is_null(self.context._ctx):
            C.lib.mlirModuleDestroy(module)
            self._module = C.MlirModule()
