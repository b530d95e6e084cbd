"""amp-cpu-pipeline{gemm=onednn}: contractions and convolutions on the CPU
runtime's oneDNN primitives, against numpy (f32 and bf16 inputs with f32
accumulation), the remark when a case stays on code generation, and the
bf16-emulation remark on a CPU without bf16 arithmetic.

The bf16 oneDNN path needs AVX-512 (the ``avx512`` mark); elsewhere the same
bf16 tests check that code generation takes over with a remark.
"""
import numpy as np
import pytest

import amp_mlir as amp
from amp_mlir.runtime import numpy_dtype
from host_cpu import cpu_flags


FLAGS = cpu_flags()
AVX512 = {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= FLAGS
avx512 = pytest.mark.skipif(not AVX512, reason="needs AVX-512 (oneDNN's bf16 matmul)")
onednn = pytest.mark.skipif(not amp.cpu_has_onednn(),
                            reason="the CPU runtime was built without oneDNN")

MATMUL = """
func.func @f(%a: tensor<{M}x{K}x{T}>, %b: tensor<{K}x{N}x{T}>) -> tensor<{M}x{N}xf32> {{
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{M}x{N}xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<{M}x{N}xf32>) -> tensor<{M}x{N}xf32>
  %r = linalg.matmul ins(%a, %b : tensor<{M}x{K}x{T}>, tensor<{K}x{N}x{T}>) outs(%c : tensor<{M}x{N}xf32>) -> tensor<{M}x{N}xf32>
  return %r : tensor<{M}x{N}xf32>
}}
"""

MATMUL_BT_ACC = """
func.func @f(%a: tensor<{M}x{K}xf32>, %bt: tensor<{N}x{K}xf32>, %c: tensor<{M}x{N}xf32>) -> tensor<{M}x{N}xf32> {{
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
       ins(%a, %bt : tensor<{M}x{K}xf32>, tensor<{N}x{K}xf32>) outs(%c : tensor<{M}x{N}xf32>) -> tensor<{M}x{N}xf32>
  return %r : tensor<{M}x{N}xf32>
}}
"""

BATCH = """
func.func @f(%a: tensor<{B}x{M}x{K}xf32>, %b: tensor<{B}x{K}x{N}xf32>) -> tensor<{B}x{M}x{N}xf32> {{
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{B}x{M}x{N}xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<{B}x{M}x{N}xf32>) -> tensor<{B}x{M}x{N}xf32>
  %r = linalg.batch_matmul ins(%a, %b : tensor<{B}x{M}x{K}xf32>, tensor<{B}x{K}x{N}xf32>) outs(%c : tensor<{B}x{M}x{N}xf32>) -> tensor<{B}x{M}x{N}xf32>
  return %r : tensor<{B}x{M}x{N}xf32>
}}
"""

CONV = """
func.func @f(%i: tensor<2x3x17x17xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<2x8x8x8xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x8x8xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
       ins(%i, %w : tensor<2x3x17x17xf32>, tensor<8x3x3x3xf32>) outs(%c : tensor<2x8x8x8xf32>) -> tensor<2x8x8x8xf32>
  return %r : tensor<2x8x8x8xf32>
}
"""

RNG = np.random.default_rng(7)


def _compile(text, features="host"):
    ctx = amp.Context()
    exe = amp.compile(text, pipeline=f"amp-cpu-pipeline{{gemm=onednn cpu-features={features}}}",
                      context=ctx)
    return exe, ctx


ENTRY_POINTS = ["ampOnednnMatmul_f32_f32_f32", "ampOnednnMatmul_bf16_bf16_f32",
                "ampOnednnConv2dNchwFchw_f32_f32_f32", "ampOnednnConv2dNchwFchw_bf16_bf16_f32",
                "ampOnednnConv2dBf16_f32_f32_f32", "ampOnednnConv2dBf16_f32_bf16_f32",
                "ampOnednnConv2dBf16_bf16_f32_f32", "ampOnednnConv2dBf16_f32_f32_bf16"]


def _lowered_calls(text, features="host"):
    """The runtime entry points the lowered module declares."""
    m = amp.Context().parse(text)
    m.run_pipeline(f"amp-cpu-pipeline{{gemm=onednn cpu-features={features}}}")
    return {name for name in ENTRY_POINTS
            if m.function_attribute(name, "sym_name") is not None}


@onednn
@pytest.mark.parametrize("m,n,k", [(64, 48, 32), (5, 7, 3), (128, 256, 96)])
def test_matmul_f32(m, n, k):
    a = RNG.standard_normal((m, k)).astype(np.float32)
    b = RNG.standard_normal((k, n)).astype(np.float32)
    text = MATMUL.format(M=m, N=n, K=k, T="f32")
    assert _lowered_calls(text) == {"ampOnednnMatmul_f32_f32_f32"}
    exe, _ = _compile(text)
    np.testing.assert_allclose(exe.invoke("f", a, b), a @ b, rtol=1e-5, atol=1e-4)


@onednn
def test_matmul_transposed_b_accumulates():
    m, n, k = 16, 24, 40
    a = RNG.standard_normal((m, k)).astype(np.float32)
    bt = RNG.standard_normal((n, k)).astype(np.float32)
    c = RNG.standard_normal((m, n)).astype(np.float32)
    exe, _ = _compile(MATMUL_BT_ACC.format(M=m, N=n, K=k))
    c_before = c.copy()
    np.testing.assert_allclose(exe.invoke("f", a, bt, c), c + a @ bt.T, rtol=1e-5, atol=1e-4)
    np.testing.assert_array_equal(c, c_before)  # the caller's accumulator is not written


@onednn
def test_batch_matmul_f32():
    bsz, m, n, k = 3, 32, 16, 24
    a = RNG.standard_normal((bsz, m, k)).astype(np.float32)
    b = RNG.standard_normal((bsz, k, n)).astype(np.float32)
    exe, _ = _compile(BATCH.format(B=bsz, M=m, N=n, K=k))
    np.testing.assert_allclose(exe.invoke("f", a, b), a @ b, rtol=1e-5, atol=1e-4)


@onednn
def test_conv_f32():
    x = RNG.standard_normal((2, 3, 17, 17)).astype(np.float32)
    w = RNG.standard_normal((8, 3, 3, 3)).astype(np.float32)
    assert _lowered_calls(CONV) == {"ampOnednnConv2dNchwFchw_f32_f32_f32"}
    exe, _ = _compile(CONV)
    ref = np.zeros((2, 8, 8, 8), np.float32)
    for i in range(3):
        for j in range(3):
            patch = x[:, :, i:i + 16:2, j:j + 16:2]  # 2 x 3 x 8 x 8
            ref += np.einsum("nchw,fc->nfhw", patch, w[:, :, i, j])
    np.testing.assert_allclose(exe.invoke("f", x, w), ref, rtol=1e-4, atol=1e-4)


# A convolution as torch-mlir exports nn.Conv2d(5, 7, 3, stride=2, padding=1)
# (odd channels, stride and padding; the padding a tensor.pad), given bf16
# operands: fp32 accumulation into an f32 output.
CONV_BF16 = """
func.func @f(%i: tensor<2x5x13x11xbf16>, %w: tensor<7x5x3x3xbf16>) -> tensor<2x7x7x6xf32> {
  %z = arith.constant 0.0 : f32
  %zb = arith.constant 0.0 : bf16
  %p = tensor.pad %i low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zb : bf16
  } : tensor<2x5x13x11xbf16> to tensor<2x5x15x13xbf16>
  %e = tensor.empty() : tensor<2x7x7x6xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<2x7x7x6xf32>) -> tensor<2x7x7x6xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
       ins(%p, %w : tensor<2x5x15x13xbf16>, tensor<7x5x3x3xbf16>) outs(%c : tensor<2x7x7x6xf32>) -> tensor<2x7x7x6xf32>
  return %r : tensor<2x7x7x6xf32>
}
"""

# The same convolution in f32 in an autocast region (amp-autocast makes it
# bf16 x bf16 -> f32, its result rounded to bf16).
CONV_AUTOCAST = CONV_BF16.replace("xbf16", "xf32").replace(": bf16", ": f32").replace(
    "-> tensor<2x7x7x6xf32> {", "-> tensor<2x7x7x6xf32> attributes {amp.autocast = #amp.autocast<device_type = cpu>} {", 1)


def _conv_ref(x, w, stride=2, pad=1):
    """conv2d (NCHW, FCHW) in float64 with zero padding."""
    x = np.pad(np.asarray(x, np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    w = np.asarray(w, np.float64)
    f, _, kh, kw = w.shape
    oh = (x.shape[2] - kh) // stride + 1
    ow = (x.shape[3] - kw) // stride + 1
    ref = np.zeros((x.shape[0], f, oh, ow))
    for i in range(kh):
        for j in range(kw):
            patch = x[:, :, i:i + stride * (oh - 1) + 1:stride, j:j + stride * (ow - 1) + 1:stride]
            ref += np.einsum("nchw,fc->nfhw", patch, w[:, :, i, j])
    return ref


def _conv_bf16_case():
    bf16 = numpy_dtype("bf16")
    x = RNG.standard_normal((2, 5, 13, 11)).astype(np.float32)
    w = RNG.standard_normal((7, 5, 3, 3)).astype(np.float32)
    return x, w, x.astype(bf16), w.astype(bf16)


@onednn
@avx512
def test_conv_bf16_f32_accumulation_on_onednn():
    _, _, xb, wb = _conv_bf16_case()
    assert _lowered_calls(CONV_BF16) == {"ampOnednnConv2dNchwFchw_bf16_bf16_f32"}
    exe, _ = _compile(CONV_BF16)
    # The products of bf16 values are exact in f32: only the accumulation
    # order differs from the float64 reference.
    ref = _conv_ref(xb.astype(np.float32), wb.astype(np.float32))
    np.testing.assert_allclose(exe.invoke("f", xb, wb), ref, rtol=1e-5, atol=1e-4)


@onednn
def test_padded_conv_f32_on_onednn():
    """torch-mlir's tensor.pad folded into the oneDNN call (top/left padding
    passed, bottom/right from the shapes) gives PyTorch's padded conv."""
    x, w, _, _ = _conv_bf16_case()
    text = CONV_AUTOCAST.replace(
        " attributes {amp.autocast = #amp.autocast<device_type = cpu>}", "")
    assert _lowered_calls(text) == {"ampOnednnConv2dNchwFchw_f32_f32_f32"}
    exe, _ = _compile(text)
    np.testing.assert_allclose(exe.invoke("f", x, w), _conv_ref(x, w), rtol=1e-4, atol=1e-4)


@onednn
@avx512
def test_conv_bf16_without_onednn_implementation_runs_reference_loop_with_remark():
    """Where oneDNN has no bf16 convolution at run time (here: oneDNN capped
    to AVX2 with DNNL_MAX_CPU_ISA, in a child process: oneDNN reads it once),
    the call says so once on stderr and computes with the reference loop,
    padding included: same numbers, no crash."""
    import os
    import subprocess
    import sys
    child = (
        "import numpy as np, test_cpu_onednn as t\n"
        "_, _, xb, wb = t._conv_bf16_case()\n"
        "exe, _ = t._compile(t.CONV_BF16)\n"
        "ref = t._conv_ref(xb.astype(np.float32), wb.astype(np.float32))\n"
        "np.testing.assert_allclose(exe.invoke('f', xb, wb), ref, rtol=1e-5, atol=1e-4)\n"
        "print('numbers ok')\n")
    env = dict(os.environ, DNNL_MAX_CPU_ISA="AVX2")
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(__file__),
                                         os.path.dirname(amp.__path__[0])])
    out = subprocess.run([sys.executable, "-c", child], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "numbers ok" in out.stdout
    assert ("remark: ampOnednnConv2dNchwFchw bf16 x bf16 -> f32: no oneDNN implementation "
            "on this CPU; computed with a reference loop") in out.stderr


def test_conv_bf16_generic_cpu_falls_back_to_codegen_with_a_remark():
    _, _, xb, wb = _conv_bf16_case()
    assert _lowered_calls(CONV_BF16, features="generic") == set()
    exe, ctx = _compile(CONV_BF16, features="generic")
    remarks = " ".join(str(w) for w in ctx.warnings)
    assert ("stays on code generation: oneDNN has no bf16 convolution on a CPU without "
            "AVX-512") in remarks
    ref = _conv_ref(xb.astype(np.float32), wb.astype(np.float32))
    np.testing.assert_allclose(exe.invoke("f", xb, wb), ref, rtol=1e-5, atol=1e-4)


def test_conv_autocast_against_pytorch_f32():
    """The f32 convolution under autocast on this host (oneDNN's bf16
    convolution with AVX-512, code generation without) against PyTorch's f32
    conv2d: bf16 inputs and output, so a bf16 tolerance."""
    torch = pytest.importorskip("torch")
    x, w, _, _ = _conv_bf16_case()
    # The casts of the input and the filter to bf16 are folded into the call,
    # and the rounding of its output (oneDNN writes bf16).
    expected = {"ampOnednnConv2dBf16_f32_f32_bf16"} if AVX512 else set()
    assert _lowered_calls(CONV_AUTOCAST) == expected
    exe, _ = _compile(CONV_AUTOCAST)
    ref = torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), stride=2,
                                     padding=1).numpy()
    got = np.asarray(exe.invoke("f", x, w), np.float32)
    np.testing.assert_allclose(got, ref, rtol=2e-2, atol=5e-2)
    assert np.linalg.norm(got - ref) / np.linalg.norm(ref) < 1e-2


