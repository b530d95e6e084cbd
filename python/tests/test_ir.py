"""Parsing, pipelines, JIT calls and their errors."""
import numpy as np
import pytest

import amp_mlir as amp

MATMUL = """
func.func @mm(%x: tensor<4x8xf32>, %w: tensor<8x3xf32>) -> tensor<4x3xf32> {
  %r = amp.autocast device_type(cpu) -> tensor<4x3xf32> {
    %z = tensor.empty() : tensor<4x3xf32>
    %c = arith.constant 0.0 : f32
    %zf = linalg.fill ins(%c : f32) outs(%z : tensor<4x3xf32>) -> tensor<4x3xf32>
    %y = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x3xf32>)
                       outs(%zf : tensor<4x3xf32>) -> tensor<4x3xf32>
    amp.yield %y : tensor<4x3xf32>
  }
  return %r : tensor<4x3xf32>
}
func.func @many(%x: tensor<?xf32>, %s: f32) -> (tensor<?xf32>, f32, tensor<?xf32>, tensor<2xf32>) {
  %c = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %y = linalg.map { math.exp } ins(%x : tensor<?xf32>) outs(%x : tensor<?xf32>)
  return %y, %s, %x, %c : tensor<?xf32>, f32, tensor<?xf32>, tensor<2xf32>
}
func.func @scalar(%x: tensor<f32>) -> f32 {
  %e = tensor.extract %x[] : tensor<f32>
  return %e : f32
}
func.func @double_bf16(%x: tensor<3xbf16>) -> tensor<3xbf16> {
  %y = arith.addf %x, %x : tensor<3xbf16>
  return %y : tensor<3xbf16>
}
func.func @half_to_f32(%x: tensor<2x2xf16>) -> tensor<2x2xf32> {
  %y = arith.extf %x : tensor<2x2xf16> to tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}
"""


@pytest.fixture(scope="module")
def exe():
    return amp.compile(MATMUL)


def test_bf16_autocast_matmul(exe):
    rng = np.random.default_rng(0)
    x = rng.random((4, 8), np.float32)
    w = rng.random((8, 3), np.float32)
    y = exe.invoke("mm", x, w)
    assert y.dtype == np.float32 and y.shape == (4, 3)
    err = np.abs(y - x @ w).max()
    # bf16 inputs (8-bit mantissa), f32 accumulation: small but not zero.
    assert 0 < err < 0.05


def test_multiple_results_dynamic_shapes(exe):
    a = np.array([0.0, 1.0, 2.0], np.float32)
    y, s, same, c = exe.many(a, 2.5)
    np.testing.assert_allclose(y, np.exp(a), rtol=1e-6)
    assert s == 2.5
    np.testing.assert_array_equal(same, a)
    np.testing.assert_array_equal(c, [1.0, 2.0])
    # The caller's array is never written.
    np.testing.assert_array_equal(a, [0.0, 1.0, 2.0])


def test_scalar_result(exe):
    assert exe.invoke("scalar", np.array(7.0, np.float32)) == 7.0


def test_bf16_and_f16_arrays(exe):
    import ml_dtypes  # installed by scripts/setup.sh
    out = exe.invoke("double_bf16", np.array([1.5, 2.0, 3.0], ml_dtypes.bfloat16))
    assert out.dtype == ml_dtypes.bfloat16
    np.testing.assert_array_equal(out.astype(np.float32), [3.0, 4.0, 6.0])
    h = np.array([[1.0, 2.0], [0.5, 65504.0]], np.float16)
    np.testing.assert_array_equal(exe.invoke("half_to_f32", h), h.astype(np.float32))


def test_signature(exe):
    sig = exe.signatures["many"]
    assert repr(sig) == "@many(tensor<?xf32>, f32) -> (tensor<?xf32>, f32, tensor<?xf32>, tensor<2xf32>)"


def test_parse_error_has_location():
    with pytest.raises(amp.MLIRError) as info:
        amp.Context().parse("func.func @f() {\n  %x = arith.addf\n}", source_name="bad.mlir")
    assert "bad.mlir:3:1: error:" in str(info.value) or "bad.mlir:2:" in str(info.value)
    assert info.value.diagnostics[0][0] == "error"


def test_verifier_error():
    with pytest.raises(amp.MLIRError, match=r"<string>:1:32: error: type of return operand 0"):
        amp.compile("func.func @f(%a: i32) -> f32 { return %a : i32 }")


def test_amp_verifier_error():
    text = """func.func @f(%g: tensor<4xf16>, %s: tensor<f32>) {
  %u, %inf = amp.unscale %g by %s : tensor<4xf16>
  return
}"""
    with pytest.raises(amp.MLIRError, match="Attempting to unscale FP16 gradients"):
        amp.Context().parse(text)


def test_bad_pipeline_option():
    with pytest.raises(amp.MLIRError, match="mode must be 'graph' or 'eager', got 'bogus'"):
        amp.compile(MATMUL, pipeline="amp-cpu-pipeline{mode=bogus}")


def test_unknown_pass():
    with pytest.raises(amp.MLIRError, match="invalid pass pipeline"):
        amp.compile(MATMUL, pipeline="no-such-pass")


def test_pass_failure_reports_diagnostics():
    # An unknown op in a policy list is an error of amp-autocast.
    with pytest.raises(amp.MLIRError, match="unknown op 'linalg.nonsense'"):
        amp.Context().parse(MATMUL).run_pipeline("amp-autocast{lower-ops=linalg.nonsense}")


