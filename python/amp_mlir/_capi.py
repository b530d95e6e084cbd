"""ctypes declarations of the C API in libAmpMLIRCAPI.so.

MLIR's C API (mlir-c/IR.h, Pass.h, ExecutionEngine.h, RegisterEverything.h,
BuiltinTypes.h, BuiltinAttributes.h, Diagnostics.h) and amp's (amp-c/Amp.h)
are exported by one shared library built with the project. Its path comes
from ``_config.py``, written by CMake into ``build/python_packages``; the
environment variable ``AMP_MLIR_CAPI_LIBRARY`` overrides it.

Layer: the C API binding, the lowest above :mod:`._config` (the library's
path), which is all it imports from the package.
"""

import ctypes
import os

from . import _config


def _handle(name):
    """An MLIR C API handle: a struct holding one opaque pointer."""
    return type(name, (ctypes.Structure,), {"_fields_": [("ptr", ctypes.c_void_p)]})


MlirContext = _handle("MlirContext")
MlirDialectRegistry = _handle("MlirDialectRegistry")
MlirModule = _handle("MlirModule")
MlirOperation = _handle("MlirOperation")
MlirBlock = _handle("MlirBlock")
MlirRegion = _handle("MlirRegion")
MlirType = _handle("MlirType")
MlirAttribute = _handle("MlirAttribute")
MlirLocation = _handle("MlirLocation")
MlirPassManager = _handle("MlirPassManager")
MlirOpPassManager = _handle("MlirOpPassManager")
MlirExecutionEngine = _handle("MlirExecutionEngine")
MlirDiagnostic = _handle("MlirDiagnostic")
MlirIdentifier = _handle("MlirIdentifier")


class MlirStringRef(ctypes.Structure):
    # `data` is a pointer, not c_char_p: MLIR's strings are not
    # NUL-terminated (a diagnostic or printer chunk points into a larger
    # buffer), and reading a c_char_p field runs strlen over them, past
    # `length` (AddressSanitizer: heap-buffer-overflow).
    _fields_ = [("data", ctypes.POINTER(ctypes.c_char)), ("length", ctypes.c_size_t)]

    @classmethod
    def of(cls, text):
        raw = text.encode() if isinstance(text, str) else text
        buf = ctypes.create_string_buffer(raw, len(raw) + 1)
        ref = cls(ctypes.cast(buf, ctypes.POINTER(ctypes.c_char)), len(raw))
        ref._buf = buf  # the bytes live as long as the reference
        return ref

    def str(self):
        if not self.length:
            return ""
        return ctypes.string_at(self.data, self.length).decode(errors="replace")


class MlirLogicalResult(ctypes.Structure):
    _fields_ = [("value", ctypes.c_int8)]


MlirStringCallback = ctypes.CFUNCTYPE(None, MlirStringRef, ctypes.c_void_p)
# The handler returns an MlirLogicalResult, a struct of one int8_t that the
# x86-64 and AArch64 ABIs return like an int8_t (ctypes callbacks cannot
# return structs).
MlirDiagnosticHandler = ctypes.CFUNCTYPE(
    ctypes.c_int8, MlirDiagnostic, ctypes.c_void_p)
MlirDeleteUserData = ctypes.CFUNCTYPE(None, ctypes.c_void_p)

# Diagnostic severities (mlir-c/Diagnostics.h).
SEVERITY_ERROR, SEVERITY_WARNING, SEVERITY_NOTE, SEVERITY_REMARK = 0, 1, 2, 3


def _load():
    path = os.environ.get("AMP_MLIR_CAPI_LIBRARY", _config.CAPI_LIBRARY)
    if not os.path.exists(path):
        raise ImportError(
            f"amp_mlir: the C API library {path} does not exist; build the "
            "project first (see README.md) or set AMP_MLIR_CAPI_LIBRARY")
    # RTLD_LOCAL: the library and the LLVM/MLIR it links (Debian's) stay out
    # of the global symbol namespace. torch-mlir and Triton bundle LLVMs of
    # their own; with Debian's LLVM global, loading either afterwards binds
    # their command-line option registry to ours ("LLVM ERROR: inconsistency
    # in registered CommandLine options") or crashes in Triton's start-up.
    return ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL)


lib = _load()

