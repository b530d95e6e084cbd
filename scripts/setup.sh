#!/usr/bin/env bash
# Installs what amp-mlir needs on a fresh Debian (bookworm) machine. Idempotent:
# packages already present are skipped, so running it twice is cheap.
set -euo pipefail

PKGS=(llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools clang-22 lld-22
      g++ ninja-build cmake python3 python3-numpy libopenblas0-pthread
      python3-venv python3-pip python3-pytest python3-sklearn libomp-22-dev
      libclang-rt-22-dev)

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

# libclang-rt-22-dev: clang's sanitizer and libFuzzer runtimes, for
# scripts/sanitize.sh and scripts/fuzz.sh (the default build does not use
# them). lit's Python package ships with llvm-22-tools; nothing else is needed for the
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
  "$venv/bin/pip" install -q "ml_dtypes==0.5.4" "numpy==$numpy_version" \
    || { echo "setup: pip could not install ml_dtypes (is PyPI reachable?)" >&2; exit 1; }
fi

# --- The PyTorch front end (amp_mlir.torch): PyPI's torch, torchvision and
# torch-mlir, pinned to releases that work together: torch-mlir 20261001 is
# the nightly built against torch 2.15 and has torch_mlir.fx; ml_dtypes 0.5.4
# is what torch_mlir.fx imports and still works with bookworm's numpy 1.24
# (numpy 2 would break Debian's scikit-learn). torch's wheel pulls NVIDIA's
# CUDA wheels (about 5 GB installed, 2-3 minutes). Triton is removed: nothing
# here compiles with it, and it bundles a third LLVM that torch imports
# lazily (see python/amp_mlir/torch/__init__.py).
TORCH_PINS=(torch==2.15.0 torchvision==0.29.2 torch-mlir==20261001)
if ! "$venv/bin/python" -c "
import importlib.metadata as m, sys
want = dict(p.split('==') for p in sys.argv[1:])
sys.exit(any(m.version(k) != v for k, v in want.items()))" "${TORCH_PINS[@]}" 2>/dev/null; then
  echo "setup: installing ${TORCH_PINS[*]} into $venv"
  numpy_version=$(/usr/bin/python3 -c "import numpy; print(numpy.__version__)")
  "$venv/bin/pip" install -q "${TORCH_PINS[@]}" "ml_dtypes==0.5.4" "numpy==$numpy_version" \
    || { echo "setup: pip could not install ${TORCH_PINS[*]} (is PyPI reachable?)" >&2; exit 1; }
fi
"$venv/bin/pip" uninstall -q -y triton 2>/dev/null || true
# --- end PyTorch front end

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

# --- MPI for data-parallel training (amp-cpu-pipeline{data-parallel=N},
# Trainer(distributed=True), python/tests/test_distributed.py, the
# test/Integration/MPI lit tests): Debian's OpenMPI (libopenmpi-dev: libmpi.so
# and mpi.h, which CMake's FindMPI reports; openmpi-bin: mpirun) and
# python3-mpi4py (the venv sees it through its system site packages; the
# package itself reaches MPI through ctypes). Idempotent: skipped when
# installed.
MPI_PKGS=(libopenmpi-dev openmpi-bin python3-mpi4py)
mpi_missing=()
for p in "${MPI_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || mpi_missing+=("$p")
done
if ((${#mpi_missing[@]})); then
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  echo "setup: installing ${mpi_missing[*]} (MPI)"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${mpi_missing[@]}"
fi
# --- end MPI
