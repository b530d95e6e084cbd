#!/usr/bin/env bash
# The whole test suite against a build with AddressSanitizer and
# UndefinedBehaviorSanitizer: builds into build-san/ (configured once with
# -DAMP_ENABLE_SANITIZERS=ON -DAMP_ENABLE_FUZZER=ON, so scripts/fuzz.sh uses
# the same objects), then runs the lit suite and the Python tests against it.
# The project's own code is instrumented; Debian's libMLIR.so, the code the
# JIT generates, and Python are not (docs/Robustness.md says what that
# covers). Ends with one summary line per suite; exits non-zero when a suite
# fails, a sanitizer reports an error, or LeakSanitizer finds a leak
# allocated by the project's code (utils/lsan_filter.py).
#
#   bash scripts/sanitize.sh [lit paths...]   (default: the whole suite)
#
# AMP_SAN_BUILD_DIR picks the build directory (default build-san/);
# AMP_VENV the Python environment (default build/venv, scripts/setup.sh's);
# AMP_SAN_PYTEST adds pytest arguments, as shell words (e.g. "-k digits", or
# "-k 'onednn or digits'" with the expression quoted); AMP_SAN_SKIP_PYTEST=1
# runs lit only, AMP_SAN_SKIP_LIT=1 pytest only.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="${AMP_SAN_BUILD_DIR:-$root/build-san}"
venv="${AMP_VENV:-$root/build/venv}"

AMP_BUILD_DIR="$build" \
AMP_CMAKE_ARGS="-DAMP_ENABLE_SANITIZERS=ON -DAMP_ENABLE_FUZZER=ON ${AMP_CMAKE_ARGS:-}" \
  bash "$root/scripts/build.sh"

# Lit tests run Python helpers (utils/simt_emulator.py, the package's text
# builders) as %amp_build_root/venv/bin/python: the sanitizer build uses the
# same environment as build/.
[[ -e "$build/venv" ]] || ln -s "$(cd "$venv" && pwd)" "$build/venv"

asan_runtime=$(clang-22 -print-file-name=libclang_rt.asan-x86_64.so)
logs="$build/sanitizer-logs"
rm -rf "$logs"; mkdir -p "$logs"
# Every report goes to a file as well as failing the process: errors stop
# it (halt_on_error); leaks are sorted by utils/lsan_filter.py.
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=0:log_path=$logs/asan:log_exe_name=1:detect_odr_violation=0:alloc_dealloc_mismatch=0:allow_user_poisoning=0"  # see scripts/fuzz.sh
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$logs/ubsan"
export LSAN_OPTIONS="exitcode=0"

status=0
litlog="$logs/lit.txt"
paths=("$@")
[[ ${#paths[@]} -eq 0 ]] && paths=("$build/test")
if [[ "${AMP_SAN_SKIP_LIT:-0}" != 1 ]]; then
  nice /usr/lib/llvm-22/bin/lit -sv "${paths[@]}" 2>&1 | tee "$litlog" || status=$?
fi

pystatus=0
# Shell words, so that a quoted -k expression stays one argument.
eval "pyargs=(${AMP_SAN_PYTEST:-})"
pylog="$logs/pytest.txt"
if [[ "${AMP_SAN_SKIP_PYTEST:-0}" != 1 ]]; then
  # Python is not instrumented: the shared ASan runtime is preloaded before it
  # loads libAmpMLIRCAPI.so.
  AMP_MLIR_CAPI_LIBRARY="$build/lib/libAmpMLIRCAPI.so" LD_PRELOAD="$asan_runtime" \
    "$venv/bin/python" -m pytest -q -p no:cacheprovider "${pyargs[@]}" \
    "$root/python/tests" 2>&1 | tee "$pylog" || pystatus=$?
fi

leakstatus=0
python3 "$root/utils/lsan_filter.py" "$logs" || leakstatus=$?

count() {
  local n
  n=$(grep -oE "^ *$1 *: *[0-9]+" "$litlog" | grep -oE '[0-9]+$' | tail -1 || true)
  echo "${n:-0}"
}
[[ -f "$litlog" ]] && echo "sanitize: lit: $(count Passed) passed, $(count Failed) failed, $(count Unsupported) unsupported"
[[ -f "$pylog" ]] && echo "sanitize: pytest: $(grep -E '^[0-9]+ (passed|failed)' "$pylog" | tail -1 || echo 'no summary')"
(( status != 0 )) && exit "$status"
(( pystatus != 0 )) && exit "$pystatus"
exit "$leakstatus"