def _bf16_case(m=48, n=40, k=64):
    bf16 = numpy_dtype("bf16")
    a = RNG.standard_normal((m, k)).astype(bf16)
    b = RNG.standard_normal((k, n)).astype(bf16)
    # fp32 accumulation of the exact bf16 products.
    ref = a.astype(np.float32) @ b.astype(np.float32)
    return a, b, ref, MATMUL.format(M=m, N=n, K=k, T="bf16")


@onednn
@avx512
def test_matmul_bf16_f32_accumulation_on_onednn():
    a, b, ref, text = _bf16_case()
    assert _lowered_calls(text) == {"ampOnednnMatmul_bf16_bf16_f32"}
    exe, _ = _compile(text)
    np.testing.assert_allclose(exe.invoke("f", a, b), ref, rtol=1e-5, atol=1e-4)


def test_matmul_bf16_generic_cpu_falls_back_to_codegen_with_a_remark():
    a, b, ref, text = _bf16_case()
    assert _lowered_calls(text, features="generic") == set()
    exe, ctx = _compile(text, features="generic")
    remarks = " ".join(str(w) for w in ctx.warnings)
    assert "stays on code generation: oneDNN has no bf16 matmul on a CPU without AVX-512" in remarks
    assert "bf16 compute is emulated" in remarks
    np.testing.assert_allclose(exe.invoke("f", a, b), ref, rtol=1e-5, atol=1e-4)


