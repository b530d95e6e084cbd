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


# Attention as torch-mlir exports nn.MultiheadAttention (bench/cpu_models.py):
# the input projection as a batch matmul of the weight broadcast across the
# batch (amp-fold-batch-broadcast makes it one matmul), the scores as a batch
# matmul with K transposed, softmax with the max as a two-result (max,
# argmax) reduction, exp, sum and division, then the batch matmul with V.
ATTENTION = """
#bk = affine_map<(d0, d1, d2) -> (d1, d2)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @attn(%x: tensor<{b}x{s}x{d}xf32>, %w: tensor<{d}x{d3}xf32>) -> (tensor<{b}x{s}x{d}xf32>, tensor<{b}x{s}x{d3}xf32>) {
  %z = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %z64 = arith.constant 0 : i64
  %eb = tensor.empty() : tensor<{b}x{d}x{d3}xf32>
  %wb = linalg.generic {indexing_maps = [#bk, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%w : tensor<{d}x{d3}xf32>) outs(%eb : tensor<{b}x{d}x{d3}xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<{b}x{d}x{d3}xf32>
  %ep = tensor.empty() : tensor<{b}x{s}x{d3}xf32>
  %fp = linalg.fill ins(%z : f32) outs(%ep : tensor<{b}x{s}x{d3}xf32>) -> tensor<{b}x{s}x{d3}xf32>
  %qkv = linalg.batch_matmul ins(%x, %wb : tensor<{b}x{s}x{d}xf32>, tensor<{b}x{d}x{d3}xf32>) outs(%fp : tensor<{b}x{s}x{d3}xf32>) -> tensor<{b}x{s}x{d3}xf32>
  %q = tensor.extract_slice %qkv[0, 0, 0] [{b}, {s}, {d}] [1, 1, 1] : tensor<{b}x{s}x{d3}xf32> to tensor<{b}x{s}x{d}xf32>
  %k = tensor.extract_slice %qkv[0, 0, {d}] [{b}, {s}, {d}] [1, 1, 1] : tensor<{b}x{s}x{d3}xf32> to tensor<{b}x{s}x{d}xf32>
  %v = tensor.extract_slice %qkv[0, 0, {d2}] [{b}, {s}, {d}] [1, 1, 1] : tensor<{b}x{s}x{d3}xf32> to tensor<{b}x{s}x{d}xf32>
  %ekt = tensor.empty() : tensor<{b}x{d}x{s}xf32>
  %kt = linalg.transpose ins(%k : tensor<{b}x{s}x{d}xf32>) outs(%ekt : tensor<{b}x{d}x{s}xf32>) permutation = [0, 2, 1]
  %es = tensor.empty() : tensor<{b}x{s}x{s}xf32>
  %fs = linalg.fill ins(%z : f32) outs(%es : tensor<{b}x{s}x{s}xf32>) -> tensor<{b}x{s}x{s}xf32>
  %sc = linalg.batch_matmul ins(%q, %kt : tensor<{b}x{s}x{d}xf32>, tensor<{b}x{d}x{s}xf32>) outs(%fs : tensor<{b}x{s}x{s}xf32>) -> tensor<{b}x{s}x{s}xf32>
  %em = tensor.empty() : tensor<{b}x{s}xf32>
  %fm = linalg.fill ins(%ninf : f32) outs(%em : tensor<{b}x{s}xf32>) -> tensor<{b}x{s}xf32>
  %ei = tensor.empty() : tensor<{b}x{s}xi64>
  %fi = linalg.fill ins(%z64 : i64) outs(%ei : tensor<{b}x{s}xi64>) -> tensor<{b}x{s}xi64>
  %mx:2 = linalg.generic {indexing_maps = [#id3, #row, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%sc : tensor<{b}x{s}x{s}xf32>) outs(%fm, %fi : tensor<{b}x{s}xf32>, tensor<{b}x{s}xi64>) {
  ^bb0(%in: f32, %o: f32, %oi: i64):
    %i = linalg.index 2 : index
    %ii = arith.index_cast %i : index to i64
    %m = arith.maximumf %in, %o : f32
    %c = arith.cmpf ogt, %in, %o : f32
    %s = arith.select %c, %ii, %oi : i64
    linalg.yield %m, %s : f32, i64
  } -> (tensor<{b}x{s}xf32>, tensor<{b}x{s}xi64>)
  %ex = linalg.generic {indexing_maps = [#id3, #row, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%sc, %mx#0 : tensor<{b}x{s}x{s}xf32>, tensor<{b}x{s}xf32>) outs(%es : tensor<{b}x{s}x{s}xf32>) {
  ^bb0(%in: f32, %m: f32, %o: f32):
    %t = arith.subf %in, %m : f32
    %e = math.exp %t : f32
    linalg.yield %e : f32
  } -> tensor<{b}x{s}x{s}xf32>
  %fsum = linalg.fill ins(%z : f32) outs(%em : tensor<{b}x{s}xf32>) -> tensor<{b}x{s}xf32>
  %sum = linalg.generic {indexing_maps = [#id3, #row], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%ex : tensor<{b}x{s}x{s}xf32>) outs(%fsum : tensor<{b}x{s}xf32>) {
  ^bb0(%in: f32, %o: f32):
    %a = arith.addf %in, %o : f32
    linalg.yield %a : f32
  } -> tensor<{b}x{s}xf32>
  %p = linalg.generic {indexing_maps = [#id3, #row, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ex, %sum : tensor<{b}x{s}x{s}xf32>, tensor<{b}x{s}xf32>) outs(%es : tensor<{b}x{s}x{s}xf32>) {
  ^bb0(%in: f32, %t: f32, %o: f32):
    %dv = arith.divf %in, %t : f32
    linalg.yield %dv : f32
  } -> tensor<{b}x{s}x{s}xf32>
  %eo = tensor.empty() : tensor<{b}x{s}x{d}xf32>
  %fo = linalg.fill ins(%z : f32) outs(%eo : tensor<{b}x{s}x{d}xf32>) -> tensor<{b}x{s}x{d}xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<{b}x{s}x{s}xf32>, tensor<{b}x{s}x{d}xf32>) outs(%fo : tensor<{b}x{s}x{d}xf32>) -> tensor<{b}x{s}x{d}xf32>
  return %o, %qkv : tensor<{b}x{s}x{d}xf32>, tensor<{b}x{s}x{d3}xf32>
}
"""


