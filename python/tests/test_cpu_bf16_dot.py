"""AVX512-BF16 and AMX code generation (amp-cpu-pipeline
cpu-features=avx512bf16 / amx): bf16 x bf16 -> f32 contractions packed in
VNNI layout and computed with vdpbf16ps (AMX: tdpbf16ps on 16 x 16 tiles,
amp-cpu-amx-tiles), against numpy in f32 on the same bf16 inputs. Shapes cover odd K
(a zero-padded last pair), N that the 64-wide panels do not divide (padded
panels, 16-wide panels), M that the 6-row register tile does not divide,
transposed A and B, batch_matmul and an accumulating (non-zero) C. The same
cases on cpu-features=generic (the FMA path) run on every CPU; the
AVX512-BF16 and AMX ones are skipped, with the reason, on a CPU without the
instructions (/proc/cpuinfo flags avx512_bf16, amx_tile and amx_bf16).
"""
import numpy as np
import pytest

import amp_mlir as amp
from amp_mlir.runtime import numpy_dtype
from host_cpu import cpu_flags


AVX512BF16 = "avx512_bf16" in cpu_flags()
AMX = {"amx_tile", "amx_bf16"} <= cpu_flags()
BF16 = numpy_dtype("bf16")

FEATURES = [
    pytest.param("avx512bf16", marks=pytest.mark.skipif(
        not AVX512BF16, reason="needs AVX512-BF16 (vdpbf16ps)")),
    pytest.param("amx", marks=pytest.mark.skipif(
        not AMX, reason="needs AMX-TILE and AMX-BF16 (tdpbf16ps)")),
    "generic",
]


def _module(M, N, K, ta, tb, batch, acc):
    """A linalg.matmul (or batch_matmul) with A as M x K or K x M (ta), B as
    K x N or N x K (tb), C filled with zeros or passed in (acc)."""
    b = f"{batch}x" if batch else ""
    bd = "b, " if batch else ""
    a_shape = f"{b}{K}x{M}" if ta else f"{b}{M}x{K}"
    b_shape = f"{b}{N}x{K}" if tb else f"{b}{K}x{N}"
    c_shape = f"{b}{M}x{N}"
    dims = f"({bd}m, n, k)"
    maps = (f"indexing_maps = [affine_map<{dims} -> ({bd}{'k, m' if ta else 'm, k'})>, "
            f"affine_map<{dims} -> ({bd}{'n, k' if tb else 'k, n'})>, "
            f"affine_map<{dims} -> ({bd}m, n)>]")
    op = "linalg.batch_matmul" if batch else "linalg.matmul"
    args = f"%a: tensor<{a_shape}xbf16>, %b: tensor<{b_shape}xbf16>"
    if acc:
        args += f", %c: tensor<{c_shape}xf32>"
        init = ""
    else:
        init = (f"  %z = arith.constant 0.0 : f32\n"
                f"  %e = tensor.empty() : tensor<{c_shape}xf32>\n"
                f"  %c = linalg.fill ins(%z : f32) outs(%e : tensor<{c_shape}xf32>) -> tensor<{c_shape}xf32>\n")
    return (f"func.func @f({args}) -> tensor<{c_shape}xf32> {{\n{init}"
            f"  %r = {op} {maps} ins(%a, %b : tensor<{a_shape}xbf16>, tensor<{b_shape}xbf16>) "
            f"outs(%c : tensor<{c_shape}xf32>) -> tensor<{c_shape}xf32>\n"
            f"  return %r : tensor<{c_shape}xf32>\n}}\n")


CASES = [
    # M, N, K, transposed A, transposed B, batch, accumulate
    (64, 128, 64, False, False, 0, False),
    (37, 100, 75, False, False, 0, False),   # odd K, N = 100, M % 6 != 0
    (13, 80, 33, False, False, 0, True),     # 16-wide panels, accumulating C
    (5, 17, 1, False, False, 0, False),      # K = 1, N below one panel
    (1, 256, 130, False, False, 0, False),   # one row
    (40, 96, 50, True, False, 0, False),     # A transposed
    (40, 96, 51, False, True, 0, True),      # B transposed, odd K
    (23, 70, 29, True, True, 0, False),      # both transposed
    (30, 64, 48, False, False, 3, False),    # batch_matmul
    (7, 33, 19, False, True, 2, True),       # batch, B transposed, edges
    (256, 256, 256, False, False, 0, False), # threads, several cache tiles
]