def test_bf16_remark_only_without_bf16_arithmetic():
    _, _, _, text = _bf16_case()
    for features, said in (("generic", True), ("avx512bf16", False)):
        ctx = amp.Context()
        amp.compile(text, pipeline=f"amp-cpu-pipeline{{cpu-features={features}}}", context=ctx)
        remarks = " ".join(str(w) for w in ctx.warnings)
        assert ("this CPU has no bf16 arithmetic" in remarks) == said, features


def test_bad_gemm_option_is_an_error():
    with pytest.raises(amp.MLIRError, match="gemm must be codegen or onednn, got 'blas'"):
        amp.compile(MATMUL.format(M=4, N=4, K=4, T="f32"), pipeline="amp-cpu-pipeline{gemm=blas}")


# --- blocked layouts and the runtime's reordered-weight cache (issue 28) ---

def _conv_calls(text, args, runs, env):
    """The outputs of `runs(exe, args)` in a child process with `env` (oneDNN
    and the runtime read their environment once per process)."""
    import os
    import pickle
    import subprocess
    import sys
    child = (
        "import pickle, sys, numpy as np, test_cpu_onednn as t\n"
        "text, args, runs = pickle.load(sys.stdin.buffer)\n"
        "exe, _ = t._compile(text)\n"
        "outs = t._RUNS[runs](exe, args)\n"
        "sys.stdout.buffer.write(pickle.dumps([np.asarray(o, np.float32) for o in outs]))\n")
    full = dict(os.environ, **env)
    full["PYTHONPATH"] = os.pathsep.join([os.path.dirname(__file__),
                                          os.path.dirname(amp.__path__[0])])
    out = subprocess.run([sys.executable, "-c", child], env=full, capture_output=True,
                         input=pickle.dumps((text, args, runs)), timeout=300)
    assert out.returncode == 0, out.stderr.decode()[-2000:]
    return pickle.loads(out.stdout), out.stderr.decode()


