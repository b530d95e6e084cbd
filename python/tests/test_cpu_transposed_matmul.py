"""Transposed contraction operands as torch-mlir writes them (a
linalg.transpose feeding linalg.matmul / batch_matmul: a Linear's x @ W^T,
the weight gradient dY^T @ X, attention's backward), which
amp-fold-transpose-into-contraction folds into the contraction's indexing
maps, against numpy: f32, and bf16 inputs with f32 accumulation, on both
gemm paths (codegen: the packed FMA tiles and, on an AVX512-BF16 CPU, the
VNNI tiles; onednn: strided memory descriptors). Sizes reach the packed
paths (B of 256 KiB and more) and the parallel tiling. A cast fused with the
transpose (one generic) folds too. bf16 on oneDNN needs AVX-512 (skipped
with the reason elsewhere).
"""
import numpy as np
import pytest

import amp_mlir as amp
from amp_mlir.runtime import numpy_dtype
from host_cpu import cpu_flags

FLAGS = cpu_flags()
AVX512 = {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= FLAGS
BF16 = numpy_dtype("bf16")

GEMMS = [
    "codegen",
    pytest.param("onednn", marks=pytest.mark.skipif(
        not amp.cpu_has_onednn(), reason="the CPU runtime was built without oneDNN")),
]


def _module(M, N, K, form, T, batch=0):
    """``form``: ``nt`` (B given as N x K, transposed by a linalg.transpose),
    ``tn`` (A given as K x M), ``tt`` (both)."""
    b = f"{batch}x" if batch else ""
    perm = "[0, 2, 1]" if batch else "[1, 0]"
    a_shape = f"{b}{K}x{M}" if form[0] == "t" else f"{b}{M}x{K}"
    b_shape = f"{b}{N}x{K}" if form[1] == "t" else f"{b}{K}x{N}"
    c = f"{b}{M}x{N}"
    lines = [f"func.func @f(%a: tensor<{a_shape}x{T}>, %b: tensor<{b_shape}x{T}>) -> tensor<{c}xf32> {{",
             "  %z = arith.constant 0.0 : f32"]
    A, B = "%a", "%b"
    if form[0] == "t":
        lines += [f"  %ea = tensor.empty() : tensor<{b}{M}x{K}x{T}>",
                  f"  %at = linalg.transpose ins(%a : tensor<{a_shape}x{T}>) "
                  f"outs(%ea : tensor<{b}{M}x{K}x{T}>) permutation = {perm}"]
        A = "%at"
    if form[1] == "t":
        lines += [f"  %eb = tensor.empty() : tensor<{b}{K}x{N}x{T}>",
                  f"  %bt = linalg.transpose ins(%b : tensor<{b_shape}x{T}>) "
                  f"outs(%eb : tensor<{b}{K}x{N}x{T}>) permutation = {perm}"]
        B = "%bt"
    op = "linalg.batch_matmul" if batch else "linalg.matmul"
    lines += [f"  %e = tensor.empty() : tensor<{c}xf32>",
              f"  %c = linalg.fill ins(%z : f32) outs(%e : tensor<{c}xf32>) -> tensor<{c}xf32>",
              f"  %r = {op} ins({A}, {B} : tensor<{b}{M}x{K}x{T}>, tensor<{b}{K}x{N}x{T}>) "
              f"outs(%c : tensor<{c}xf32>) -> tensor<{c}xf32>",
              f"  return %r : tensor<{c}xf32>", "}"]
    return "\n".join(lines)


CASES = [
    # M, N, K, form, batch
    (256, 512, 256, "nt", 0),    # x @ W^T, B packed (512 KiB f32)
    (512, 256, 128, "tn", 0),    # dY^T @ X
    (130, 200, 96, "tt", 0),     # both, edges of every tile
    (1, 64, 33, "nt", 0),        # one row, odd K
    (40, 48, 36, "tn", 3),       # attention's backward: batch, A^T
    (17, 64, 50, "nt", 2),       # batch, B^T
]


@pytest.mark.parametrize("gemm", GEMMS)
@pytest.mark.parametrize("T", ["f32", "bf16"])
@pytest.mark.parametrize("M,N,K,form,batch", CASES)
def test_transposed_operand_matches_numpy(gemm, T, M, N, K, form, batch):
    if T == "bf16" and gemm == "onednn" and not AVX512:
        pytest.skip("needs AVX-512 (oneDNN's bf16 matmul; elsewhere codegen takes it)")
    rng = np.random.default_rng(M * 7 + N * 3 + K)
    dt = np.float32 if T == "f32" else BF16
    lead = (batch,) if batch else ()
    a = rng.standard_normal(lead + ((K, M) if form[0] == "t" else (M, K))).astype(dt)
    b = rng.standard_normal(lead + ((N, K) if form[1] == "t" else (K, N))).astype(dt)
    text = _module(M, N, K, form, T, batch)
    exe = amp.compile(text, pipeline=f"amp-cpu-pipeline{{gemm={gemm}}}")
    out = np.asarray(exe.invoke("f", a, b))
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    if form[0] == "t":
        a64 = np.swapaxes(a64, -1, -2)
    if form[1] == "t":
        b64 = np.swapaxes(b64, -1, -2)
    ref = np.matmul(a64, b64)
    assert out.shape == ref.shape
    # f32 accumulation of K exact products (bf16 x bf16 fits in f32).
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5 * np.sqrt(K) * 4)


