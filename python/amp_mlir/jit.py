"""JIT execution of lowered modules on numpy arrays.

Functions are called through their ``_mlir_ciface_`` wrappers
(``llvm.emit_c_interface``): every tensor argument is passed as a pointer to
a memref descriptor ``{allocated, aligned, offset, sizes[r], strides[r]}``
over the numpy array itself when the function does not write its arguments
(``amp_cpu.read_only_args``, which ``amp-cpu-pipeline`` sets, and the array is
C-contiguous), else over a C-contiguous copy; results come back as numpy
arrays over the buffers the JIT allocated (no copy; freed with the array,
through the runtime that allocated them), or as copies when a result is an
argument's buffer or strided. Modules compiled by
``amp-cuda-pipeline`` can also be called on device arrays, with no copies:
:meth:`ExecutionEngine.invoke_device`.

Element types: f32, f64, f16 (numpy float16), bf16 (``ml_dtypes.bfloat16``),
i1 (bool), i8/i16/i32/i64 and index (int64) (:func:`.runtime.numpy_dtype`).

Layer: execution, above the C API binding (:mod:`._capi`), :mod:`.ir`,
:mod:`.runtime`, :mod:`.device` and :mod:`.distributed` (MPI for
data-parallel modules), which it imports; below
:mod:`.compiler`, which builds an engine for every compiled module.
"""

import ctypes
import os

import numpy as np

from . import _capi as C
from .device import DeviceArray, _Buffer, to_device
from .distributed import initialize as initialize_mpi
from .ir import MLIRError
from .runtime import cpu_runtime_library, numpy_dtype

__all__ = ["ExecutionEngine", "RuntimeCheckError"]


def _scalar_ctype(element_type):
    table = {"f64": ctypes.c_double, "f32": ctypes.c_float, "i64": ctypes.c_int64,
             "index": ctypes.c_int64, "i32": ctypes.c_int32, "i16": ctypes.c_int16,
             "i8": ctypes.c_int8, "i1": ctypes.c_bool}
    if element_type not in table:
        raise TypeError(f"amp_mlir: scalar arguments/results of type "
                        f"'{element_type}' are not supported (use a 0-d tensor)")
    return table[element_type]


_DESCRIPTORS = {}
_RESULT_STRUCTS = {}


def _descriptor_type(rank):
    """ctypes struct of a rank-`rank` memref descriptor (CRunnerUtils.h)."""
    if rank not in _DESCRIPTORS:
        fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
                  ("offset", ctypes.c_int64)]
        if rank:
            fields += [("sizes", ctypes.c_int64 * rank),
                       ("strides", ctypes.c_int64 * rank)]
        _DESCRIPTORS[rank] = type(f"MemRefDescriptor{rank}", (ctypes.Structure,),
                                  {"_fields_": fields})
    return _DESCRIPTORS[rank]


def _contiguous_strides(shape):
    """Element strides of a C-contiguous array of ``shape``."""
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(int(n), 1)
    return tuple(reversed(strides))


def _check_shape(name, i, dtype, shape, spec):
    """Raises TypeError/ValueError when an argument's dtype or shape does not
    match ``spec`` (the message names the argument)."""
    want_dtype = numpy_dtype(spec.element_type)
    if dtype != want_dtype:
        raise TypeError(f"@{name} argument #{i}: expected dtype {want_dtype} "
                        f"({spec!r}), got {dtype}")
    if len(shape) != spec.rank:
        raise ValueError(f"@{name} argument #{i}: expected rank {spec.rank} "
                         f"({spec!r}), got shape {shape}")
    for d, (want, have) in enumerate(zip(spec.shape, shape)):
        if want is not None and want != have:
            raise ValueError(f"@{name} argument #{i}: dimension {d} must be "
                             f"{want} ({spec!r}), got shape {shape}")


def _checked_array(name, i, arg, spec):
    """``arg`` as a numpy array of ``spec``'s dtype and shape (Python numbers
    and nested lists take the argument's dtype)."""
    if not isinstance(arg, np.ndarray):
        try:
            arg = np.asarray(arg, dtype=numpy_dtype(spec.element_type))
        except (TypeError, ValueError) as e:
            raise TypeError(f"@{name} argument #{i}: expected an array for {spec!r}, "
                            f"got {type(arg).__name__} ({e})") from e
    _check_shape(name, i, arg.dtype, arg.shape, spec)
    return arg