def _weight_changes(exe, args):
    """Calls with the weight changed in place between them (same buffer, so
    the same address), then a fresh array with the first values again."""
    x, w = args
    outs = [exe.invoke("f", x, w), exe.invoke("f", x, w)]
    w0 = w.copy()
    w *= -0.5
    w[0, 0, 0, 0] += 1.0
    outs.append(exe.invoke("f", x, w))
    w[...] = w0
    outs.append(exe.invoke("f", x, w))
    outs.append(exe.invoke("f", x, w0.copy()))
    return outs


_RUNS = {"weight_changes": _weight_changes}


@onednn
@pytest.mark.parametrize("layout", ["blocked", "plain"])
@pytest.mark.parametrize("autocast", [False, True])
def test_conv_weight_changed_between_calls_gives_new_answer(layout, autocast):
    """The runtime keeps a convolution's weights reordered into oneDNN's
    blocked layout between calls, keyed by a hash of the caller's bytes: a
    weight written in place between two calls (same address) gives the new
    answer, the old values again the old one, in f32 and with autocast's
    casts folded into the call (bf16 on AVX-512); with plain layouts (no
    reorder) the same numbers."""
    if autocast and not AVX512:
        pytest.skip("the bf16 convolution runs on code generation without AVX-512")
    x, w, _, _ = _conv_bf16_case()
    text = CONV_AUTOCAST if autocast else CONV_AUTOCAST.replace(
        " attributes {amp.autocast = #amp.autocast<device_type = cpu>}", "")
    outs, _ = _conv_calls(text, (x, w), "weight_changes", {"AMP_ONEDNN_CONV_LAYOUT": layout})
    w2 = w * -0.5
    w2[0, 0, 0, 0] += 1.0
    bf16 = numpy_dtype("bf16")
    r = (lambda a: a.astype(bf16).astype(np.float32)) if autocast else (lambda a: a)
    tol = dict(rtol=1e-2, atol=1e-2) if autocast else dict(rtol=1e-4, atol=1e-4)
    first, second = _conv_ref(r(x), r(w)), _conv_ref(r(x), r(w2))
    for got, want in zip(outs, [first, first, second, first, first]):
        np.testing.assert_allclose(got, want, **tol)
    assert np.abs(second - first).max() > 1.0  # the change is visible
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_array_equal(outs[0], outs[3])
    np.testing.assert_array_equal(outs[0], outs[4])


