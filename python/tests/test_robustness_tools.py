"""The tools of issue 29's proofs that run without their builds:
utils/lsan_filter.py (which sanitizer reports fail scripts/sanitize.sh) and
scripts/model_sweep.py's table (from recorded results), and the refusal of
the parser crash tools/amp-fuzz found (amp_mlir.Context.parse)."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FILTER = os.path.join(ROOT, "utils", "lsan_filter.py")
SWEEP = os.path.join(ROOT, "scripts", "model_sweep.py")

LEAK = """=================================================================
==123==ERROR: LeakSanitizer: detected memory leaks

Direct leak of 64 byte(s) in 1 object(s) allocated from:
    #0 0x7f in operator new(unsigned long) asan_new_delete.cpp:86
{frames}

SUMMARY: AddressSanitizer: 64 byte(s) leaked in 1 allocation(s).
"""


def run_filter(tmp_path, files):
    logs = tmp_path / "logs"
    logs.mkdir()
    for name, text in files.items():
        (logs / name).write_text(text)
    return subprocess.run([sys.executable, FILTER, str(logs), "--root", "/src/amp"],
                          capture_output=True, text=True)


def test_leak_of_other_code_passes(tmp_path):
    frames = ("    #1 0x7f in _PyObject_Malloc Objects/obmalloc.c:10\n"
              "    #2 0x7f in main /src/amp/tools/amp-opt/amp-opt.cpp:80\n")
    r = run_filter(tmp_path, {"asan.python.1": LEAK.format(frames=frames)})
    assert r.returncode == 0, r.stdout
    assert "0 leak(s) allocated by amp-mlir's code, 1 leak(s) of other code" in r.stdout


def test_leak_of_our_code_fails(tmp_path):
    frames = ("    #1 0x7f in mlir::amp::foo() /src/amp/lib/Dialect/Amp/IR/Amp.cpp:12\n"
              "    #2 0x7f in main /src/amp/tools/amp-opt/amp-opt.cpp:80\n")
    r = run_filter(tmp_path, {"asan.amp-opt.2": LEAK.format(frames=frames)})
    assert r.returncode == 1
    assert "1 leak(s) allocated by amp-mlir's code" in r.stdout
    assert "Amp.cpp:12" in r.stdout


def test_leak_through_the_c_api_library_fails(tmp_path):
    frames = "    #1 0x7f in ampFoo (/b/lib/libAmpMLIRCAPI.so+0x10)\n"
    r = run_filter(tmp_path, {"asan.python.3": LEAK.format(frames=frames)})
    assert r.returncode == 1


def test_sanitizer_error_fails(tmp_path):
    report = ("==9==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x1\n"
              "READ of size 1 at 0x1 thread T0\n")
    ubsan = "/src/amp/lib/x.cpp:3:5: runtime error: signed integer overflow\n"
    r = run_filter(tmp_path, {"asan.python.4": report, "ubsan.amp-opt.5": ubsan})
    assert r.returncode == 1
    assert "2 sanitizer error report(s)" in r.stdout
    assert "heap-buffer-overflow" in r.stdout and "signed integer overflow" in r.stdout


def test_sweep_table_from_results(tmp_path):
    results = [
        {"model": "squeezenet1_1", "params": 1235496, "size": 64, "torch_bf16": 5.2e-3,
         "f32": {"exported": True, "compiled": True, "ran": True, "rel_l2": 3.1e-7,
                 "finite": True},
         "bf16": {"exported": True, "stage": "compile",
                  "error": "TorchImportError: amp_mlir.torch: cannot lower 'aten.foo'"}},
        {"model": "vgg11", "params": 132863336, "skipped": "skipped (over 30M parameters)"},
        {"model": "tiny", "params": 1000, "status": "crash", "detail": "exit -11: Segfault"},
    ]
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in results))
    r = subprocess.run([sys.executable, SWEEP, "--from-json", str(path)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    row = next(l for l in lines if l.startswith("| squeezenet1_1"))
    assert "| 1.2 | 1x3x64x64 | yes / yes / yes | 3.1e-07 | yes / no / no | compile failed | 5.2e-03 |" in row
    assert any(l.startswith("| vgg11 | 132.9 | — | skipped (over 30M parameters)") for l in lines)
    assert "- squeezenet1_1 (bf16, compile): TorchImportError: amp_mlir.torch: cannot lower 'aten.foo'" in lines
    assert "- tiny: exit -11: Segfault" in lines


TRANSPOSE = """func.func @f(%a: tensor<3x5xf32>, %b: tensor<5x3xf32>) -> tensor<5x3xf32> {
  %r = linalg.transpose ins(%a : tensor<3x5xf32>) outs(%b : tensor<5x3xf32>)
      permutation = PERM
  return %r : tensor<5x3xf32>
}
"""


@pytest.mark.parametrize("perm", ["[1 0]", "[1K 0]", "[1,", "1, 0"])
def test_malformed_linalg_integer_list_is_refused_not_a_crash(perm):
    # Debian's MLIR parser segfaults on these (tools/amp-fuzz/findings).
    import amp_mlir as amp
    with pytest.raises(amp.MLIRError) as info:
        amp.Context().parse(TRANSPOSE.replace("PERM", perm), source_name="t.mlir")
    assert "t.mlir:3:7: error: 'permutation' must be a list of integers" in str(info.value)


def test_well_formed_linalg_integer_lists_still_parse():
    import amp_mlir as amp
    module = amp.Context().parse(TRANSPOSE.replace("PERM", "[1, 0]"))
    assert "permutation = [1, 0]" in str(module)
    with pytest.raises(amp.MLIRError, match="permutation is not valid"):
        amp.Context().parse(TRANSPOSE.replace("PERM", "[0, 0]"))