@pytest.mark.parametrize("features", FEATURES)
@pytest.mark.parametrize("M,N,K,ta,tb,batch,acc", CASES)
def test_bf16_contraction_matches_numpy(features, M, N, K, ta, tb, batch, acc):
    rng = np.random.default_rng(M * 1000 + N * 10 + K)
    lead = (batch,) if batch else ()
    a = rng.standard_normal(lead + ((K, M) if ta else (M, K))).astype(BF16)
    b = rng.standard_normal(lead + ((N, K) if tb else (K, N))).astype(BF16)
    c = rng.standard_normal(lead + (M, N)).astype(np.float32)
    exe = amp.compile(_module(M, N, K, ta, tb, batch, acc),
                      pipeline=f"amp-cpu-pipeline{{cpu-features={features}}}")
    args = (a, b, c) if acc else (a, b)
    out = np.asarray(exe.invoke("f", *args))
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    if ta:
        a32 = np.swapaxes(a32, -1, -2)
    if tb:
        b32 = np.swapaxes(b32, -1, -2)
    ref = np.matmul(a32.astype(np.float64), b32.astype(np.float64))
    if acc:
        ref = ref + c
    assert out.shape == ref.shape
    # f32 accumulation of K products (exact in f32: bf16 x bf16 fits).
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5 * np.sqrt(K) * 4)


# bf16 NCHW convolutions of the digits CNN's forward, input-gradient and
# weight-gradient shapes and a few edges, against torch in f64: N, C, H, W,
# F, kernel, padding, stride, dilation, accumulate into a given C (a bias
# broadcast). With AVX512-BF16 they take amp-cpu-conv-bf16-dot (im2col in
# VNNI layout, vdpbf16ps); generic: upstream im2col, the FMA path.
CONVS = [
    (64, 1, 8, 8, 16, 3, 1, 1, 1, False),   # K = 9 (odd), P = 64
    (64, 16, 4, 4, 32, 3, 1, 1, 1, True),
    (64, 32, 4, 4, 16, 3, 1, 1, 1, False),
    (16, 64, 6, 6, 32, 4, 0, 1, 1, False),  # weight gradient: p = 9, padded to 16
    (1, 64, 10, 10, 16, 8, 0, 1, 1, True),  # K = 4096, p = 9
    (3, 5, 7, 6, 20, 3, 0, 1, 1, True),     # odd K (45), odd positions
    (2, 3, 11, 9, 7, 3, 1, 2, 1, False),    # stride 2
    (2, 4, 9, 10, 5, 3, 0, 1, 2, True),     # dilation 2
]


@pytest.mark.parametrize("features", FEATURES)
@pytest.mark.parametrize("N,C,H,W,F,R,pad,s,d,acc", CONVS)
def test_bf16_conv_nchw_matches_torch(features, N, C, H, W, F, R, pad, s, d, acc):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(N * 100 + C * 10 + F)
    x = rng.standard_normal((N, C, H + 2 * pad, W + 2 * pad)).astype(BF16)
    w = rng.standard_normal((F, C, R, R)).astype(BF16)
    OH = (H + 2 * pad - d * (R - 1) - 1) // s + 1
    OW = (W + 2 * pad - d * (R - 1) - 1) // s + 1
    c = rng.standard_normal((N, F, OH, OW)).astype(np.float32)
    xs, ws, os_ = (f"{N}x{C}x{H + 2 * pad}x{W + 2 * pad}", f"{F}x{C}x{R}x{R}",
                   f"{N}x{F}x{OH}x{OW}")
    if acc:
        args, init = f", %c: tensor<{os_}xf32>", ""
    else:
        args = ""
        init = (f"  %z = arith.constant 0.0 : f32\n  %e = tensor.empty() : tensor<{os_}xf32>\n"
                f"  %c = linalg.fill ins(%z : f32) outs(%e : tensor<{os_}xf32>) -> tensor<{os_}xf32>\n")
    src = (f"func.func @f(%x: tensor<{xs}xbf16>, %w: tensor<{ws}xbf16>{args}) -> tensor<{os_}xf32> {{\n"
           f"{init}"
           f"  %r = linalg.conv_2d_nchw_fchw {{dilations = dense<{d}> : vector<2xi64>, strides = "
           f"dense<{s}> : vector<2xi64>}} ins(%x, %w : tensor<{xs}xbf16>, tensor<{ws}xbf16>) "
           f"outs(%c : tensor<{os_}xf32>) -> tensor<{os_}xf32>\n"
           f"  return %r : tensor<{os_}xf32>\n}}\n")
    exe = amp.compile(src, pipeline=f"amp-cpu-pipeline{{cpu-features={features}}}")
    out = np.asarray(exe.invoke("f", x, w, c) if acc else exe.invoke("f", x, w))
    ref = torch.nn.functional.conv2d(torch.from_numpy(x.astype(np.float64)),
                                     torch.from_numpy(w.astype(np.float64)),
                                     stride=s, dilation=d).numpy()
    if acc:
        ref = ref + c
    assert out.shape == ref.shape
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5 * np.sqrt(C * R * R) * 4)