@onednn
def test_conv_blocked_f32_on_avx2_same_numbers():
    """oneDNN capped to AVX2 (DNNL_MAX_CPU_ISA): the f32 convolutions still
    take blocked layouts (nChw8c) and give the same numbers as plain ones."""
    x, w, _, _ = _conv_bf16_case()
    text = CONV_AUTOCAST.replace(" attributes {amp.autocast = #amp.autocast<device_type = cpu>}", "")
    outs, err = _conv_calls(text, (x, w), "weight_changes", {"DNNL_MAX_CPU_ISA": "AVX2"})
    assert "reference loop" not in err
    np.testing.assert_allclose(outs[0], _conv_ref(x, w), rtol=1e-4, atol=1e-4)


@onednn
@pytest.mark.parametrize("value", ["abc", "-5", "64MB", "1e3"])
def test_bad_weight_cache_budget_warns_once_and_uses_the_default(value):
    """AMP_ONEDNN_WEIGHT_CACHE_MB that is no whole number of MiB (a word, a
    negative number, a unit, an exponent) is said once on stderr, naming
    the variable and the value, and the default budget is used (it read
    as 0, cache off, before): same numbers as the default, blocked layouts
    kept (the weight-change sequence gives the new answers)."""
    x, w, _, _ = _conv_bf16_case()
    text = CONV_AUTOCAST.replace(" attributes {amp.autocast = #amp.autocast<device_type = cpu>}", "")
    outs, err = _conv_calls(text, (x, w), "weight_changes", {"AMP_ONEDNN_WEIGHT_CACHE_MB": value})
    want = (f"amp-cpu-runtime: warning: AMP_ONEDNN_WEIGHT_CACHE_MB must be a whole number "
            f"of MiB (0 turns the cache off), got '{value}'; using the default, 512")
    assert err.count(want) == 1, err
    default, err = _conv_calls(text, (x, w), "weight_changes", {})
    assert "AMP_ONEDNN_WEIGHT_CACHE_MB" not in err
    for got, ref in zip(outs, default):
        np.testing.assert_array_equal(got, ref)
    np.testing.assert_allclose(outs[0], _conv_ref(x, w), rtol=1e-4, atol=1e-4)


@onednn
@pytest.mark.parametrize("value", ["0", " 16 "])
def test_weight_cache_budget_numbers_are_taken_silently(value):
    """0 (cache off) and a number with surrounding blanks are valid: no
    warning, the same numbers."""
    x, w, _, _ = _conv_bf16_case()
    text = CONV_AUTOCAST.replace(" attributes {amp.autocast = #amp.autocast<device_type = cpu>}", "")
    outs, err = _conv_calls(text, (x, w), "weight_changes", {"AMP_ONEDNN_WEIGHT_CACHE_MB": value})
    assert "AMP_ONEDNN_WEIGHT_CACHE_MB" not in err, err
    np.testing.assert_allclose(outs[0], _conv_ref(x, w), rtol=1e-4, atol=1e-4)


def _basic_block(torch, inplanes, planes, stride):
    import torchvision
    down = None
    if stride != 1 or inplanes != planes:
        down = torch.nn.Sequential(torch.nn.Conv2d(inplanes, planes, 1, stride, bias=False),
                                   torch.nn.BatchNorm2d(planes))
    block = torchvision.models.resnet.BasicBlock(inplanes, planes, stride, down)
    for m in block.modules():  # running statistics as after training
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 2.0)
            m.weight.data.uniform_(0.5, 1.5)
            m.bias.data.uniform_(-0.2, 0.2)
    return block.eval()


@onednn
@pytest.mark.parametrize("autocast", [None, ("cpu", "bfloat16")])
@pytest.mark.parametrize("inplanes,planes,stride", [(32, 32, 1), (32, 64, 2)])
def test_resnet_basic_block_on_onednn_matches_pytorch(autocast, inplanes, planes, stride):
    """torchvision's BasicBlock (conv + batch norm + ReLU, conv + batch norm,
    the residual add, with a strided 1x1 downsample) on the oneDNN path in
    its blocked layouts against PyTorch f32, f32 and autocast, two calls
    (the second with the cached weights)."""
    torch = pytest.importorskip("torch")
    import amp_mlir.torch as amp_torch
    torch.manual_seed(0)
    block = _basic_block(torch, inplanes, planes, stride)
    x = torch.randn(2, inplanes, 14, 14)
    with torch.no_grad():
        ref = block(x)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            torch_amp_err = float((block(x).double() - ref.double()).norm() / ref.double().norm())
    fn = amp_torch.compile(block, (x,), autocast=autocast, gemm="onednn", opt_level=1)
    for _ in range(2):
        y = fn(x)
        err = float((y.double() - ref.double()).norm() / ref.double().norm())
        if autocast is None:
            assert err <= 1e-5, err
        else:
            assert 0 < err <= max(1.5 * torch_amp_err, 1e-2), (err, torch_amp_err)


