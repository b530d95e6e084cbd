"""Device arrays and the managed entry point (`@f__amp_managed`) that keeps
weights resident on the GPU across calls. Without a GPU: the entry point and
its `amp.may_write_args` in the lowered module, and the Python errors; with
one (`bench/gpu/run.sh`): calls on device arrays against the host-memory
calls, donation, and a resident training step against the CPU one."""
import gc

import numpy as np
import pytest

import amp_mlir as amp
from amp_mlir.training import SGD, Linear, ReLU, Trainer

HAVE_GPU = amp.cuda_device_count() > 0

# @bump writes its first argument in place (one-shot bufferization's
# function arguments are writable) and returns it; @add only reads.
BUMP = """
func.func @bump(%a: tensor<4xf32>, %s: f32) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %r = tensor.insert %s into %a[%c0] : tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<4xf32>, f32) {
  %c1 = arith.constant 1 : index
  %r = arith.addf %a, %b : tensor<4xf32>
  %e = tensor.extract %r[%c1] : tensor<4xf32>
  return %r, %e : tensor<4xf32>, f32
}
"""


def test_managed_entry_point_lists_written_arguments():
    module = amp.Context().parse(BUMP)
    module.emit_c_interface()
    module.run_pipeline("amp-cuda-pipeline{format=isa}")
    assert module.function_attribute("bump__amp_managed", "amp.may_write_args") == \
        "array<i64: 0>"
    assert module.function_attribute("add__amp_managed", "amp.may_write_args") == "array<i64>"
    assert module.function_attribute("add__amp_managed", "llvm.emit_c_interface") == "unit"
    assert module.function_attribute("add__amp_managed", "no.such") is None
    assert module.function_attribute("missing", "amp.may_write_args") is None


def test_invoke_device_needs_the_cuda_pipeline():
    exe = amp.compile(BUMP)  # amp-cpu-pipeline: no managed entry point
    with pytest.raises(amp.MLIRError, match=r"no managed entry point @add__amp_managed"):
        exe.invoke_device("add", np.ones(4, np.float32), np.ones(4, np.float32))
    with pytest.raises(KeyError, match="no function @nope"):
        exe.invoke_device("nope")
    with pytest.raises(TypeError, match="takes 2 arguments, 1 given"):
        exe.invoke_device("add", np.ones(4, np.float32))


def test_device_array_shape_errors():
    # Checked before any device is needed.
    with pytest.raises(TypeError, match="must hold integers"):
        amp.DeviceArray.empty((2.5,), "f32")
    with pytest.raises(ValueError, match="negative dimension"):
        amp.DeviceArray.empty((4, -1), "f32")
    with pytest.raises(OverflowError, match="more than any device has"):
        amp.DeviceArray.empty((2 ** 32, 2 ** 32), "f32")
    with pytest.raises(TypeError, match="no numpy dtype for MLIR type 'f8'"):
        amp.DeviceArray.empty((4,), "f8")
    with pytest.raises(TypeError, match="takes two strings"):
        amp.Context().parse(BUMP).function_attribute(1, "x")


@pytest.mark.skipif(HAVE_GPU, reason="this machine has a CUDA device")
def test_device_arrays_without_a_device_are_a_python_error():
    with pytest.raises(RuntimeError, match="device arrays need a CUDA device"):
        amp.to_device(np.ones(4, np.float32))
    with pytest.raises(RuntimeError, match="device arrays need a CUDA device"):
        amp.DeviceArray.empty((4,), "f32")


@pytest.mark.skipif(not HAVE_GPU, reason="needs a CUDA device")
def test_invoke_device_matches_invoke():
    exe = amp.compile(BUMP, pipeline="amp-cuda-pipeline")
    a = np.arange(4, dtype=np.float32)
    b = np.full(4, 0.5, np.float32)
    da, db = amp.to_device(a), amp.to_device(b)
    assert da.shape == (4,) and da.element_type == "f32"
    np.testing.assert_array_equal(da.numpy(), a)
    r, e = exe.invoke_device("add", da, db)
    assert isinstance(r, amp.DeviceArray) and e == 1.5
    np.testing.assert_array_equal(r.numpy(), exe.invoke("add", a, b)[0])
    # A numpy argument is copied to the device for the call.
    np.testing.assert_array_equal(exe.invoke_device("add", a, db)[0].numpy(), a + b)
    with pytest.raises(TypeError, match=r"argument #1: expected dtype float32"):
        exe.invoke_device("add", da, amp.to_device(b.astype(np.float16)))
    with pytest.raises(ValueError, match=r"argument #0: dimension 0 must be 4"):
        exe.invoke_device("add", amp.to_device(np.ones(5, np.float32)), db)