def test_fold_leaves_no_transposed_copy():
    """x @ W^T and dY^T @ X after the fold: no linalg.transpose, the
    transposed-operand maps instead."""
    for form, needle in [("nt", "affine_map<(d0, d1, d2) -> (d1, d2)>"),
                         ("tn", "affine_map<(d0, d1, d2) -> (d2, d0)>")]:
        m = amp.Context().parse(_module(256, 512, 256, form, "f32"))
        m.run_pipeline("func.func(amp-fold-transpose-into-contraction)")
        text = str(m)
        assert "linalg.transpose" not in text
        assert needle in text


def test_cast_fused_with_transpose_is_split_and_folded():
    """A generic that casts and transposes at once (f32 W -> bf16 W^T): the
    cast stays in W's order, the permutation goes into B's map."""
    text = """
#tr = affine_map<(d0, d1) -> (d1, d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @f(%x: tensor<64x96xbf16>, %w: tensor<80x96xf32>) -> tensor<64x80xf32> {
  %e = tensor.empty() : tensor<96x80xbf16>
  %t = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
       ins(%w : tensor<80x96xf32>) outs(%e : tensor<96x80xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %c = arith.truncf %in : f32 to bf16
    linalg.yield %c : bf16
  } -> tensor<96x80xbf16>
  %z = arith.constant 0.0 : f32
  %ce = tensor.empty() : tensor<64x80xf32>
  %c = linalg.fill ins(%z : f32) outs(%ce : tensor<64x80xf32>) -> tensor<64x80xf32>
  %r = linalg.matmul ins(%x, %t : tensor<64x96xbf16>, tensor<96x80xbf16>) outs(%c : tensor<64x80xf32>) -> tensor<64x80xf32>
  return %r : tensor<64x80xf32>
}
"""
    m = amp.Context().parse(text)
    m.run_pipeline("func.func(amp-fold-transpose-into-contraction)")
    assert "linalg.transpose" not in str(m)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((64, 96)).astype(BF16)
    w = rng.standard_normal((80, 96)).astype(np.float32)
    for gemm in ["codegen"] + (["onednn"] if amp.cpu_has_onednn() and AVX512 else []):
        exe = amp.compile(text, pipeline=f"amp-cpu-pipeline{{gemm={gemm}}}")
        ref = x.astype(np.float64) @ w.astype(BF16).astype(np.float64).T
        np.testing.assert_allclose(np.asarray(exe.invoke("f", x, w)), ref, rtol=1e-5, atol=1e-3)


@pytest.mark.parametrize("gemm", GEMMS)
def test_linear_training_step_folds_transposes_and_matches_pytorch(gemm):
    """A Linear MLP's training step (momentum SGD, f32): every transpose
    torch-mlir writes around its matmuls (W^T forward, dY^T for the weight
    gradients) is folded, and two steps match PyTorch's."""
    torch = pytest.importorskip("torch")
    import torch.nn.functional as F
    from amp_mlir.torch import compile_train_step

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(96, 256), torch.nn.GELU(),
                                torch.nn.Linear(256, 512), torch.nn.ReLU(),
                                torch.nn.Linear(512, 10))
    ref = torch.nn.Sequential(*[type(m)(*([m.in_features, m.out_features]
                                          if isinstance(m, torch.nn.Linear) else []))
                                for m in model])
    ref.load_state_dict(model.state_dict())
    x, y = torch.randn(128, 96), torch.randint(0, 10, (128,))

    def loss_fn(m, x, y):
        return F.cross_entropy(m(x), y)

    step = compile_train_step(model, loss_fn, torch.optim.SGD(model.parameters(), lr=0.05,
                                                              momentum=0.9),
                              (x, y), gemm=gemm)
    m = amp.Context().parse(step.mlir)
    m.run_pipeline("inline,func.func(amp-fold-transpose-into-contraction)")
    text = str(m)
    assert text.count("linalg.matmul") >= 8
    assert "linalg.transpose" not in text
    opt = torch.optim.SGD(ref.parameters(), lr=0.05, momentum=0.9)
    for _ in range(2):
        loss = step(x, y)
        opt.zero_grad()
        ref_loss = loss_fn(ref, x, y)
        ref_loss.backward()
        opt.step()
        assert abs(loss - ref_loss.item()) <= 1e-4 * abs(ref_loss.item())
    step.sync()
    for p, q in zip(model.parameters(), ref.parameters()):
        np.testing.assert_allclose(p.detach().numpy(), q.detach().numpy(), rtol=1e-4, atol=1e-5)