def _field_type(spec):
    return _scalar_ctype(spec.element_type) if spec.is_scalar else _descriptor_type(spec.rank)


def _results_struct(results):
    """The ctypes struct the C interface fills for several results (one
    class per list of field types: ctypes caches a pointer type per class)."""
    fields = tuple(_field_type(r) for r in results)
    if fields not in _RESULT_STRUCTS:
        _RESULT_STRUCTS[fields] = type("Results", (ctypes.Structure,), {
            "_fields_": [(f"r{i}", t) for i, t in enumerate(fields)]})
    return _RESULT_STRUCTS[fields]


_INT_RANGES = {"i1": (0, 1), "i8": (-2 ** 7, 2 ** 7 - 1), "i16": (-2 ** 15, 2 ** 15 - 1),
               "i32": (-2 ** 31, 2 ** 31 - 1), "i64": (-2 ** 63, 2 ** 63 - 1),
               "index": (-2 ** 63, 2 ** 63 - 1)}


class RuntimeCheckError(RuntimeError):
    """A check of the compiled code failed during a call (a ``cf.assert``:
    torch-mlir's index bounds of gather, embedding, index_select); the call's
    results are discarded. The process and the executable stay usable.

    Attributes:
        function: the function called.
        check: the check's message and the source locations it carries
            (``index must be smaller than dim size at "file":line:col``).
    """

    def __init__(self, function, check):
        self.function, self.check = function, check
        super().__init__(f"amp_mlir: @{function}: runtime check failed: {check}")


class _JitBuffer:
    """Owns a buffer that compiled code allocated and returned: numpy arrays
    over it keep it alive (as their base), and it is freed with them, by
    ``free`` (the runtime's counting free, or libc's)."""

    def __init__(self, allocated, aligned, nbytes, free):
        self._allocated, self._free = allocated, free
        self.__array_interface__ = {"data": (aligned, False), "shape": (nbytes,),
                                    "typestr": "|u1", "version": 3}

    def __del__(self):
        if self._allocated:
            self._free(self._allocated)
            self._allocated = 0


# LLVM's soft-float conversion calls (fptrunc/fpext to/from bf16 and f16
# where the CPU has no instruction): MLIR's libmlir_float16_utils and
# libgcc_s define them.
_LIBCALLS = ("__truncsfbf2", "__truncdfbf2", "__truncsfhf2", "__truncdfhf2",
             "__extendhfsf2", "__extendhfdf2", "__gnu_h2f_ieee", "__gnu_f2h_ieee")
_RUNTIME = []


def _runtime_libraries():
    """``(paths, handles)``: the runtime libraries the JIT loads itself (by
    path), and ctypes handles of those whose symbols it is given one by one.

    MLIR's ExecutionEngine loads a shared library with
    ``llvm::sys::DynamicLibrary`` (``dlopen(RTLD_GLOBAL)``), which puts the
    library and everything it links into the process's global scope. MLIR's
    own runtime libraries (``libmlir_runner_utils``,
    ``libmlir_c_runner_utils``, ``libmlir_float16_utils``) link Debian's
    libLLVM and libMLIR: loaded that way they made those global, and a
    torch-mlir imported afterwards bound its bundled LLVM's command-line
    registry to Debian's ("LLVM ERROR: Option 'print-inst-addrs' registered
    more than once"). So they are loaded here RTLD_LOCAL and the JIT gets the
    addresses of the functions the module declares (and of LLVM's libcalls)
    instead; the other libraries (OpenMP, amp's CPU and CUDA runtimes) link
    no LLVM and are loaded by the JIT as before."""
    if not _RUNTIME:
        paths, handles = [], []
        for path in C.lib.ampGetJitRuntimeLibraries().decode().split(";"):
            if not path:
                continue
            if os.path.basename(path).startswith("libmlir_"):
                handles.append(ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL))
            else:
                paths.append(path)
        if handles:
            float16 = os.path.join(os.path.dirname(handles[0]._name),
                                   "libmlir_float16_utils.so")
            if os.path.exists(float16):
                handles.append(ctypes.CDLL(float16, mode=ctypes.RTLD_LOCAL))
        try:
            handles.append(ctypes.CDLL("libgcc_s.so.1", mode=ctypes.RTLD_LOCAL))
        except OSError:
            pass
        _RUNTIME.append((paths, handles))
    return _RUNTIME[0]


def _symbol_address(handle, name):
    try:
        return ctypes.cast(getattr(handle, name), ctypes.c_void_p).value
    except AttributeError:
        return None


