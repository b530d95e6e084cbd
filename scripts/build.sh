#!/usr/bin/env bash
# Configures (once) and builds amp-mlir in build/ with Ninja against Debian's
# LLVM/MLIR 22. Extra arguments are Ninja targets (default: all).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="${AMP_BUILD_DIR:-$root/build}"
if [[ ! -f "$build/build.ninja" ]]; then
  cmake -G Ninja -S "$root" -B "$build"
fi
ninja -C "$build" "$@"