def _cast_weight_module(M, N, K):
    """A Linear's forward and input gradient under autocast: the f32 weight
    W (N x K) cast to bf16 in the module and read by y = x @ W^T and
    dx = dy @ W (on AVX512-BF16 both VNNI packs read the f32 W and round it
    themselves: no bf16 copy of W)."""
    maps_nt = ("indexing_maps = [affine_map<(m, n, k) -> (m, k)>, "
               "affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]")
    id2 = "affine_map<(d0, d1) -> (d0, d1)>"
    return f"""
func.func @f(%x: tensor<{M}x{K}xbf16>, %dy: tensor<{M}x{N}xbf16>, %w: tensor<{N}x{K}xf32>)
    -> (tensor<{M}x{N}xf32>, tensor<{M}x{K}xf32>) {{
  %e = tensor.empty() : tensor<{N}x{K}xbf16>
  %wb = linalg.generic {{indexing_maps = [{id2}, {id2}], iterator_types = ["parallel", "parallel"]}}
      ins(%w : tensor<{N}x{K}xf32>) outs(%e : tensor<{N}x{K}xbf16>) {{
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  }} -> tensor<{N}x{K}xbf16>
  %z = arith.constant 0.0 : f32
  %ey = tensor.empty() : tensor<{M}x{N}xf32>
  %cy = linalg.fill ins(%z : f32) outs(%ey : tensor<{M}x{N}xf32>) -> tensor<{M}x{N}xf32>
  %y = linalg.matmul {maps_nt} ins(%x, %wb : tensor<{M}x{K}xbf16>, tensor<{N}x{K}xbf16>)
      outs(%cy : tensor<{M}x{N}xf32>) -> tensor<{M}x{N}xf32>
  %ex = tensor.empty() : tensor<{M}x{K}xf32>
  %cx = linalg.fill ins(%z : f32) outs(%ex : tensor<{M}x{K}xf32>) -> tensor<{M}x{K}xf32>
  %dx = linalg.matmul ins(%dy, %wb : tensor<{M}x{N}xbf16>, tensor<{N}x{K}xbf16>)
      outs(%cx : tensor<{M}x{K}xf32>) -> tensor<{M}x{K}xf32>
  return %y, %dx : tensor<{M}x{N}xf32>, tensor<{M}x{K}xf32>
}}
"""


CAST_CASES = [
    # M, N, K
    (64, 128, 64),
    (37, 100, 75),     # odd K (padded pairs: the pack reads the bf16 cast)
    (13, 80, 48),      # 16-wide panels, K/2 not a multiple of 8
    (1, 256, 130),     # one row
    (40, 1, 32),       # N = 1: M x 1 output
    (24, 64, 1),       # K = 1
    (256, 1024, 512),  # the MLP's shapes: threads, several cache tiles
]


@pytest.mark.parametrize("features", FEATURES)
@pytest.mark.parametrize("M,N,K", CAST_CASES)
def test_cast_weight_packs_match_numpy(features, M, N, K):
    rng = np.random.default_rng(M * 7 + N * 3 + K)
    x = rng.standard_normal((M, K)).astype(BF16)
    dy = rng.standard_normal((M, N)).astype(BF16)
    w = rng.standard_normal((N, K)).astype(np.float32)
    exe = amp.compile(_cast_weight_module(M, N, K),
                      pipeline=f"amp-cpu-pipeline{{cpu-features={features}}}")
    y, dx = (np.asarray(r) for r in exe.invoke("f", x, dy, w))
    # The cast rounds to nearest even, as ml_dtypes does.
    wb = w.astype(BF16).astype(np.float64)
    ref_y = x.astype(np.float64) @ wb.T
    ref_dx = dy.astype(np.float64) @ wb
    np.testing.assert_allclose(y, ref_y, rtol=1e-5, atol=1e-5 * np.sqrt(K) * 4)
    np.testing.assert_allclose(dx, ref_dx, rtol=1e-5, atol=1e-5 * np.sqrt(N) * 4)
