#!/usr/bin/env bash
# Installs what amp-mlir needs on a fresh Debian (bookworm) machine. Idempotent:
# packages already present are skipped, so running it twice is cheap.
set -euo pipefail

PKGS=(llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools clang-22 lld-22
      g++ ninja-build cmake python3 python3-numpy libopenblas0-pthread
      python3-venv python3-pip python3-pytest python3-sklearn libomp-22-dev)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done

if ((${#missing[@]})); then
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "setup: Debian packages present"
fi

# lit's Python package ships with llvm-22-tools; nothing else is needed for the
# C++ build and the lit suite. The Python package and its tests run in a
# virtual environment that sees Debian's numpy, scikit-learn and pytest and
# adds ml_dtypes (bf16 numpy arrays) from PyPI, pinned to a release that
# works with bookworm's numpy 1.24.
test -x /usr/lib/llvm-22/bin/mlir-opt || { echo "setup: mlir-opt missing" >&2; exit 1; }
test -x /usr/lib/llvm-22/bin/lit || { echo "setup: lit missing" >&2; exit 1; }

build="${AMP_BUILD_DIR:-$(cd "$(dirname "$0")/.." && pwd)/build}"
venv="$build/venv"
if ! "$venv/bin/python" -c "import ml_dtypes, numpy, sklearn, pytest" 2>/dev/null; then
  echo "setup: creating $venv (system site packages + ml_dtypes)"
  mkdir -p "$build"
  /usr/bin/python3 -m venv --system-site-packages "$venv"
  numpy_version=$(/usr/bin/python3 -c "import numpy; print(numpy.__version__)")
  "$venv/bin/pip" install -q "ml_dtypes<0.5" "numpy==$numpy_version" \
    || { echo "setup: pip could not install ml_dtypes (is PyPI reachable?)" >&2; exit 1; }
fi

# --- oneDNN for amp-cpu-pipeline{gemm=onednn} (the CPU runtime's contraction
# library; lib/Runtime/CPU/CMakeLists.txt finds it, and builds without it
# when it is absent). Debian's libdnnl-dev (oneDNN 2.6, 39 MB, OpenMP
# threading) rather than PyPI's onednn/onednn-devel: the PyPI wheel is the
# SYCL/DPC++ build (a 110 MB library that pulls intel-opencl-rt and
# dpcpp-cpp-rt), installs into the venv the C++ build would have to search,
# and is not what CI's apt-based setup already trusts. Idempotent: skipped
# when installed.
if ! dpkg-query -W -f='${Status}' libdnnl-dev 2>/dev/null | grep -q "install ok installed"; then
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  echo "setup: installing libdnnl-dev (oneDNN)"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends libdnnl-dev
fi
# --- end oneDNN
