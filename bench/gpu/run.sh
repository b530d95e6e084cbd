#!/usr/bin/env bash
# The GPU check, one script for a machine with an NVIDIA GPU (an H200 when
# the project is lent one). It sets up and builds the project
# (scripts/setup.sh, scripts/build.sh; the CUDA toolkit must be in
# /usr/local/cuda or CUDAToolkit_ROOT), runs the GPU lit tests (test/GPU,
# test/Runtime, test/Pipelines; UNSUPPORTED without a device), then
# bench/gpu/measure.py in one run:
#   - GEMM 4096^3 and 8192^3, f16 and bf16 in, f32 accumulate: ours
#     (gemm=codegen and gemm=cublas) against cuBLAS called directly;
#   - an f32 -> f16 -> f32 cast kernel against a device-to-device copy;
#   - MLP and transformer-block training steps, f16 AMP vs f32, against
#     PyTorch eager (f32, AMP) and torch.compile AMP: steps/s and peak
#     device memory.
# The baselines need PyTorch with CUDA, importable by build/venv's python
# (the venv sees the system python's packages). Tables go to stdout.
# Without a GPU it compiles every benchmark for sm_90, checks the PTX with
# ptxas, and says that it measured nothing.
#
#   bash bench/gpu/run.sh [--quick]     --quick: 4096^3 only, fewer iterations
#
# Exit status: non-zero when a lit test or a measurement fails.
set -euo pipefail
case "${1:-}" in
  -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
root=$(cd "$(dirname "$0")/../.." && pwd)
if [ -e /dev/nvidia0 ] && ! /usr/bin/python3 -c "import torch" 2>/dev/null; then
  echo "run.sh: warning: PyTorch is not importable; the lit tests will run," \
       "but measure.py needs it for the baselines (pip install torch)" >&2
fi
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh"
build="${AMP_BUILD_DIR:-$root/build}"
echo "== lit tests on the GPU (test/GPU, test/Runtime, test/Pipelines; UNSUPPORTED without a device)"
lit_log=$(mktemp)
lit_status=0
/usr/lib/llvm-22/bin/lit -v "$build/test/GPU" "$build/test/Runtime" "$build/test/Pipelines" \
  > "$lit_log" 2>&1 || lit_status=$?
grep -E "^(PASS|FAIL|UNSUPPORTED|XFAIL|XPASS)" "$lit_log" || true
if [ "$lit_status" -ne 0 ]; then
  echo "== lit failures (full log: $lit_log)"
  grep -E -A40 "^\*+ TEST .* FAILED" "$lit_log" || tail -60 "$lit_log"
fi
echo "== measurements"
cd "$root/python"
measure_status=0
"$build/venv/bin/python" "$root/bench/gpu/measure.py" "$@" || measure_status=$?
[ "$lit_status" -eq 0 ] || echo "run.sh: lit tests failed (status $lit_status)" >&2
[ "$lit_status" -eq 0 ] && exit "$measure_status"
exit "$lit_status"
