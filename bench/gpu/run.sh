#!/usr/bin/env bash
# The GPU check, one script for a machine with an NVIDIA GPU (an H200 when
# the project is lent one). It sets up and builds the project
# (scripts/setup.sh, scripts/build.sh; the CUDA toolkit must be in
# /usr/local/cuda or CUDAToolkit_ROOT), or installs a bundle made by
# bench/gpu/bundle.sh on a machine without Debian's LLVM 22 (--bundle), runs
# the GPU lit tests (test/Integration/CUDA, test/Runtime, test/Pipelines; UNSUPPORTED
# without a device) and the Python package's CUDA tests, then
# bench/gpu/measure.py in one run:
#   - GEMM 4096^3 and 8192^3, f16 and bf16 in, f32 accumulate: ours
#     (gemm=codegen and gemm=cublas) against cuBLAS called directly;
#   - an f32 -> f16 -> f32 cast kernel against a device-to-device copy;
#   - MLP and transformer-block training steps, f16 AMP vs f32, against
#     PyTorch eager (f32, AMP) and torch.compile AMP: steps/s and peak
#     device memory.
# The baselines need PyTorch with CUDA, importable by build/venv's python
# (the venv sees the system python's packages; with --bundle, build/venv/bin/
# python runs the machine's python3). Tables go to stdout.
# Without a GPU it compiles every benchmark for sm_90, checks the PTX with
# ptxas, and says that it measured nothing.
#
#   bash bench/gpu/run.sh [--quick] [--budget-s N] [--bundle DIR]
#     --quick: 4096^3 only, fewer iterations
#     --budget-s N: measure.py skips what would start N s after its start
#     --bundle DIR: install DIR (bench/gpu/bundle.sh) instead of building
#
# lit's whole log goes to $AMP_GPU_LOG_DIR/lit.log (default: a temporary
# directory, named on failure).
# Exit status: non-zero when a lit test, a Python test or a measurement fails.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bundle=""
measure_args=()
while (($#)); do
  case "$1" in
    -h|--help) sed -n '2,29p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --quick) measure_args+=(--quick) ;;
    --budget-s)
      [ $# -ge 2 ] || { echo "run.sh: --budget-s needs a number of seconds" >&2; exit 2; }
      measure_args+=(--budget-s "$2"); shift ;;
    --bundle)
      [ $# -ge 2 ] || { echo "run.sh: --bundle needs a directory" >&2; exit 2; }
      bundle=$2; shift ;;
    *) echo "run.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if [ -n "$bundle" ]; then
  for f in llvm sysdeps build; do
    [ -f "$bundle/$f.tar.xz" ] || { echo "run.sh: $bundle/$f.tar.xz is missing (bench/gpu/bundle.sh makes it)" >&2; exit 2; }
  done
fi
if [ -n "$bundle" ]; then
  bash "$root/bench/gpu/install-bundle.sh" "$bundle"
  build=/work/main/build
else
  bash "$root/scripts/setup.sh"
  bash "$root/scripts/build.sh"
  build="${AMP_BUILD_DIR:-$root/build}"
fi
if [ -e /dev/nvidia0 ] && ! "$build/venv/bin/python" -c "import torch" 2>/dev/null; then
  echo "run.sh: warning: PyTorch is not importable; the lit tests will run," \
       "but measure.py needs it for the baselines (pip install torch)" >&2
fi
echo "== lit tests on the GPU (test/Integration/CUDA, test/Runtime, test/Pipelines; UNSUPPORTED without a device)"
log_dir="${AMP_GPU_LOG_DIR:-$(mktemp -d)}"
lit_log="$log_dir/lit.log"
lit_args=(-v -a)
# A per-test limit (lit needs psutil for it), so that one hung kernel does
# not take the whole run.
"$build/venv/bin/python" -c "import psutil" 2>/dev/null && lit_args+=(--timeout 300)
lit_status=0
"$build/venv/bin/python" /usr/lib/llvm-22/bin/lit "${lit_args[@]}" \
  "$build/test/Integration/CUDA" "$build/test/Runtime" "$build/test/Pipelines" > "$lit_log" 2>&1 || lit_status=$?
grep -E "^(PASS|FAIL|UNSUPPORTED|XFAIL|XPASS)" "$lit_log" || true
if [ "$lit_status" -ne 0 ]; then
  echo "== lit failures (full log: $lit_log)"
  grep -E -A40 "^\*+ TEST .* FAILED" "$lit_log" || tail -60 "$lit_log"
fi
echo "== Python CUDA tests (python/tests/test_cuda_compile.py)"
pytest_status=0
(cd "$root/python" && "$build/venv/bin/python" -m pytest -q -p no:cacheprovider \
  tests/test_cuda_compile.py) || pytest_status=$?
echo "== measurements"
cd "$root/python"
measure_status=0
"$build/venv/bin/python" "$root/bench/gpu/measure.py" "${measure_args[@]}" || measure_status=$?
[ "$lit_status" -eq 0 ] || echo "run.sh: lit tests failed (status $lit_status)" >&2
[ "$pytest_status" -eq 0 ] || echo "run.sh: Python CUDA tests failed (status $pytest_status)" >&2
[ "$measure_status" -eq 0 ] || echo "run.sh: measure.py failed (status $measure_status)" >&2
[ "$lit_status" -ne 0 ] && exit "$lit_status"
[ "$pytest_status" -ne 0 ] && exit "$pytest_status"
exit "$measure_status"
