#!/usr/bin/env bash
# The GPU check, one script for a machine with an NVIDIA GPU (an H200 when
# the project is lent one): builds, runs the GPU lit tests, then measures
# everything issue 6 asks for in one run (bench/gpu/measure.py). On a
# machine without a GPU it builds, compiles every benchmark for sm_90 and
# checks the PTX with ptxas, and says that it measured nothing.
#   bash bench/gpu/run.sh [--quick]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh"
build="${AMP_BUILD_DIR:-$root/build}"
echo "== GPU lit tests (UNSUPPORTED without a device)"
/usr/lib/llvm-22/bin/lit -v "$build/test/GPU" "$build/test/Runtime" "$build/test/Pipelines" | grep -E "^(PASS|FAIL|UNSUPPORTED|XFAIL)" || true
echo "== measurements"
cd "$root/python"
exec "$build/venv/bin/python" "$root/bench/gpu/measure.py" "$@"
