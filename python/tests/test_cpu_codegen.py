"""Numerics of the CPU code generation of contractions (amp-cpu-pipeline):
tiled, vectorized, threaded and, for large matmuls, with B packed into
register-wide panels (amp-cpu-tile-and-vectorize pack-rhs)."""
import ml_dtypes
import numpy as np
import pytest

import amp_mlir as amp


def matmul_source(m, k, n, autocast=False):
    attr = (' attributes {amp.autocast = #amp.autocast<device_type = cpu>}'
            if autocast else '')
    return f"""
func.func @mm(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>) -> tensor<{m}x{n}xf32>{attr} {{
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{m}x{n}xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  %r = linalg.matmul ins(%a, %b : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>)
                     outs(%f : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  return %r : tensor<{m}x{n}xf32>
}}
"""


def operands(m, k, n):
    rng = np.random.default_rng(m * 7 + k * 3 + n)
    return (rng.standard_normal((m, k)).astype(np.float32),
            rng.standard_normal((k, n)).astype(np.float32))


def rel_err(y, ref):
    return np.abs(y.astype(np.float64) - ref).max() / np.abs(ref).max()


# (m, k, n): B of 512x160 f32 (320 KiB) and 384x384 are packed, with m
# remainders of the 6-row register tile (130 = 21*6 + 4) and of the cache
# tile; 64x64 and n = 200 (not a multiple of 16) are not packed.
SHAPES = [(130, 512, 160), (257, 384, 384), (64, 64, 64), (96, 512, 200)]


@pytest.mark.parametrize("m,k,n", SHAPES)
@pytest.mark.parametrize("pack", [True, False])
def test_f32_matmul_matches_numpy(m, k, n, pack):
    a, b = operands(m, k, n)
    exe = amp.compile(matmul_source(m, k, n),
                      pipeline=f"amp-cpu-pipeline{{pack-rhs={int(pack)}}}")
    y = exe.mm(a, b)
    assert y.shape == (m, n)
    assert rel_err(y, a.astype(np.float64) @ b.astype(np.float64)) < 1e-5


@pytest.mark.parametrize("m,k,n", SHAPES[:2])
def test_bf16_autocast_matmul_is_bf16_inputs_with_f32_accumulation(m, k, n):
    a, b = operands(m, k, n)
    exe = amp.compile(matmul_source(m, k, n, autocast=True))
    y = exe.mm(a, b)
    # The reference: inputs rounded to bf16, products summed in f64, the
    # result rounded once to bf16 (the matmul's output type under cpu
    # autocast, as in PyTorch); an f32 accumulator rounds differently only
    # where the sum lies within f32 error of a bf16 rounding boundary.
    ab = a.astype(ml_dtypes.bfloat16).astype(np.float64)
    bb = b.astype(ml_dtypes.bfloat16).astype(np.float64)
    expected = (ab @ bb).astype(ml_dtypes.bfloat16).astype(np.float32)
    differ = y != expected
    assert differ.mean() < 0.01
    np.testing.assert_allclose(y[differ], expected[differ], rtol=2.0**-7)


UNSIGNED = """
func.func @mm(%a: tensor<8x1024xi8>, %b: tensor<1024x256xf16>) -> tensor<8x256xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x256xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x256xf32>) -> tensor<8x256xf32>
  %r = linalg.matmul {cast = #linalg.type_fn<cast_unsigned>}
         ins(%a, %b : tensor<8x1024xi8>, tensor<1024x256xf16>)
         outs(%f : tensor<8x256xf32>) -> tensor<8x256xf32>
  return %r : tensor<8x256xf32>
}
"""


@pytest.mark.parametrize("pack", [True, False])
def test_packed_matmul_keeps_unsigned_cast(pack):
    # The f16 B is widened and the matmul rebuilt before packing; the i8 A
    # must still be read as unsigned (uitofp), as linalg.matmul's
    # cast_unsigned says.
    rng = np.random.default_rng(0)
    a = rng.integers(-128, 128, (8, 1024)).astype(np.int8)
    b = rng.standard_normal((1024, 256)).astype(np.float16)
    exe = amp.compile(UNSIGNED, pipeline=f"amp-cpu-pipeline{{pack-rhs={int(pack)}}}")
    ref = a.view(np.uint8).astype(np.float64) @ b.astype(np.float64)
    assert rel_err(exe.mm(a, b), ref) < 1e-5