POOL = """
func.func @f(%x: tensor<2x5x13x11x{T}>) -> tensor<2x5x7x6x{T}> {{
  %ninf = arith.constant 0xFF800000 : {T}
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {{
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %ninf : {T}
  }} : tensor<2x5x13x11x{T}> to tensor<2x5x15x13x{T}>
  %w = tensor.empty() : tensor<3x3x{T}>
  %e = tensor.empty() : tensor<2x5x7x6x{T}>
  %c = linalg.fill ins(%ninf : {T}) outs(%e : tensor<2x5x7x6x{T}>) -> tensor<2x5x7x6x{T}>
  %r = linalg.pooling_nchw_max {{dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}}
       ins(%p, %w : tensor<2x5x15x13x{T}>, tensor<3x3x{T}>) outs(%c : tensor<2x5x7x6x{T}>) -> tensor<2x5x7x6x{T}>
  return %r : tensor<2x5x7x6x{T}>
}}
"""


@onednn
@pytest.mark.parametrize("dtype", ["f32", "bf16"])
def test_max_pool_padded_on_onednn_matches_pytorch(dtype):
    """torch-mlir's max_pool2d(3, stride 2, padding 1) (a -inf tensor.pad, a
    -inf filled output) as one oneDNN pooling call, the padding folded in:
    PyTorch's values exactly (a maximum rounds nothing)."""
    torch = pytest.importorskip("torch")
    if dtype == "bf16" and not AVX512:
        pytest.skip("bf16 pooling stays on code generation without AVX-512")
    text = POOL.format(T=dtype).replace("0xFF800000 : bf16", "0xFF80 : bf16")
    ENTRY_POINTS.append(f"ampOnednnPoolNchwMax_{dtype}")
    try:
        assert _lowered_calls(text) == {f"ampOnednnPoolNchwMax_{dtype}"}
    finally:
        ENTRY_POINTS.pop()
    x = RNG.standard_normal((2, 5, 13, 11)).astype(np.float32)
    x[0, 0, :3, :3] = -5.0  # a window of the corner: padding never wins
    if dtype == "bf16":
        x = x.astype(numpy_dtype("bf16"))
    exe, _ = _compile(text)
    got = np.asarray(exe.invoke("f", x), np.float32)
    ref = torch.nn.functional.max_pool2d(torch.from_numpy(np.asarray(x, np.float32)), 3, 2, 1)
    np.testing.assert_array_equal(got, ref.numpy())


# --- post-ops: batch norm, ReLU and the residual add in the convolution ---

class _ConvBnRelu:
    """conv (odd channel counts) + eval batch norm + ReLU, optionally + a
    residual input before the ReLU (torchvision's BasicBlock tail)."""

    @staticmethod
    def build(torch, cin, cout, residual):
        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = torch.nn.Conv2d(cin, cout, 3, 1, 1, bias=False)
                self.bn = torch.nn.BatchNorm2d(cout)

            def forward(self, x, r):
                y = self.bn(self.conv(x))
                return torch.relu(y + r if residual else y)

        m = M()
        m.bn.running_mean.uniform_(-0.5, 0.5)
        m.bn.running_var.uniform_(0.5, 2.0)
        m.bn.weight.data.uniform_(0.5, 1.5)
        m.bn.bias.data.uniform_(-0.2, 0.2)
        return m.eval()


def _compiled_post_ops(module, args, autocast, post_ops):
    """amp_mlir.torch's compiled module with amp-cpu-pipeline{gemm=onednn
    onednn-post-ops=...}, and the oneDNN entry points its lowered IR calls."""
    from amp_mlir.compiler import pipeline_for
    from amp_mlir.torch._compile import CompiledModule, export_module
    exported = export_module(module, args, autocast=autocast)
    pipeline = pipeline_for("cpu", autocast=True, gemm="onednn")
    pipeline = pipeline[:-1] + f" onednn-post-ops={'true' if post_ops else 'false'}}}"
    m = amp.Context().parse(exported.text)
    m.run_pipeline(pipeline)
    names = {f"ampOnednnConv2d{kind}_{a}_{b}_{c}"
             for kind in ("Post", "NchwFchw", "Bf16")
             for a in ("f32", "bf16") for b in ("f32", "bf16") for c in ("f32", "bf16")}
    names |= {f"ampOnednnMatmulPost_{t}_{s}" for t in ("f32_f32_f32", "bf16_bf16_f32",
                                                       "bf16_bf16_bf16")
              for s in ("f32", "bf16")}
    calls = {n for n in names if m.function_attribute(n, "sym_name") is not None}
    exe = amp.compile(exported.text, pipeline=pipeline, opt_level=1)
    return CompiledModule(exported, exe, pipeline, "cpu", 0.0), calls