def _external_functions(module):
    """Names of the top-level ``llvm.func`` declarations (no body) of a
    module lowered to the LLVM dialect: the functions it calls elsewhere."""
    names = set()
    op = C.lib.mlirBlockGetFirstOperation(C.lib.mlirModuleGetBody(module._module))
    while not C.is_null(op):
        if C.lib.mlirIdentifierStr(C.lib.mlirOperationGetName(op)).str() == "llvm.func" \
                and C.is_null(C.lib.mlirRegionGetFirstBlock(
                    C.lib.mlirOperationGetRegion(op, 0))):
            names.add(C.lib.mlirStringAttrGetValue(C.lib.mlirOperationGetAttributeByName(
                op, C.MlirStringRef.of("sym_name"))).str())
        op = C.lib.mlirOperationGetNextInBlock(op)
    return names


class ExecutionEngine:
    """JIT-compiles a module lowered to the LLVM dialect.

    Args:
        module: an :class:`amp_mlir.Module` in the LLVM dialect whose public
            functions were marked with ``emit_c_interface()`` before lowering.
        signatures: ``{name: FunctionSignature}`` of the functions at the
            tensor level (taken before lowering).
        opt_level: LLVM optimisation level 0-3.

    Raises:
        MLIRError: the module cannot be translated to LLVM IR or compiled.
    """

    def __init__(self, module, signatures, opt_level=3):
        if opt_level not in (0, 1, 2, 3):
            raise ValueError(f"opt_level must be 0, 1, 2 or 3, got {opt_level!r}")
        self.module = module
        self.signatures = dict(signatures)
        self._written = {}  # entry point -> arguments it may write
        self._read_only = {}  # function -> whether it never writes its arguments
        # Buffers of amp-cpu-pipeline code come from the CPU runtime's counting
        # allocator (finalize-memref-to-llvm{use-generic-functions}) and go
        # back to it; other modules' from malloc.
        if module.function_attribute("_mlir_memref_to_llvm_alloc", "sym_name") is not None:
            self._free = cpu_runtime_library()._mlir_memref_to_llvm_free
        else:
            self._free = C.libc.free
        libs, local = _runtime_libraries()
        # Data-parallel steps call MPI (docs/Distributed.md); libmpi links no
        # LLVM, so the JIT loads it by path.
        # MPI is initialized first (a call before MPI_Init would abort).
        if module.function_attribute("MPI_Allreduce", "sym_name") is not None:
            libs = libs + [initialize_mpi()]
        refs = [C.MlirStringRef.of(p) for p in libs]
        paths = (C.MlirStringRef * len(libs))(*refs)
        self._keep = refs  # the path bytes the array points to
        module.context._take_diagnostics()
        self._engine = C.lib.mlirExecutionEngineCreate(
            module._module, opt_level, len(libs), paths, False, False)
        if C.is_null(self._engine):
            raise MLIRError("JIT compilation failed (is the module fully lowered "
                            "to the LLVM dialect?)", module.context._take_diagnostics())
        # MLIR's runtime libraries are handed to the JIT symbol by symbol
        # (see _runtime_libraries), before anything is linked.
        for name in _external_functions(module) | set(_LIBCALLS):
            for handle in local:
                address = _symbol_address(handle, name)
                if address:
                    C.lib.mlirExecutionEngineRegisterSymbol(
                        self._engine, C.MlirStringRef.of(name), address)
                    break
        # Global constructors (none from the CPU pipeline today) run here.
        C.lib.mlirExecutionEngineInitialize(self._engine)

    def __del__(self):
        engine = getattr(self, "_engine", None)
        if engine is not None and not C.is_null(engine):
            C.lib.mlirExecutionEngineDestroy(engine)
            self._engine = C.MlirExecutionEngine()

    def invoke(self, name, *args):
        """Calls ``@name`` on numpy arrays / Python scalars.

        Returns:
            ``None`` for no result, the value for one, a tuple for several.
            Tensors come back as numpy arrays with the result's dtype.

        Raises:
            KeyError: unknown function. TypeError/ValueError: argument count,
            dtype, rank or static dimension that does not match the
            signature (the message names the argument).
        """
        sig = self._signature(name, args)
        keep_alive, input_ptrs = [], set()
        copy = not self._reads_only(name)
        values = [self._pack_argument(name, i, arg, spec, keep_alive, input_ptrs, copy)
                  for i, (arg, spec) in enumerate(zip(args, sig.inputs))]
        fields = self._call(name, sig, values, keep_alive)
        if fields is None:
            return None
        # Results may share a buffer (the same value returned twice, or two
        # results merged by CSE): one owner per buffer; a buffer copied out
        # is freed once, after all are copied.
        owners, to_free = {}, set()
        out = [self._unpack_result(f, r, input_ptrs, owners, to_free)
               for f, r in zip(fields, sig.results)]
        for ptr in to_free - set(owners):
            self._free(ptr)
        failure = cpu_runtime_library().ampCpuTakeAssertFailure()
        if failure is not None:
            raise RuntimeCheckError(name, failure.decode(errors="replace"))
        return out[0] if len(out) == 1 else tuple(out)

    def _reads_only(self, name):
        """Whether ``@name`` never writes its arguments' buffers
        (``amp_cpu.read_only_args``; read from the lowered module once)."""
        if name not in self._read_only:
            self._read_only[name] = self.module.function_attribute(
                name, "amp_cpu.read_only_args") is not None
        return self._read_only[name]

    def invoke_device(self, name, *args, donate=()):
        """Calls ``@name`` on device arrays, without host copies: its managed
        entry point ``@name__amp_managed`` (``amp-cuda-pipeline``), which
        takes and returns buffers in CUDA managed memory.

        Args:
            args: a :class:`amp_mlir.device.DeviceArray` (or a numpy array,
                copied to the device for this call) per tensor argument, a
                Python number per scalar.
            donate: numbers of the arguments whose device arrays the
                function may update in place (one-shot bufferization writes
                function arguments in place; a training step updating its
                weights, for example). The other device arrays that the
                function may write (``amp.may_write_args``, which the
                pipeline records) are copied on the device first, so the
                caller's arrays keep their values.

        Returns:
            ``None`` for no result, the value for one, a tuple for several:
            a DeviceArray per tensor result (which may share its allocation
            with an argument it updated in place, or with another result),
            a Python number per scalar.

        Raises:
            KeyError: unknown function. MLIRError: the module has no managed
            entry point (not compiled by amp-cuda-pipeline).
            TypeError/ValueError: as :meth:`invoke`, for device arrays too.
            RuntimeError: no CUDA device.
        """
        sig = self._signature(name, args)
        entry = name + "__amp_managed"
        if not C.lib.mlirExecutionEngineLookupPacked(
                self._engine, C.MlirStringRef.of("_mlir_ciface_" + entry)):
            raise MLIRError(f"@{name} has no managed entry point @{entry} "
                            "(compile with amp-cuda-pipeline)", [])
        donate = set(donate)
        if not donate <= set(range(len(args))):
            raise ValueError(f"@{name}: donate={sorted(donate)} names arguments outside "
                             f"0..{len(args) - 1}")
        written = self._may_write_args(entry)
        # A donated buffer may not also be another argument: the function
        # would read it while it writes it (as JAX refuses).
        users = {}
        for i, arg in enumerate(args):
            if isinstance(arg, DeviceArray) and arg.allocated_ptr:
                users.setdefault(arg.allocated_ptr, []).append(i)
        for i in sorted(donate):
            if isinstance(args[i], DeviceArray):
                others = [j for j in users.get(args[i].allocated_ptr, []) if j != i]
                if others:
                    raise ValueError(f"@{name}: argument #{i} is donated, but its buffer is "
                                     f"also argument #{others[0]} (pass a copy)")
        keep_alive, owners, values = [], {}, []
        for i, (arg, spec) in enumerate(zip(args, sig.inputs)):
            if spec.is_scalar:
                values.append(self._pack_scalar(name, i, arg, spec, keep_alive))
                continue
            if isinstance(arg, DeviceArray):
                _check_shape(name, i, arg.dtype, arg.shape, spec)
                if i in written and i not in donate:
                    arg = arg.copy()
            else:
                arg = to_device(_checked_array(name, i, arg, spec), spec.element_type)
            keep_alive.append(arg)
            if arg.allocated_ptr:
                owners[arg.allocated_ptr] = arg._buffer
            desc = _descriptor_type(spec.rank)()
            desc.allocated, desc.aligned, desc.offset = arg.allocated_ptr, arg.data_ptr, 0
            for d, (size, stride) in enumerate(zip(arg.shape, _contiguous_strides(arg.shape))):
                desc.sizes[d], desc.strides[d] = size, stride
            keep_alive.append(desc)
            values.append(desc)
        fields = self._call(entry, sig, values, keep_alive)
        if fields is None:
            return None
        # Every result buffer gets its owner first (freed once, also when a
        # check below fails): an argument updated in place and returned, or a
        # buffer returned twice, keeps the one it has.
        out, strided = [], []
        for field, spec in zip(fields, sig.results):
            if spec.is_scalar:
                out.append(bool(field) if spec.element_type == "i1" else field)
                continue
            dtype = numpy_dtype(spec.element_type)
            shape = tuple(field.sizes[d] for d in range(spec.rank))
            strides = tuple(field.strides[d] for d in range(spec.rank))
            allocated = field.allocated or 0
            buffer = owners.get(allocated) if allocated else None
            if buffer is None:
                buffer = _Buffer(allocated or None)
                if allocated:
                    owners[allocated] = buffer
            data = (field.aligned or 0) + field.offset * dtype.itemsize
            out.append(DeviceArray(buffer, data, shape, dtype, spec.element_type))
            if any(n > 1 and s != c for n, s, c in
                   zip(shape, strides, _contiguous_strides(shape))):
                strided.append(f"result #{len(out) - 1} {spec!r} strides {strides}")
        if strided:
            raise MLIRError(f"@{entry} returned strided buffers ({'; '.join(strided)}); "
                            "the pipeline returns identity layouts", [])
        return out[0] if len(out) == 1 else tuple(out)

    def _may_write_args(self, entry):
        """The arguments the managed entry point may write in place (read
        from the lowered module once per entry point: calls are a hot path)."""
        cache = self._written
        if entry not in cache:
            text = self.module.function_attribute(entry, "amp.may_write_args")
            if text is None:
                # Not recorded: assume every argument may be written.
                name = entry[:-len("__amp_managed")]
                cache[entry] = set(range(len(self.signatures[name].inputs)))
            else:
                inside = text[text.index("<") + 1:text.rindex(">")]
                _, _, numbers = inside.partition(":")
                cache[entry] = {int(n) for n in numbers.split(",") if n.strip()}
        return cache[entry]

    def _signature(self, name, args):
        if name not in self.signatures:
            raise KeyError(f"amp_mlir: no function @{name} was compiled "
                           f"(functions: {', '.join(sorted(self.signatures))})")
        sig = self.signatures[name]
        if len(args) != len(sig.inputs):
            raise TypeError(f"@{name} takes {len(sig.inputs)} arguments, "
                            f"{len(args)} given")
        return sig

    def _call(self, symbol, sig, values, keep_alive):
        """Calls ``_mlir_ciface_<symbol>`` with packed argument ``values``
        (scalars, or descriptors that the wrapper takes by pointer). Returns
        None without results, else the list of result fields (descriptors, or
        numbers for scalars)."""
        packed = []
        # Results: one scalar is returned by value (last packed slot); anything
        # else comes through a pointer to a struct as the first parameter.
        results = sig.results
        result_struct = None
        if results and not (len(results) == 1 and results[0].is_scalar):
            if len(results) == 1:
                result_struct = _field_type(results[0])()
            else:
                result_struct = _results_struct(results)()
            ptr = ctypes.pointer(result_struct)
            keep_alive.append(ptr)
            packed.append(ctypes.cast(ctypes.pointer(ptr), ctypes.c_void_p))
        for value, spec in zip(values, sig.inputs):
            if not spec.is_scalar:
                # The wrapper takes the descriptor by pointer; the packed slot
                # points at that pointer.
                value = ctypes.pointer(value)
                keep_alive.append(value)
            packed.append(ctypes.cast(ctypes.pointer(value), ctypes.c_void_p))
        scalar_result = None
        if results and result_struct is None:
            scalar_result = _scalar_ctype(results[0].element_type)()
            packed.append(ctypes.cast(ctypes.pointer(scalar_result), ctypes.c_void_p))

        array = (ctypes.c_void_p * max(len(packed), 1))(*packed)
        res = C.lib.mlirExecutionEngineInvokePacked(
            self._engine, C.MlirStringRef.of(symbol), array)  # -> _mlir_ciface_<symbol>
        if not res.value:
            raise MLIRError(f"@{symbol} has no C interface wrapper in the JIT "
                            "(mark it with emit_c_interface before lowering)", [])
        if not results:
            return None
        if scalar_result is not None:
            return [scalar_result.value]
        if len(results) == 1:
            return [result_struct]
        return [getattr(result_struct, f"r{i}") for i in range(len(results))]

    @staticmethod
    def _pack_argument(name, i, arg, spec, keep_alive, input_ptrs, copy=True):
        if spec.is_scalar:
            return ExecutionEngine._pack_scalar(name, i, arg, spec, keep_alive)
        array = _checked_array(name, i, arg, spec)
        # A private copy when compiled code may write its arguments in place;
        # otherwise the array itself (a copy only if it is not C-contiguous).
        array = np.array(array, order="C", copy=True) if copy else \
            np.ascontiguousarray(array)
        keep_alive.append(array)
        desc = _descriptor_type(spec.rank)()
        data = array.ctypes.data if array.size else 0
        desc.allocated = desc.aligned = data
        desc.offset = 0
        if spec.rank:
            for d in range(spec.rank):
                desc.sizes[d] = array.shape[d]
                desc.strides[d] = array.strides[d] // array.itemsize if array.size else 1
        if data:
            input_ptrs.add(data)
        keep_alive.append(desc)
        return desc

    @staticmethod
    def _pack_scalar(name, i, arg, spec, keep_alive):
        t = spec.element_type
        if t in _INT_RANGES:
            if isinstance(arg, (float, np.floating)) or not isinstance(
                    arg, (int, np.integer, bool, np.bool_)):
                raise TypeError(f"@{name} argument #{i}: expected an integer "
                                f"({t}), got {type(arg).__name__}")
            lo, hi = _INT_RANGES[t]
            if t == "i1" and not isinstance(arg, (bool, np.bool_)) and arg not in (0, 1):
                raise ValueError(f"@{name} argument #{i}: {arg} is not a valid i1 (0/1/bool)")
            if not lo <= int(arg) <= hi:
                raise OverflowError(f"@{name} argument #{i}: {arg} does not fit in {t} "
                                    f"[{lo}, {hi}]")
        elif not isinstance(arg, (int, float, np.integer, np.floating)):
            raise TypeError(f"@{name} argument #{i}: expected a number ({t}), "
                            f"got {type(arg).__name__}")
        value = _scalar_ctype(t)(arg)
        keep_alive.append(value)
        return value

    @staticmethod
    def _scalar_value(value, spec):
        v = value.value
        return bool(v) if spec.element_type == "i1" else v

    def _unpack_result(self, value, spec, input_ptrs, owners, to_free):
        if spec.is_scalar:
            # A field of the results struct: ctypes gives a Python number.
            return bool(value) if spec.element_type == "i1" else value
        dtype = numpy_dtype(spec.element_type)
        shape = tuple(value.sizes[d] for d in range(spec.rank)) if spec.rank else ()
        strides = tuple(value.strides[d] for d in range(spec.rank)) if spec.rank else ()
        count = int(np.prod(shape)) if shape else 1
        # A contiguous buffer the function allocated: the array is a view of
        # it that frees it when it goes (no copy).
        ours = value.allocated and value.allocated not in input_ptrs
        if ours and count and value.aligned and all(
                n == 1 or s == c for n, s, c in
                zip(shape, strides, _contiguous_strides(shape))):
            owner = owners.get(value.allocated)
            if owner is None:
                # The owner spans the whole allocation as far as it is known:
                # from the aligned pointer to the end of this result.
                end = (value.offset + count) * dtype.itemsize
                owner = owners[value.allocated] = _JitBuffer(
                    value.allocated, value.aligned, end, self._free)
            elif owner.__array_interface__["shape"][0] < (value.offset + count) * dtype.itemsize:
                owner.__array_interface__["shape"] = ((value.offset + count) * dtype.itemsize,)
            raw = np.asarray(owner)
            start = value.offset * dtype.itemsize
            return raw[start:start + count * dtype.itemsize].view(dtype).reshape(shape)
        out = np.empty(shape, dtype=dtype)
        if count and value.aligned:
            base = value.aligned + value.offset * dtype.itemsize
            extent = 1 + sum((n - 1) * abs(s) for n, s in zip(shape, strides))
            raw = np.ctypeslib.as_array(
                (ctypes.c_uint8 * (extent * dtype.itemsize)).from_address(base))
            view = np.lib.stride_tricks.as_strided(
                raw.view(dtype), shape=shape,
                strides=tuple(s * dtype.itemsize for s in strides))
            out[...] = view
        # Buffers the function allocated are ours to free; an argument's
        # buffer returned as it is belongs to its (private) copy.
        if value.allocated and value.allocated not in input_ptrs:
            to_free.add(value.allocated)
        return out
