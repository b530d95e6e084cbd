#!/usr/bin/env bash
# The whole test suite from a fresh Debian machine: installs what is missing,
# builds, and runs every test (the lit suite, `check-amp`). Ends with one
# line "N passed, N failed" and exits non-zero on any failure, or when no
# test ran at all.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh"

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
bash "$root/scripts/build.sh" check-amp 2>&1 | tee "$log" || status=$?

count() { grep -oE "^ *$1: *[0-9]+" "$log" | grep -oE '[0-9]+$' | tail -1 || true; }
passed=$(count Passed); failed=$(count Failed)
unsupported=$(count Unsupported)
passed=${passed:-0}; failed=${failed:-0}; unsupported=${unsupported:-0}
if [[ $passed -eq 0 && $failed -eq 0 ]]; then
  echo "error: the lit suite ran no test" >&2
  exit 1
fi
echo "lit: $passed passed, $failed failed, $unsupported skipped"
exit "$status"