@onednn
@pytest.mark.parametrize("autocast", [None, ("cpu", "bfloat16")])
@pytest.mark.parametrize("residual", [False, True])
@pytest.mark.parametrize("cin,cout", [(3, 5), (16, 24)])
def test_conv_bn_relu_post_ops_match_unfused_and_pytorch(autocast, residual, cin, cout):
    """Batch norm (eval), the residual add and ReLU folded into the oneDNN
    convolution as post-ops (onednn-post-ops, the default) against the
    same module with them as a loop after the call (onednn-post-ops=false)
    and against PyTorch f32: f32 to 1e-5; autocast within 1.5x
    torch.autocast's own error against f32 (the fused chain reads the f32
    accumulator where the loop read it rounded to bf16: one rounding fewer)
    and within a few bf16 ulps of the unfused result. Odd channel counts
    (3 -> 5: no channel block of 8 or 16 is full), odd spatial sizes."""
    torch = pytest.importorskip("torch")
    if autocast and not AVX512:
        pytest.skip("the bf16 convolution runs on code generation without AVX-512")
    torch.manual_seed(1)
    module = _ConvBnRelu.build(torch, cin, cout, residual)
    x, r = torch.randn(2, cin, 11, 9), torch.randn(2, cout, 11, 9)
    with torch.no_grad():
        ref = module(x, r).double()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            torch_err = float((module(x, r).double() - ref).norm() / ref.norm())
    fused, calls = _compiled_post_ops(module, (x, r), autocast, True)
    unfused, plain = _compiled_post_ops(module, (x, r), autocast, False)
    assert {c for c in calls if "Post" in c}, calls
    assert not {c for c in plain if "Post" in c}, plain
    for _ in range(2):  # the second call with the cached primitive and weights
        y, y0 = fused(x, r).double(), unfused(x, r).double()
        err = float((y - ref).norm() / ref.norm())
        if autocast is None:
            assert err <= 1e-5, err
            np.testing.assert_allclose(y.numpy(), y0.numpy(), rtol=1e-5, atol=1e-5)
        else:
            assert 0 < err <= max(1.5 * torch_err, 1e-2), (err, torch_err)
            # bf16 outputs: at most a couple of ulps (2^-8 relative) apart.
            np.testing.assert_allclose(y.numpy(), y0.numpy(), rtol=2 ** -6, atol=2e-2)
            assert float((y - y0).norm() / y0.norm()) <= 4e-3


def _post_ops_case_output():
    """The fused autocast conv + batch norm + residual + ReLU of the test
    above (16 -> 24 channels) on fixed inputs, as float32 numpy."""
    import torch
    torch.manual_seed(1)
    module = _ConvBnRelu.build(torch, 16, 24, True)
    x, r = torch.randn(2, 16, 11, 9), torch.randn(2, 24, 11, 9)
    fused, calls = _compiled_post_ops(module, (x, r), ("cpu", "bfloat16"), True)
    assert {c for c in calls if "Post" in c}, calls
    return fused(x, r).float().numpy()


@onednn
@avx512
def test_conv_post_ops_without_onednn_implementation_apply_them_in_a_loop():
    """Where oneDNN has no implementation for a fused call at run time
    (oneDNN capped to AVX2: no bf16 convolution), the runtime computes the
    convolution without the post-ops and applies them with a loop, says so
    once on stderr, and gives the numbers of the fused call (within a bf16
    ulp: the accumulation order differs)."""
    pytest.importorskip("torch")
    import os
    import pickle
    import subprocess
    import sys
    child = ("import pickle, sys, test_cpu_onednn as t\n"
             "sys.stdout.buffer.write(pickle.dumps(t._post_ops_case_output()))\n")
    env = dict(os.environ, DNNL_MAX_CPU_ISA="AVX2")
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(__file__),
                                         os.path.dirname(amp.__path__[0])])
    out = subprocess.run([sys.executable, "-c", child], env=env, capture_output=True,
                         timeout=300)
    err = out.stderr.decode()
    assert out.returncode == 0, err[-2000:]
    assert err.count("oneDNN does not take these post-ops on this CPU; the call runs "
                     "without them and a loop applies them") == 1, err
    got, want = pickle.loads(out.stdout), _post_ops_case_output()
    np.testing.assert_allclose(got, want, rtol=2 ** -7, atol=1e-2)


class _MlpBlock:
    """A transformer MLP: x + fc2(gelu(fc1(x))) (or without the residual),
    odd widths."""

    @staticmethod
    def build(torch, d, hidden, residual):
        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc1 = torch.nn.Linear(d, hidden)
                self.fc2 = torch.nn.Linear(hidden, d)

            def forward(self, x):
                y = self.fc2(torch.nn.functional.gelu(self.fc1(x)))
                return x + y if residual else y

        return M().eval()


