"""Arrays that stay in CUDA device memory across calls of compiled code.

A :class:`DeviceArray` is a C-contiguous array in CUDA managed memory,
allocated by the project's CUDA runtime (``mgpuMemAlloc``, the allocator and
buffer cache that compiled code uses). :meth:`ExecutionEngine.invoke_device`
passes device arrays to the managed entry point ``@f__amp_managed`` that
``amp-cuda-pipeline`` keeps next to every public function ``@f`` and gets
device arrays back, with no copies between host and device: model weights
and optimizer state stay resident from one training step to the next (as
PyTorch's CUDA tensors do). :func:`to_device` and :meth:`DeviceArray.numpy`
copy between numpy and the device, with the driver's copy engine.

Without a CUDA device every function here raises RuntimeError (the runtime
would otherwise stop the process at its first call).

Layer: execution (device memory), above :mod:`.runtime`, which it imports
(element types, the CUDA runtime library); below :mod:`.jit`, which passes
device arrays to compiled code. Imports nothing else from the package.
"""

import ctypes
import math

import numpy as np

from .runtime import cuda_device_count, cuda_runtime_library, element_type_of, numpy_dtype

__all__ = ["DeviceArray", "to_device"]

_runtime = None


def _cuda():
    """The CUDA runtime library, after checking that a device answers."""
    global _runtime
    if _runtime is None:
        if cuda_device_count() == 0:
            raise RuntimeError("amp_mlir: device arrays need a CUDA device, and the "
                               "driver reports none")
        lib = cuda_runtime_library()
        lib.mgpuMemAlloc.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_bool]
        lib.mgpuMemAlloc.restype = ctypes.c_void_p
        lib.mgpuMemFree.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
        lib.mgpuMemFree.restype = None
        lib.mgpuMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
                                   ctypes.c_void_p]
        lib.mgpuMemcpy.restype = None
        lib.mgpuStreamSynchronize.argtypes = [ctypes.c_void_p]
        lib.mgpuStreamSynchronize.restype = None
        _runtime = lib
    return _runtime


def _copy(dst, src, nbytes):
    """Copies ``nbytes`` between host and/or device addresses (the driver's
    copy engine on the default stream) and waits for it."""
    if nbytes:
        lib = _cuda()
        lib.mgpuMemcpy(dst, src, nbytes, None)
        lib.mgpuStreamSynchronize(None)


class _Buffer:
    """One allocation of the runtime; freed (back to its buffer cache) when
    the last array on it goes away."""

    __slots__ = ("ptr", "__weakref__")

    def __init__(self, ptr):
        self.ptr = ptr

    def __del__(self):
        # At interpreter exit the module globals may be gone already.
        if self.ptr and _runtime is not None:
            _runtime.mgpuMemFree(self.ptr, None)
            self.ptr = None


class DeviceArray:
    """An array in CUDA managed memory (C-contiguous).

    Attributes:
        shape (tuple of int), dtype (numpy dtype), element_type (the MLIR
        element type: ``f32``, ``f16``, ``bf16``, ``i1``, ``i32``, ...),
        nbytes (int), data_ptr (the device address of element 0).

    Arrays returned by :meth:`ExecutionEngine.invoke_device` may share their
    allocation with an argument (a function that updates its argument in
    place and returns it) or with another result.
    """

    __slots__ = ("_buffer", "data_ptr", "shape", "dtype", "element_type")

    def __init__(self, buffer, data_ptr, shape, dtype, element_type):
        self._buffer = buffer
        self.data_ptr = data_ptr
        self.shape = tuple(int(d) for d in shape)
        self.dtype = np.dtype(dtype)
        self.element_type = element_type

    @classmethod
    def empty(cls, shape, element_type):
        """An uninitialized device array of ``shape`` and MLIR element type
        ``element_type``.

        Raises:
            TypeError: a dimension that is not an integer. ValueError: a
            negative one. OverflowError: more bytes than any device has
            (2^48). RuntimeError: no CUDA device.
        """
        dtype = numpy_dtype(element_type)
        shape = tuple(shape)
        if not all(isinstance(d, (int, np.integer)) and not isinstance(d, bool)
                   for d in shape):
            raise TypeError(f"amp_mlir: shape {shape} must hold integers")
        shape = tuple(int(d) for d in shape)
        if any(d < 0 for d in shape):
            raise ValueError(f"amp_mlir: negative dimension in shape {shape}")
        nbytes = math.prod(shape) * dtype.itemsize
        if nbytes >= 1 << 48:
            raise OverflowError(f"amp_mlir: a {element_type} array of shape {shape} needs "
                                f"{nbytes} bytes, more than any device has")
        lib = _cuda()
        ptr = lib.mgpuMemAlloc(nbytes, None, True) if nbytes else None
        return cls(_Buffer(ptr), ptr or 0, shape, dtype, element_type)

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        return math.prod(self.shape)

    @property
    def nbytes(self):
        return self.size * self.dtype.itemsize

    @property
    def allocated_ptr(self):
        """The address of the allocation this array lives in (what the
        runtime frees)."""
        return self._buffer.ptr or 0

    def copy(self):
        """A new device array with the same values (device to device)."""
        out = DeviceArray.empty(self.shape, self.element_type)
        _copy(out.data_ptr, self.data_ptr, self.nbytes)
        return out

    def numpy(self):
        """A numpy copy of the array (device to host, waits for the device)."""
        out = np.empty(self.shape, self.dtype)
        _copy(out.ctypes.data, self.data_ptr, self.nbytes)
        return out

    def __array__(self, dtype=None, copy=None):
        a = self.numpy()
        return a if dtype is None else a.astype(dtype)

    def __repr__(self):
        return f"DeviceArray(shape={self.shape}, element_type={self.element_type})"


def to_device(array, element_type=None):
    """Copies a numpy array (or anything ``np.asarray`` takes) into a new
    :class:`DeviceArray`.

    Args:
        element_type: the MLIR element type (default: from the array's dtype:
            float32 -> f32, float16 -> f16, bfloat16 -> bf16, bool -> i1,
            int32 -> i32, int64 -> i64, ...); the array is converted to it.

    Raises:
        RuntimeError: no CUDA device. TypeError: a dtype with no MLIR type.
    """
    if isinstance(array, DeviceArray):
        raise TypeError("amp_mlir: to_device got a DeviceArray (it is on the device)")
    array = np.asarray(array)
    if element_type is None:
        element_type = element_type_of(array.dtype)
    # np.array keeps 0-d arrays 0-d (np.ascontiguousarray makes them 1-d).
    host = np.array(array, dtype=numpy_dtype(element_type), order="C")
    out = DeviceArray.empty(host.shape, element_type)
    _copy(out.data_ptr, host.ctypes.data, host.nbytes)
    return out