_P = ctypes.c_void_p
_SIGNATURES = {
    # Context and registration.
    "mlirContextCreateWithThreading": (MlirContext, [ctypes.c_bool]),
    "mlirContextDestroy": (None, [MlirContext]),
    "mlirContextAppendDialectRegistry": (None, [MlirContext, MlirDialectRegistry]),
    "mlirContextLoadAllAvailableDialects": (None, [MlirContext]),
    "mlirDialectRegistryCreate": (MlirDialectRegistry, []),
    "mlirDialectRegistryDestroy": (None, [MlirDialectRegistry]),
    "mlirRegisterAllLLVMTranslations": (None, [MlirContext]),
    "ampRegisterAllDialects": (None, [MlirDialectRegistry]),
    "ampRegisterAllPasses": (None, []),
    "ampModuleEmitCInterface": (None, [MlirModule]),
    "ampGetJitRuntimeLibraries": (ctypes.c_char_p, []),
    "ampGetMpiLibrary": (ctypes.c_char_p, []),
    "ampGetMpiImplementation": (ctypes.c_char_p, []),
    # Diagnostics.
    "mlirContextAttachDiagnosticHandler": (
        ctypes.c_uint64, [MlirContext, MlirDiagnosticHandler, _P, MlirDeleteUserData]),
    "mlirContextDetachDiagnosticHandler": (None, [MlirContext, ctypes.c_uint64]),
    "mlirDiagnosticPrint": (None, [MlirDiagnostic, MlirStringCallback, _P]),
    "mlirDiagnosticGetLocation": (MlirLocation, [MlirDiagnostic]),
    "mlirDiagnosticGetSeverity": (ctypes.c_int, [MlirDiagnostic]),
    "mlirDiagnosticGetNumNotes": (ctypes.c_ssize_t, [MlirDiagnostic]),
    "mlirDiagnosticGetNote": (MlirDiagnostic, [MlirDiagnostic, ctypes.c_ssize_t]),
    "mlirLocationPrint": (None, [MlirLocation, MlirStringCallback, _P]),
    # Modules and operations.
    "mlirModuleCreateParse": (MlirModule, [MlirContext, MlirStringRef]),
    "mlirModuleDestroy": (None, [MlirModule]),
    "mlirModuleGetOperation": (MlirOperation, [MlirModule]),
    "mlirModuleGetBody": (MlirBlock, [MlirModule]),
    "mlirBlockGetFirstOperation": (MlirOperation, [MlirBlock]),
    "mlirOperationGetNextInBlock": (MlirOperation, [MlirOperation]),
    "mlirOperationGetName": (MlirIdentifier, [MlirOperation]),
    "mlirIdentifierStr": (MlirStringRef, [MlirIdentifier]),
    "mlirOperationGetAttributeByName": (MlirAttribute, [MlirOperation, MlirStringRef]),
    "mlirOperationPrint": (None, [MlirOperation, MlirStringCallback, _P]),
    "mlirOperationVerify": (ctypes.c_bool, [MlirOperation]),
    "mlirOperationClone": (MlirOperation, [MlirOperation]),
    "mlirModuleFromOperation": (MlirModule, [MlirOperation]),
    "mlirOperationGetNumRegions": (ctypes.c_ssize_t, [MlirOperation]),
    "mlirOperationGetRegion": (MlirRegion, [MlirOperation, ctypes.c_ssize_t]),
    "mlirRegionGetFirstBlock": (MlirBlock, [MlirRegion]),
    "mlirStringAttrGetValue": (MlirStringRef, [MlirAttribute]),
    "mlirTypeAttrGetValue": (MlirType, [MlirAttribute]),
    "mlirAttributeIsAString": (ctypes.c_bool, [MlirAttribute]),
    # Types.
    "mlirFunctionTypeGetNumInputs": (ctypes.c_ssize_t, [MlirType]),
    "mlirFunctionTypeGetNumResults": (ctypes.c_ssize_t, [MlirType]),
    "mlirFunctionTypeGetInput": (MlirType, [MlirType, ctypes.c_ssize_t]),
    "mlirFunctionTypeGetResult": (MlirType, [MlirType, ctypes.c_ssize_t]),
    "mlirTypePrint": (None, [MlirType, MlirStringCallback, _P]),
    "mlirAttributePrint": (None, [MlirAttribute, MlirStringCallback, _P]),
    # Passes.
    "mlirPassManagerCreate": (MlirPassManager, [MlirContext]),
    "mlirPassManagerDestroy": (None, [MlirPassManager]),
    "mlirPassManagerGetAsOpPassManager": (MlirOpPassManager, [MlirPassManager]),
    "mlirPassManagerRunOnOp": (MlirLogicalResult, [MlirPassManager, MlirOperation]),
    "mlirPassManagerEnableVerifier": (None, [MlirPassManager, ctypes.c_bool]),
    "mlirParsePassPipeline": (
        MlirLogicalResult, [MlirOpPassManager, MlirStringRef, MlirStringCallback, _P]),
    # Execution engine.
    "mlirExecutionEngineCreate": (
        MlirExecutionEngine,
        [MlirModule, ctypes.c_int, ctypes.c_int, ctypes.POINTER(MlirStringRef),
         ctypes.c_bool, ctypes.c_bool]),
    "mlirExecutionEngineDestroy": (None, [MlirExecutionEngine]),
    "mlirExecutionEngineRegisterSymbol": (None, [MlirExecutionEngine, MlirStringRef, _P]),
    "mlirExecutionEngineInitialize": (None, [MlirExecutionEngine]),
    "mlirExecutionEngineInvokePacked": (
        MlirLogicalResult, [MlirExecutionEngine, MlirStringRef, ctypes.POINTER(_P)]),
    "mlirExecutionEngineLookupPacked": (_P, [MlirExecutionEngine, MlirStringRef]),
}

for _name, (_res, _args) in _SIGNATURES.items():
    _fn = getattr(lib, _name)
    _fn.restype = _res
    _fn.argtypes = _args


def is_null(handle):
    return not handle.ptr


def print_to_string(printer, obj):
    """Text of `obj` printed by an mlir*Print(obj, callback, userData) function."""
    chunks = []
    callback = MlirStringCallback(lambda s, _: chunks.append(s.str()))
    printer(obj, callback, None)
    return "".join(chunks)


libc = ctypes.CDLL(None)
libc.free.argtypes = [ctypes.c_void_p]
libc.free.restype = None