def test_not_lowered_module():
    module = amp.Context().parse(MATMUL)
    with pytest.raises(amp.MLIRError, match="JIT compilation failed"):
        amp.ExecutionEngine(module, {})


def test_argument_checks(exe):
    x = np.zeros((4, 8), np.float32)
    with pytest.raises(TypeError, match="takes 2 arguments, 1 given"):
        exe.invoke("mm", x)
    with pytest.raises(TypeError, match=r"argument #1: expected dtype float32"):
        exe.invoke("mm", x, np.zeros((8, 3), np.float64))
    with pytest.raises(ValueError, match=r"argument #1: dimension 0 must be 8"):
        exe.invoke("mm", x, np.zeros((7, 3), np.float32))
    with pytest.raises(ValueError, match=r"argument #0: expected rank 2"):
        exe.invoke("mm", np.zeros(4, np.float32), np.zeros((8, 3), np.float32))
    with pytest.raises(KeyError, match="no function @nope"):
        exe.invoke("nope")


def test_pipeline_text_roundtrip():
    module = amp.Context().parse(MATMUL)
    module.run_pipeline("amp-autocast")
    text = str(module)
    assert "linalg.matmul" in text and "bf16" in text and "amp.autocast" not in text


def test_shared_result_buffers_are_freed_once():
    """Two results merged into one buffer (CSE) or returned twice."""
    text = """func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %a = arith.addf %x, %x : tensor<4xf32>
  %b = arith.addf %x, %x : tensor<4xf32>
  return %a, %b, %a : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}"""
    exe = amp.compile(text)
    for _ in range(3):
        a, b, c = exe.invoke("f", np.ones(4, np.float32))
        for r in (a, b, c):
            np.testing.assert_array_equal(r, [2, 2, 2, 2])


def test_many_calls_do_not_grow_ctypes_caches(exe):
    import ctypes
    exe.many(np.zeros(2, np.float32), 1.0)
    before = len(ctypes._pointer_type_cache)
    for _ in range(200):
        exe.many(np.zeros(2, np.float32), 1.0)
    assert len(ctypes._pointer_type_cache) == before


INTS = """func.func @ints(%a: i8, %b: i32, %c: i1, %d: f32) -> i32 {
  %a32 = arith.extsi %a : i8 to i32
  %s = arith.addi %a32, %b : i32
  %c32 = arith.extui %c : i1 to i32
  %t = arith.addi %s, %c32 : i32
  return %t : i32
}"""


def test_integer_scalars_are_range_checked():
    exe = amp.compile(INTS)
    assert exe.ints(-5, 100, True, 0.0) == 96
    with pytest.raises(OverflowError, match=r"argument #0: 300 does not fit in i8"):
        exe.ints(300, 0, False, 0.0)
    with pytest.raises(OverflowError, match=r"argument #1: 1099511627776 does not fit in i32"):
        exe.ints(0, 2 ** 40, False, 0.0)
    with pytest.raises(ValueError, match=r"argument #2: 5 is not a valid i1"):
        exe.ints(0, 0, 5, 0.0)
    with pytest.raises(TypeError, match=r"argument #1: expected an integer \(i32\), got float"):
        exe.ints(0, 1.5, False, 0.0)
    with pytest.raises(TypeError, match=r"argument #3: expected a number \(f32\), got str"):
        exe.ints(0, 0, False, "x")


def test_python_numbers_for_tensor_arguments(exe):
    assert exe.invoke("scalar", 2.5) == 2.5
    np.testing.assert_allclose(exe.many([0.0, 1.0], 0.0)[0], [1.0, np.e], rtol=1e-6)


def test_declarations_and_private_functions_are_not_callable():
    text = """func.func private @printMemrefF32(tensor<*xf32>)
func.func private @helper(%v: vector<4xf32>) -> vector<4xf32> { return %v : vector<4xf32> }
func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> { return %x : tensor<2xf32> }"""
    exe = amp.compile(text)
    assert list(exe.signatures) == ["f"]
    np.testing.assert_array_equal(exe.f(np.array([1, 2], np.float32)), [1, 2])


def test_compile_leaves_a_module_unchanged():
    module = amp.Context().parse(MATMUL)
    text = str(module)
    first = amp.compile(module)
    second = amp.compile(module)
    assert str(module) == text
    x, w = np.ones((4, 8), np.float32), np.ones((8, 3), np.float32)
    np.testing.assert_array_equal(first.mm(x, w), second.mm(x, w))


def test_bad_opt_level():
    with pytest.raises(ValueError, match="opt_level must be 0, 1, 2 or 3, got 7"):
        amp.compile(MATMUL, opt_level=7)


def test_pass_remarks_keep_the_source_name():
    ctx = amp.Context()
    text = """func.func @f(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = amp.autocast device_type(cuda) -> tensor<4x4xf32> {
    %c = arith.constant dense<1.0e30> : tensor<4x4xf32>
    %z = arith.constant dense<0.0> : tensor<4x4xf32>
    %y = linalg.matmul ins(%x, %c : tensor<4x4xf32>, tensor<4x4xf32>)
                       outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
    amp.yield %y : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}"""
    module = ctx.parse(text, source_name="w.mlir")
    module.run_pipeline("amp-autocast")
    assert ctx.warnings, "expected a remark about the constant that overflows f16"
    assert all(loc.startswith("w.mlir:") for _, loc, _ in ctx.warnings), ctx.warnings
