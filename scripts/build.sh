#!/usr/bin/env bash
# Configures (once) and builds amp-mlir in build/ with Ninja against Debian's
# LLVM/MLIR 22. Extra arguments are Ninja targets (default: all).
# AMP_BUILD_DIR picks the build directory (default build/); AMP_CMAKE_ARGS
# adds CMake options when that directory is first configured (e.g.
# -DAMP_ENABLE_ASSERTIONS=OFF for the benchmark build, see bench/).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="${AMP_BUILD_DIR:-$root/build}"
if [[ ! -f "$build/build.ninja" ]]; then
  # clang-22, the compiler Debian built libMLIR.so with: MLIR names implicit
  # TypeIDs (traits, interfaces) by the compiler's spelling of the type, and
  # libAmpMLIRCAPI.so must agree with libMLIR.so on them.
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    ${AMP_CMAKE_ARGS:-}
fi
ninja -C "$build" "$@"
