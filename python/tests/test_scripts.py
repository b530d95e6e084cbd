"""Command-line checks of the project's scripts: bad arguments give a usage
error (exit 2) naming the problem, and the CUDA target without a device is a
one-line error (exit 1), not a traceback."""
import os
import subprocess
import sys

import pytest

import amp_mlir as amp
from amp_mlir import digits

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def run(*args):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True)


@pytest.mark.parametrize("argv, message", [
    (["--epochs", "0"], "--epochs must be at least 1, got 0"),
    (["--seed", "-1"], "--seed must be non-negative, got -1"),
    (["--target", "tpu"], "invalid choice: 'tpu'"),
])
def test_digits_bad_arguments(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        digits.main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_digits_cuda_without_a_device(capsys):
    if amp.cuda_device_count():
        pytest.skip("this machine has a CUDA device")
    assert digits.main(["--target", "cuda", "--epochs", "1"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("digits: amp_mlir: the module was compiled for CUDA")
    assert "Traceback" not in err


@pytest.mark.parametrize("argv, message", [
    (["/nonexistent/model.mlir"], "cannot read the model '/nonexistent/model.mlir'"),
    (["examples/models/squeezenet1_1.mlir", "--build", "/nonexistent"],
     "no amp-opt in '/nonexistent/bin'"),
    (["examples/models/squeezenet1_1.mlir", "--repeat", "0"],
     "--repeat must be at least 1, got 0"),
    (["examples/models/squeezenet1_1.mlir", "--target", "gpu"], "invalid choice: 'gpu'"),
])
def test_model_harness_bad_arguments(argv, message):
    out = run(os.path.join(ROOT, "utils", "model_harness.py"),
              *[os.path.join(ROOT, a) if a.startswith("examples/") else a for a in argv])
    assert out.returncode == 2, out.stderr
    assert message in out.stderr


@pytest.mark.parametrize("argv, message", [
    (["--repeat", "0"], "--repeat must be at least 1, got 0"),
    (["--amp-opt", "/nonexistent/amp-opt"], "--amp-opt '/nonexistent/amp-opt' is not an executable file"),
])
def test_autocast_scaling_bad_arguments(argv, message):
    out = run(os.path.join(ROOT, "bench", "autocast_scaling.py"), *argv)
    assert out.returncode == 2, out.stderr
    assert message in out.stderr


@pytest.mark.parametrize("argv, message", [
    (["--bogus"], "run.sh: unknown argument '--bogus'"),
    (["--bundle"], "run.sh: --bundle needs a directory"),
    (["--budget-s"], "run.sh: --budget-s needs a number of seconds"),
    (["--bundle", "/nonexistent"], "run.sh: /nonexistent/llvm.tar.xz is missing"),
])
def test_gpu_run_bad_arguments(argv, message):
    # Checked before anything is set up or built.
    r = subprocess.run(["bash", os.path.join(ROOT, "bench", "gpu", "run.sh"), *argv],
                       capture_output=True, text=True)
    assert r.returncode == 2
    assert message in r.stderr


def test_gpu_bundle_without_a_build(tmp_path):
    r = subprocess.run(["bash", os.path.join(ROOT, "bench", "gpu", "bundle.sh"),
                        str(tmp_path / "out")], capture_output=True, text=True,
                       env={**os.environ, "AMP_BUILD_DIR": str(tmp_path / "nobuild")})
    assert r.returncode == 2
    assert "bundle.sh: no finished build in" in r.stderr


def test_stream_order_checker_finds_hazards():
    # utils/check_stream_order.py (run by test/Pipelines/cuda-stream-order.mlir
    # on a training step) must report a host access or a region op while a
    # queued op is pending, and accept a conditional free.
    sys.path.insert(0, os.path.join(ROOT, "utils"))
    from check_stream_order import check
    ir = """func.func @f(%arg0: memref<4xf32>, %b: i1) -> f32 {
  %c0 = arith.constant 0 : index
  %0 = gpu.wait async
  %1 = gpu.launch_func async [%0] @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
  %base, %off = memref.extract_strided_metadata %arg0 : memref<4xf32> -> memref<f32>, index
  scf.if %b {
    %3 = gpu.wait async
    %4 = gpu.dealloc async [%3] %arg0 : memref<4xf32>
    gpu.wait [%4]
  }
  %2 = memref.load %arg0[%c0] : memref<4xf32>
  scf.if %b {
    memref.store %2, %arg0[%c0] : memref<4xf32>
  }
  return %2 : f32
}"""
    hazards, functions, queued, waits = check(ir.splitlines())
    assert (functions, queued, waits) == (1, 2, 1)
    assert [h.split(":")[0] for h in hazards] == ["line 11", "line 12", "line 15", "line 16"]
    assert "memref.load" in hazards[0] and "scf.if" in hazards[1] and "return" in hazards[2]
    assert "the block ends with ['%1'] queued" in hazards[3]
    fixed = ir.replace("  %2 = memref.load", "  gpu.wait [%1]\n  %2 = memref.load")
    assert check(fixed.splitlines())[0] == []


def amp_opt_binary():
    """The amp-opt of the build the package uses."""
    from amp_mlir._config import CAPI_LIBRARY
    return os.path.join(os.path.dirname(os.path.dirname(CAPI_LIBRARY)), "bin", "amp-opt")


def assert_mutants_fail(tmp_path, emulator, text, mutants, *args, times=1):
    """Runs the emulator on each mutant of the kernels `text` (name ->
    (mutated text, message)): each must differ from `text` and fail with
    its message in the output, `times` times."""
    for name, (mutant, message) in mutants.items():
        assert mutant != text, name
        path = tmp_path / "mutant.mlir"
        path.write_text(mutant)
        r = run(emulator, str(path), *args)
        assert r.returncode == 1 and (r.stdout + r.stderr).count(message) >= times, \
            (name, r.stdout, r.stderr)


def test_simt_emulator_catches_wrong_kernels(tmp_path):
    # utils/simt_emulator.py (run by
    # test/Codegen/GPU/TensorCore/contractions-emulated.mlir)
    # must pass the pass's kernels and fail one whose fragments are taken one
    # row too low, four with the cp.async pipeline broken, one whose shared
    # rows are misaligned and one with an op it does not know; bad input is
    # a one-line error.
    amp_opt = amp_opt_binary()
    source = tmp_path / "mm.mlir"
    source.write_text("""
func.func @f16(%a: memref<1024x64xf16>, %b: memref<64x1024xf16>, %c: memref<1024x1024xf32>) {
  linalg.matmul ins(%a, %b : memref<1024x64xf16>, memref<64x1024xf16>) outs(%c : memref<1024x1024xf32>)
  return
}
func.func @bf16(%a: memref<1024x64xbf16>, %b: memref<64x1024xbf16>, %c: memref<1024x1024xf32>) {
  linalg.matmul ins(%a, %b : memref<1024x64xbf16>, memref<64x1024xbf16>) outs(%c : memref<1024x1024xf32>)
  return
}""")
    kernels = tmp_path / "kernels.mlir"
    subprocess.run([amp_opt, str(source), "--amp-gpu-tensor-core-contractions",
                    "--mlir-print-op-generic", "-o", str(kernels)], check=True)
    emulator = os.path.join(ROOT, "utils", "simt_emulator.py")
    good = run(emulator, str(kernels))
    assert good.returncode == 0, good.stderr
    assert good.stdout.count("max |C - numpy| = 0\n") == 2

    text = kernels.read_text()
    # Rows g + 8 of every fragment read and written one row lower.
    assert "floordiv 4 + 8)" in text
    wrong = tmp_path / "wrong.mlir"
    wrong.write_text(text.replace("floordiv 4 + 8)", "floordiv 4 + 9)"))
    bad = run(emulator, str(wrong))
    assert bad.returncode == 1
    assert "max |C - numpy| = 0\n" not in bad.stdout + bad.stderr
    # Caught as wrong values, an access out of bounds, or two threads
    # writing one element of C.
    assert ("out of bounds" in bad.stderr or "max |C - numpy|" in bad.stdout
            or "two threads write one element of global memory" in bad.stderr)

    # The k loop's cp.async pipeline (2 stages here), broken four ways: the
    # barrier after each step's wait gone (a warp reads tiles other threads'
    # copies wrote, unsynchronized), the next step's copies issued before
    # that barrier (into the stage another warp still reads), a wait that
    # leaves the step's own group pending (its tiles may land while they
    # are read), and no wait after the loop.
    lines = text.splitlines()
    waits = [i for i, line in enumerate(lines)
             if line.strip().startswith('"nvgpu.device_async_wait"')]
    in_loop = [i for i in waits if "numGroups = 0" in lines[i]
               and lines[i + 1].strip().startswith('"gpu.barrier"')]
    after_loop = [i for i in waits if i not in in_loop]
    assert len(in_loop) == 2 and len(after_loop) == 2, waits
    issue = [next(j for j in range(i, len(lines)) if "device_async_create_group" in lines[j])
             for i in in_loop]

    def moved_barriers():
        out = list(lines)
        for i, j in sorted(zip(in_loop, issue), reverse=True):
            out.insert(j, out.pop(i + 1))
        return "\n".join(out)

    def rewrite_lines(indices, fn):
        return "\n".join(fn(l) if i in indices else l for i, l in enumerate(lines))

    mutants = {
        "no barrier": ("\n".join(l for i, l in enumerate(lines)
                                  if i - 1 not in in_loop),
                       "reads shared memory that thread"),
        "copies before the barrier": (moved_barriers(),
                                      "overwrites shared memory another thread read"),
        "wait leaves the step pending": (
            rewrite_lines(in_loop, lambda l: l.replace("numGroups = 0", "numGroups = 1")),
            "overwrites shared memory another thread read"),
        "no final wait": ("\n".join(l for i, l in enumerate(lines) if i not in after_loop),
                          "cp.async copies (nvgpu.device_async_copy) still pending"),
    }
    # Both functions (f16 and bf16) fail.
    assert_mutants_fail(tmp_path, emulator, text, mutants, times=2)

    # Shared rows padded by 4 instead of 8: ldmatrix rows and 16-byte
    # copies no longer aligned (a fault on a GPU).
    tile = "memref<2x64x40xf16, #gpu.address_space<workgroup>>"
    assert tile in text
    misaligned = tmp_path / "misaligned.mlir"
    misaligned.write_text(text.replace(tile, tile.replace("x40x", "x36x")))
    r = run(emulator, str(misaligned), "--func", "f16")
    assert r.returncode == 1
    assert "an address not aligned to the copy's 16 bytes" in r.stderr

    # Bad input: one-line errors, no traceback.
    one_arg = tmp_path / "one_arg.mlir"
    subprocess.run([amp_opt, "--mlir-print-op-generic", "-o", str(one_arg), "-"],
                   input="func.func @g(%a: memref<4xf32>) {\n  return\n}\n",
                   text=True, check=True)
    for path, message in [(tmp_path / "missing.mlir", "No such file"),
                          (one_arg, "expected the arguments A, B, C of a matmul or IN, "
                                    "OUT of a transpose")]:
        r = run(emulator, str(path))
        assert r.returncode == 1 and "Traceback" not in r.stderr
        assert r.stderr.startswith("simt_emulator: ") and message in r.stderr, r.stderr

    unknown = tmp_path / "unknown.mlir"
    unknown.write_text(text.replace('"nvgpu.mma.sync"', '"nvgpu.mma.sp.sync"'))
    r = run(emulator, str(unknown), "--func", "f16")
    assert r.returncode == 1
    assert "simt_emulator: f16: op 'nvgpu.mma.sp.sync' is not emulated" in r.stderr


def test_simt_emulator_checks_reduction_kernels(tmp_path):
    # The full reductions of amp-gpu-scalar-kernels through the emulator
    # (test/Codegen/GPU/scalar-kernels-emulated.mlir): right,
    # then with every thread but thread 0 adding its block's result to OUT.
    kernels = tmp_path / "sum.mlir"
    subprocess.run([amp_opt_binary(), "-", "--pass-pipeline=builtin.module(func.func("
                    "amp-gpu-scalar-kernels))", "--mlir-print-op-generic", "-o", str(kernels)],
                   input="""
func.func @sum(%a: memref<3000xf32>, %o: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                  iterator_types = ["reduction"]} ins(%a : memref<3000xf32>) outs(%o : memref<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  }
  return
}""", text=True, check=True)
    emulator = os.path.join(ROOT, "utils", "simt_emulator.py")
    r = run(emulator, str(kernels), "--reduction", "sum")
    assert r.returncode == 0 and r.stdout.endswith("max |OUT - numpy| = 0\n"), r.stderr
    text = kernels.read_text()
    assert text.count("<{predicate = 0 : i64}>") == 1
    wrong = tmp_path / "wrong.mlir"
    wrong.write_text(text.replace("<{predicate = 0 : i64}>", "<{predicate = 1 : i64}>"))
    r = run(emulator, str(wrong), "--reduction", "sum")
    assert r.returncode == 1
    assert "two threads write one element of global memory" in r.stderr
    r = run(emulator, str(kernels))
    assert r.returncode == 1 and "a full reduction (IN, 0-d OUT) needs --reduction" in r.stderr



def test_simt_emulator_checks_dynamic_shared_stages(tmp_path):
    # 128 x 128 block tiles with four stages (74 KiB) live in the launch's
    # dynamic shared memory as two memref.views: emulated right, then with
    # the views overlapping, past the launch's size, or with the size gone.
    kernels = tmp_path / "big.mlir"
    subprocess.run([amp_opt_binary(), "-", "--amp-gpu-tensor-core-contractions",
                    "--mlir-print-op-generic", "-o", str(kernels)], input="""
func.func @f16(%a: memref<2048x128xf16>, %b: memref<128x2048xf16>, %c: memref<2048x2048xf32>) {
  linalg.matmul ins(%a, %b : memref<2048x128xf16>, memref<128x2048xf16>) outs(%c : memref<2048x2048xf32>)
  return
}""", text=True, check=True)
    emulator = os.path.join(ROOT, "utils", "simt_emulator.py")
    r = run(emulator, str(kernels))
    assert r.returncode == 0 and r.stdout.endswith("max |C - numpy| = 0\n"), r.stderr
    text = kernels.read_text()
    assert "<{value = 40960 : index}>" in text and "<{value = 75776 : i32}>" in text
    mutants = {
        "overlap": (text.replace("<{value = 40960 : index}>", "<{value = 40944 : index}>"),
                    "overlap another view's"),
        "too small": (text.replace("<{value = 75776 : i32}>", "<{value = 75760 : i32}>"),
                      "within the 75760 bytes of dynamic shared memory"),
        "no size": (text.replace("<{value = 75776 : i32}>", "<{value = 0 : i32}>"),
                    "the launch has no dynamic_shared_memory_size"),
    }
    assert_mutants_fail(tmp_path, emulator, text, mutants)


def test_simt_emulator_checks_partial_reduction_kernels(tmp_path):
    # The column kernels of amp-gpu-reduction-kernels through the emulator
    # (test/Codegen/GPU/reduction-kernels-emulated.mlir):
    # right, then without the barrier between the partial results' stores
    # and row 0's loads, with a wrong start value, with the threads past the
    # last output element let in, and with bad --reduce-dims.
    kernels = tmp_path / "bias.mlir"
    subprocess.run([amp_opt_binary(), "-", "--pass-pipeline=builtin.module(func.func("
                    "amp-gpu-reduction-kernels))", "--mlir-print-op-generic", "-o", str(kernels)],
                   input="""
func.func @bias(%dy: memref<300x70xf32>, %db: memref<70xf32>) {
  linalg.reduce ins(%dy : memref<300x70xf32>) outs(%db : memref<70xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  return
}""", text=True, check=True)
    emulator = os.path.join(ROOT, "utils", "simt_emulator.py")
    r = run(emulator, str(kernels), "--reduction", "sum", "--reduce-dims", "0")
    assert r.returncode == 0 and r.stdout.endswith("max |OUT - numpy| = 0\n"), r.stderr
    text = kernels.read_text()
    mutants = {
        "no barrier": (text.replace('"gpu.barrier"() : () -> ()', ""),
                       "reads shared memory that thread 32 wrote with no barrier"),
        "start 1.0": (text.replace("-0.000000e+00 : f32", "1.000000e+00 : f32"),
                      "max |OUT - numpy| = 32"),
        "ule": (text.replace("<{predicate = 6 : i64}>", "<{predicate = 7 : i64}>"),
                "index 70 out of bounds"),
    }
    assert_mutants_fail(tmp_path, emulator, text, mutants,
                        "--reduction", "sum", "--reduce-dims", "0")
    for dims, message in [(None, "needs --reduce-dims"), ("1", "is not IN (300, 70) without"),
                          ("2", "does not fit IN's rank 2"), ("x", "is not a list")]:
        extra = ["--reduce-dims", dims] if dims else []
        r = run(emulator, str(kernels), "--reduction", "sum", *extra)
        assert r.returncode == 1 and message in r.stderr, (dims, r.stderr)
    # Misuse a newcomer meets: no --reduction, and the pretty-printed form.
    r = run(emulator, str(kernels))
    assert r.returncode == 1 and "look like a reduction's" in r.stderr, r.stderr
    pretty = tmp_path / "pretty.mlir"
    pretty.write_text("module {\n}\n")
    r = run(emulator, str(pretty))
    assert r.returncode == 1 and "must be generic MLIR" in r.stderr, r.stderr


def test_simt_emulator_checks_batched_views(tmp_path):
    # A batched matmul's kernel (amp-gpu-tensor-core-contractions) views each
    # batch element's matrices through memref.reinterpret_cast: right, then
    # with A's batch stride wrong (other batch elements' rows are read) and
    # with C's past its buffer.
    kernels = tmp_path / "bmm.mlir"
    subprocess.run([amp_opt_binary(), "-", "--amp-gpu-tensor-core-contractions",
                    "--mlir-print-op-generic", "-o", str(kernels)], input="""
func.func @bmm(%a: memref<3x32x48xf16>, %b: memref<3x48x16xf16>, %c: memref<3x32x16xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<3x32x48xf16>, memref<3x48x16xf16>)
                      outs(%c : memref<3x32x16xf32>)
  return
}""", text=True, check=True)
    emulator = os.path.join(ROOT, "utils", "simt_emulator.py")
    r = run(emulator, str(kernels))
    assert r.returncode == 0 and r.stdout.endswith("max |C - numpy| = 0\n"), r.stderr
    text = kernels.read_text()
    for stride, wrong, message in [(1536, 1024, "max |C - numpy| = "),
                                   (512, 1024, "of a view is outside its buffer of 1536")]:
        old = f"affine_map<()[s0] -> (s0 * {stride})>"
        assert text.count(old) == 1, old
        path = tmp_path / "wrong.mlir"
        path.write_text(text.replace(old, f"affine_map<()[s0] -> (s0 * {wrong})>"))
        r = run(emulator, str(path))
        assert r.returncode == 1 and message in r.stdout + r.stderr, (r.stdout, r.stderr)
        assert "max |C - numpy| = 0\n" not in r.stdout