@pytest.mark.skipif(not HAVE_GPU, reason="needs a CUDA device")
def test_donation():
    exe = amp.compile(BUMP, pipeline="amp-cuda-pipeline")
    a = np.arange(4, dtype=np.float32)
    da = amp.to_device(a)
    # Not donated: @bump writes a device copy; the caller's array keeps its
    # values.
    r = exe.invoke_device("bump", da, 7.0)
    np.testing.assert_array_equal(r.numpy(), [7, 1, 2, 3])
    np.testing.assert_array_equal(da.numpy(), a)
    assert r.allocated_ptr != da.allocated_ptr
    # Donated: updated in place (the result is an owned copy).
    r = exe.invoke_device("bump", da, 9.0, donate=[0])
    np.testing.assert_array_equal(da.numpy(), [9, 1, 2, 3])
    np.testing.assert_array_equal(r.numpy(), [9, 1, 2, 3])
    with pytest.raises(ValueError, match="donate"):
        exe.invoke_device("bump", r, 1.0, donate=[2])


@pytest.mark.skipif(not HAVE_GPU, reason="needs a CUDA device")
def test_resident_training_step_matches_cpu():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((64, 32)).astype(np.float32)
    y = np.eye(8, dtype=np.float32)[rng.integers(0, 8, 64)]

    def make(target):
        return Trainer([Linear(32, 64), ReLU(), Linear(64, 8)], 64, 32, 8, SGD(0.1),
                       target=target)
    cpu, gpu = make("cpu"), make("cuda")
    dx, dy = amp.to_device(x), amp.to_device(y)
    for _ in range(3):
        lc = cpu.step(x, y)
        lg = gpu.step(dx, dy)  # device batches, reused
        assert abs(lc - lg) <= 1e-4 * abs(lc)
    for pc, pg in zip(cpu.params + cpu.state, gpu.params + gpu.state):
        np.testing.assert_allclose(pg, pc, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(dx.numpy(), x)  # the batch was not written
    np.testing.assert_allclose(gpu.predict(x), cpu.predict(x), rtol=1e-4, atol=1e-5)


class _HostRuntime:
    """The runtime calls device arrays make, on host memory (malloc), so
    that invoke_device's packing, aliasing and freeing run on a machine
    without a GPU, against CPU-compiled functions that stand in for managed
    entry points. Counts live allocations and the frees of the buffers the
    compiled code allocated."""

    def __init__(self):
        import ctypes
        self.libc = ctypes.CDLL(None)
        self.libc.malloc.restype = ctypes.c_void_p
        self.libc.malloc.argtypes = [ctypes.c_size_t]
        self.libc.free.argtypes = [ctypes.c_void_p]
        self.live, self.foreign_frees = set(), 0

    def mgpuMemAlloc(self, nbytes, stream, host_shared):
        ptr = self.libc.malloc(nbytes)
        self.live.add(ptr)
        return ptr

    def mgpuMemFree(self, ptr, stream):
        # Buffers the compiled stand-ins return come from their own malloc.
        if ptr in self.live:
            self.live.discard(ptr)
        else:
            self.foreign_frees += 1
        self.libc.free(ptr)

    def mgpuMemcpy(self, dst, src, nbytes, stream):
        import ctypes
        ctypes.memmove(dst, src, nbytes)

    def mgpuStreamSynchronize(self, stream):
        pass


# Stand-ins for managed entry points, compiled for the CPU: @bump__amp_managed
# writes its argument in place and returns it (as the attribute says),
# @pair__amp_managed returns one new buffer twice.
STAND_INS = """
func.func @bump(%a: tensor<4xf32>, %s: f32) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
func.func @bump__amp_managed(%a: tensor<4xf32>, %s: f32) -> tensor<4xf32>
    attributes {amp.may_write_args = array<i64: 0>} {
  %c0 = arith.constant 0 : index
  %r = tensor.insert %s into %a[%c0] : tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func @pair(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  return %a, %a : tensor<4xf32>, tensor<4xf32>
}
func.func @pair__amp_managed(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
    attributes {amp.may_write_args = array<i64>} {
  %r = arith.addf %a, %a : tensor<4xf32>
  return %r, %r : tensor<4xf32>, tensor<4xf32>
}
func.func @mix(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
func.func @mix__amp_managed(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32>
    attributes {amp.may_write_args = array<i64: 0>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %b3 = tensor.extract %b[%c3] : tensor<4xf32>
  %a0 = tensor.insert %b3 into %a[%c0] : tensor<4xf32>
  %b0 = tensor.extract %b[%c0] : tensor<4xf32>
  %a1 = tensor.insert %b0 into %a0[%c1] : tensor<4xf32>
  return %a1 : tensor<4xf32>
}
func.func @scale(%s: tensor<f32>) -> tensor<f32> {
  return %s : tensor<f32>
}
func.func @scale__amp_managed(%s: tensor<f32>) -> tensor<f32>
    attributes {amp.may_write_args = array<i64>} {
  %r = arith.mulf %s, %s : tensor<f32>
  return %r : tensor<f32>
}
"""


@pytest.fixture
def host_runtime(monkeypatch):
    """The host-memory runtime in place of the CUDA one, and the stand-ins
    compiled for the CPU."""
    from amp_mlir import device
    fake = _HostRuntime()
    monkeypatch.setattr(device, "_runtime", fake)
    return fake, amp.compile(STAND_INS)


def test_invoke_device_ownership_on_host_memory(host_runtime):
    fake, exe = host_runtime
    a = np.arange(4, dtype=np.float32)
    da = amp.to_device(a)
    assert len(fake.live) == 1
    # Written but not donated: the call gets a copy.
    r = exe.invoke_device("bump", da, 7.0)
    np.testing.assert_array_equal(r.numpy(), [7, 1, 2, 3])
    np.testing.assert_array_equal(da.numpy(), a)
    assert r.allocated_ptr != da.allocated_ptr
    # Donated: updated in place (the result is a copy: bufferization's
    # deallocation returns owned buffers).
    r2 = exe.invoke_device("bump", da, 9.0, donate=[0])
    np.testing.assert_array_equal(da.numpy(), [9, 1, 2, 3])
    np.testing.assert_array_equal(r2.numpy(), [9, 1, 2, 3])
    # A numpy argument is uploaded for the call and freed after it.
    before = set(fake.live)
    r3 = exe.invoke_device("bump", a, 5.0)
    assert fake.live == before
    np.testing.assert_array_equal(r3.numpy(), [5, 1, 2, 3])
    # One buffer returned twice: one owner, freed once.
    p, q = exe.invoke_device("pair", r3)
    assert p.allocated_ptr == q.allocated_ptr
    np.testing.assert_array_equal(q.numpy(), [10, 2, 4, 6])
    del r, r2, r3
    gc.collect()
    assert fake.foreign_frees == 3
    del p
    gc.collect()
    assert fake.foreign_frees == 3  # q holds the buffer
    np.testing.assert_array_equal(q.numpy(), [10, 2, 4, 6])
    del q, da
    gc.collect()
    assert fake.foreign_frees == 4 and fake.live == set()


def test_invoke_device_aliasing_and_0d_on_host_memory(host_runtime):
    fake, exe = host_runtime
    x = np.array([10, 20, 30, 40], np.float32)
    dx = amp.to_device(x)
    # Written, not donated, and passed twice: the written one is a copy, so
    # the function reads the caller's values.
    np.testing.assert_array_equal(exe.invoke_device("mix", dx, dx).numpy(), [40, 10, 30, 40])
    np.testing.assert_array_equal(dx.numpy(), x)
    # Donated and passed again: refused (the function would read what it
    # writes).
    with pytest.raises(ValueError, match=r"argument #0 is donated, but its buffer is "
                                         r"also argument #1"):
        exe.invoke_device("mix", dx, dx, donate=[0])
    # 0-d arrays stay 0-d, from numpy, Python numbers and device arrays.
    s = amp.to_device(np.array(3.0, np.float32))
    assert s.shape == () and s.numpy().shape == ()
    assert float(exe.invoke_device("scale", s).numpy()) == 9.0
    assert float(exe.invoke_device("scale", 2.0).numpy()) == 4.0
    with pytest.raises(TypeError, match=r"@scale argument #0: expected an array"):
        exe.invoke_device("scale", object())
    del dx, s
    gc.collect()
    assert fake.live == set()