@onednn
@pytest.mark.parametrize("autocast", [None, ("cpu", "bfloat16")])
@pytest.mark.parametrize("residual", [False, True])
@pytest.mark.parametrize("d,hidden", [(20, 37), (64, 256)])
def test_linear_bias_gelu_residual_post_ops_match_unfused_and_pytorch(autocast, residual,
                                                                       d, hidden):
    """A Linear's bias, erf-GELU and the residual add folded into the
    oneDNN matmul as post-ops (ampOnednnMatmulPost_*) against the unfused
    path (onednn-post-ops=false) and PyTorch f32: f32 to 1e-5; autocast
    within 1.5x torch.autocast's own error (the fused bf16 bias + GELU is
    computed in f32 and rounded once, as PyTorch's; the loop rounded each
    op) and close to the unfused result. Odd widths (20 -> 37)."""
    torch = pytest.importorskip("torch")
    if autocast and not AVX512:
        pytest.skip("the bf16 matmul runs on code generation without AVX-512")
    torch.manual_seed(2)
    module = _MlpBlock.build(torch, d, hidden, residual)
    x = torch.randn(3, 5, d)
    with torch.no_grad():
        ref = module(x).double()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            torch_err = float((module(x).double() - ref).norm() / ref.norm())
    fused, calls = _compiled_post_ops(module, (x,), autocast, True)
    unfused, plain = _compiled_post_ops(module, (x,), autocast, False)
    assert {c for c in calls if "MatmulPost" in c}, calls
    assert not {c for c in plain if "Post" in c}, plain
    for _ in range(2):
        y, y0 = fused(x).double(), unfused(x).double()
        err = float((y - ref).norm() / ref.norm())
        if autocast is None:
            assert err <= 1e-5, err
            np.testing.assert_allclose(y.numpy(), y0.numpy(), rtol=1e-5, atol=1e-5)
        else:
            assert 0 < err <= max(1.5 * torch_err, 1e-2), (err, torch_err)
            assert float((y - y0).norm() / y0.norm()) <= 1e-2


def _mlp_post_ops_output():
    """The fused autocast MLP block above (64 -> 256, residual) on fixed
    inputs, as float32 numpy."""
    import torch
    torch.manual_seed(2)
    module = _MlpBlock.build(torch, 64, 256, True)
    x = torch.randn(3, 5, 64)
    fused, calls = _compiled_post_ops(module, (x,), ("cpu", "bfloat16"), True)
    assert {c for c in calls if "MatmulPost" in c}, calls
    return fused(x).float().numpy()


@onednn
@avx512
def test_matmul_post_ops_without_onednn_implementation_apply_them_in_a_loop():
    """oneDNN capped to AVX2 has no bf16 matmul: the fused call computes the
    matmul with the reference loop and applies its post-ops with a loop,
    says so once, and gives the fused call's numbers (within bf16
    rounding)."""
    pytest.importorskip("torch")
    import os
    import pickle
    import subprocess
    import sys
    child = ("import pickle, sys, test_cpu_onednn as t\n"
             "sys.stdout.buffer.write(pickle.dumps(t._mlp_post_ops_output()))\n")
    env = dict(os.environ, DNNL_MAX_CPU_ISA="AVX2")
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(__file__),
                                         os.path.dirname(amp.__path__[0])])
    out = subprocess.run([sys.executable, "-c", child], env=env, capture_output=True,
                         timeout=300)
    err = out.stderr.decode()
    assert out.returncode == 0, err[-2000:]
    assert err.count("remark: ampOnednnMatmulPost bf16 x bf16 -> bf16: oneDNN does not take "
                     "these post-ops on this CPU") == 1, err
    got, want = pickle.loads(out.stdout), _mlp_post_ops_output()
    np.testing.assert_allclose(got, want, rtol=2 ** -6, atol=2e-2)


@onednn
@pytest.mark.parametrize("autocast", [None, ("cpu", "bfloat16")])
def test_multihead_attention_projection_post_ops_match_unfused_and_pytorch(autocast):
    """nn.MultiheadAttention (embed 24, 3 heads): the input projection's bias
    (a 3 x 24 view of the 72 columns, read by two loops) and the output
    projection's bias as matmul post-ops, against the unfused path and
    PyTorch f32."""
    torch = pytest.importorskip("torch")
    if autocast and not AVX512:
        pytest.skip("the bf16 matmul runs on code generation without AVX-512")
    torch.manual_seed(3)

    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.attn = torch.nn.MultiheadAttention(24, 3, batch_first=True)

        def forward(self, x):
            return self.attn(x, x, x, need_weights=False)[0]

    module = M().eval()
    x = torch.randn(2, 7, 24)
    with torch.no_grad():
        ref = module(x).double()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            torch_err = float((module(x).double() - ref).norm() / ref.norm())
    fused, calls = _compiled_post_ops(module, (x,), autocast, True)
    unfused, _ = _compiled_post_ops(module, (x,), autocast, False)
    assert len({c for c in calls if "MatmulPost" in c}) >= 1, calls
    y, y0 = fused(x).double(), unfused(x).double()
    err = float((y - ref).norm() / ref.norm())
    if autocast is None:
        assert err <= 1e-5, err
        np.testing.assert_allclose(y.numpy(), y0.numpy(), rtol=1e-5, atol=1e-5)
    else:
        assert 0 < err <= max(1.5 * torch_err, 1e-2), (err, torch_err)
        assert float((y - y0).norm() / y0.norm()) <= 1e-2
