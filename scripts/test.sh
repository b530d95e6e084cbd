#!/usr/bin/env bash
# The whole test suite from a fresh Debian machine: installs what is missing,
# builds, and runs every test: the lit suite (`check-amp`) and the Python
# package's pytest suite (python/tests). Ends with one summary line per suite
# and exits non-zero on any failure, or when a suite ran no test at all.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
bash "$root/scripts/build.sh" check-amp 2>&1 | tee "$log" || status=$?

count() { grep -oE "^ *$1 *: *[0-9]+" "$log" | grep -oE '[0-9]+$' | tail -1 || true; }
passed=$(count Passed); failed=$(count Failed)
unsupported=$(count Unsupported)
passed=${passed:-0}; failed=${failed:-0}; unsupported=${unsupported:-0}
if [[ $passed -eq 0 && $failed -eq 0 ]]; then
  echo "error: the lit suite ran no test" >&2
  exit 1
fi

build="${AMP_BUILD_DIR:-$root/build}"
pystatus=0
"$build/venv/bin/python" -m pytest -q -p no:cacheprovider "$root/python/tests" 2>&1 \
  | tee "$log" || pystatus=$?
if [[ $pystatus -eq 5 ]]; then
  echo "error: pytest collected no test" >&2
  exit 1
fi
echo "lit: $passed passed, $failed failed, $unsupported unsupported (they need a CUDA device)"
echo "pytest: $(grep -E '^[0-9]+ (passed|failed)' "$log" | tail -1 || echo 'no summary')"
(( status != 0 )) && exit "$status"
exit "$pystatus"
