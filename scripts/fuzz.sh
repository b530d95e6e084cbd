#!/usr/bin/env bash
# Fuzzes the amp passes and the CPU pipeline with libFuzzer (tools/amp-fuzz):
# builds amp-fuzz in build-san/ (the sanitizer build, configured with
# -DAMP_ENABLE_SANITIZERS=ON -DAMP_ENABLE_FUZZER=ON, shared with
# scripts/sanitize.sh), seeds the corpus with every .mlir file under test/ and
# examples/ (split at `// -----`, as -split-input-file does), and runs it with
# the dialect's dictionary (tools/amp-fuzz/amp.dict).
#
#   bash scripts/fuzz.sh [SECONDS] [libFuzzer flags...]   (default 600 s)
#
# AMP_FUZZ_BUILD_DIR picks the build directory (default build-san/);
# AMP_FUZZ_JOBS runs that many fuzzing processes (default 1). The corpus
# grows in <build>/fuzz/corpus across runs; crashes, timeouts and out-of-memory
# inputs land in <build>/fuzz/artifacts/ (crash-*, timeout-*, oom-*): replay
# one with `<build>/bin/amp-fuzz <file>`. The last line of libFuzzer's output
# gives the executions, coverage (cov) and features (ft) reached.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds="${1:-600}"
shift || true
build="${AMP_FUZZ_BUILD_DIR:-$root/build-san}"

AMP_BUILD_DIR="$build" \
AMP_CMAKE_ARGS="-DAMP_ENABLE_SANITIZERS=ON -DAMP_ENABLE_FUZZER=ON ${AMP_CMAKE_ARGS:-}" \
  bash "$root/scripts/build.sh" amp-fuzz

fuzz="$build/fuzz"
seeds="$fuzz/seeds"
mkdir -p "$fuzz/corpus" "$fuzz/artifacts" "$seeds"
# One seed per split of each file: test/Dialect/x.mlir -> Dialect_x.mlir.0, ...
(cd "$root" && find test examples -name '*.mlir' | sort) | while read -r f; do
  name=$(echo "$f" | tr '/' '_')
  awk -v out="$seeds/$name" '
    BEGIN { n = 0; file = out "." n }
    /^\/\/ -----/ { close(file); n++; file = out "." n; next }
    { print > file }' "$root/$f"
done
echo "fuzz: $(ls "$seeds" | wc -l) seeds from test/ and examples/"

# Leaks are not findings here: libFuzzer's per-input leak check counts
# MLIR's process-wide caches (scripts/sanitize.sh runs LeakSanitizer).
# allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons its slabs only in code built
# with ASan (our inlined copies) and libMLIR.so's copies hand out those bytes
# without unpoisoning them: false use-after-poison reports (findings/README.md).
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:allow_user_poisoning=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
flags=(-dict="$root/tools/amp-fuzz/amp.dict" -max_len=16384 -timeout=30
       -rss_limit_mb=3072 -max_total_time="$seconds" -print_final_stats=1
       -artifact_prefix="$fuzz/artifacts/")
if [[ -n "${AMP_FUZZ_JOBS:-}" ]]; then
  flags+=(-jobs="$AMP_FUZZ_JOBS" -workers="$AMP_FUZZ_JOBS")
fi
# libFuzzer's link puts libstdc++ before the shared ASan runtime, which must
# come first: preload it.
LD_PRELOAD="$(clang-22 -print-file-name=libclang_rt.asan-x86_64.so)" \
  exec "$build/bin/amp-fuzz" "${flags[@]}" "$@" "$fuzz/corpus" "$seeds"