@pytest.mark.parametrize("gemm", ["codegen", "onednn"])
def test_attention_with_broadcast_projection_matches_numpy(gemm):
    b, s, d = 8, 64, 32
    rng = np.random.default_rng(3)
    x = rng.standard_normal((b, s, d)).astype(np.float32)
    w = (rng.standard_normal((d, 3 * d)) / np.sqrt(d)).astype(np.float32)
    text = ATTENTION
    for key, val in (("b", b), ("s", s), ("d", d), ("d2", 2 * d), ("d3", 3 * d)):
        text = text.replace("{%s}" % key, str(val))
    exe = amp.compile(text,
                      pipeline=f"amp-cpu-pipeline{{autocast=0 gemm={gemm}}}")
    out, qkv = exe.attn(x, w)
    qkv_ref = x.astype(np.float64) @ w.astype(np.float64)
    q, k, v = qkv_ref[..., :d], qkv_ref[..., d:2 * d], qkv_ref[..., 2 * d:]
    sc = q @ k.transpose(0, 2, 1)
    e = np.exp(sc - sc.max(-1, keepdims=True))
    ref = (e / e.sum(-1, keepdims=True)) @ v
    for y, r in ((qkv, qkv_ref), (out, ref)):
        assert y.shape == r.shape
        assert np.linalg.norm(y - r) / np.linalg.norm(r) < 1e-5


EXP = """
#id = affine_map<(d0) -> (d0)>
func.func @ex(%x: tensor<{n}xf32>) -> tensor<{n}xf32> {
  %e = tensor.empty() : tensor<{n}xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<{n}xf32>) outs(%e : tensor<{n}xf32>) {
  ^bb0(%in: f32, %o: f32):
    %y = math.exp %in : f32
    linalg.yield %y : f32
  } -> tensor<{n}xf32>
  return %r : tensor<{n}xf32>
}
"""


@pytest.mark.parametrize("approximate", [True, False])
def test_f32_exp_matches_numpy(approximate):
    # amp-cpu-approximate-math's exp (upstream's Cephes polynomial, which
    # the loop vectorizer takes; softmax's exp was a scalar libm call per
    # element) against numpy: within 3 ulp where the result is a normal
    # f32, results below 2^-126 flushed to zero or tiny, overflow to inf,
    # exp(-inf) = 0, NaN kept; approximate-math=false keeps libm.
    x = np.concatenate([np.linspace(-100, 100, 20001, dtype=np.float32),
                        np.float32([-np.inf, np.inf, np.nan, 0.0, -0.0, 88.72, 88.73,
                                    -87.3, -103.9, 1e-30])])
    exe = amp.compile(EXP.replace("{n}", str(x.size)),
                      pipeline=f"amp-cpu-pipeline{{autocast=0 "
                               f"approximate-math={int(approximate)}}}")
    y = exe.ex(x)
    ref = np.exp(x.astype(np.float64))
    normal = (ref >= 2.0**-126) & (ref <= np.finfo(np.float32).max)
    assert (np.abs(y[normal] - ref[normal]) / ref[normal]).max() < 3 * 2.0**-23
    assert np.abs(y[ref < 2.0**-126]).max() < 2.0**-125
    assert np.all(np.isposinf(y[ref > np.finfo(np.float32).max]))
    assert np.isnan(y[np.isnan(x)]).all() and y[x == -np.inf][0] == 0.0
