#!/usr/bin/env bash
# Installs a bundle made by bench/gpu/bundle.sh (see there for what it holds)
# on a machine without Debian's LLVM 22: run as root, by bench/gpu/run.sh
# --bundle DIR. Idempotent.
#   - llvm.tar.xz goes to /usr/lib/llvm-22 (the path the build's RUNPATHs name);
#   - of sysdeps.tar.xz, only the libraries whose soname the machine lacks go
#     to /usr/local/lib/amp-sysdeps (registered with ldconfig), so the
#     machine's own libraries (newer ones, that its Python loads) stay first;
#   - build.tar.xz goes to /work/main/build, /work/main being a link to this
#     checkout when the checkout is elsewhere (the build's paths are absolute);
#   - build/venv/bin/python runs the machine's python3 (numpy, ml_dtypes,
#     scikit-learn and, for the baselines, PyTorch come from there).
# Exits non-zero, naming what is missing, when a binary would not load.
set -euo pipefail
bundle=$(cd "${1:?usage: install-bundle.sh DIR}" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "install-bundle.sh: needs root (it writes /usr/lib/llvm-22)" >&2; exit 2; }
python=$(command -v python3) || { echo "install-bundle.sh: no python3" >&2; exit 2; }

untar() {  # untar ARCHIVE DIR, with Python's tarfile: xz(1) may be absent
  "$python" -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$1" "$2"
}
untar "$bundle/llvm.tar.xz" /
sys=$(mktemp -d)
untar "$bundle/sysdeps.tar.xz" "$sys"
dest=/usr/local/lib/amp-sysdeps
mkdir -p "$dest"
added=()
known=$(ldconfig -p)
for f in "$sys"/*; do
  so=$(basename "$f")
  if ! grep -qF "	$so (" <<<"$known"; then
    cp "$f" "$dest/"
    added+=("$so")
  fi
done
rm -rf "$sys"
echo "$dest" > /etc/ld.so.conf.d/amp-sysdeps.conf
ldconfig
echo "install-bundle.sh: LLVM/MLIR 22 in /usr/lib/llvm-22; system libraries added: ${added[*]:-none}"

if [ "$(readlink -f /work/main 2>/dev/null)" != "$root" ]; then
  [ -e /work/main ] && { echo "install-bundle.sh: /work/main exists and is not this checkout ($root)" >&2; exit 2; }
  mkdir -p /work
  ln -s "$root" /work/main
fi
untar "$bundle/build.tar.xz" /work/main
mkdir -p /work/main/build/venv/bin
printf '#!/bin/sh\nexec %s "$@"\n' "$python" > /work/main/build/venv/bin/python
chmod +x /work/main/build/venv/bin/python

missing=$(ldd /work/main/build/bin/* /work/main/build/lib/*.so /usr/lib/llvm-22/bin/FileCheck 2>&1 |
          grep "not found" | sort -u || true)
[ -z "$missing" ] || { echo "install-bundle.sh: libraries not found:" >&2; echo "$missing" >&2; exit 1; }
/work/main/build/venv/bin/python -c "import numpy, ml_dtypes, sklearn" ||
  { echo "install-bundle.sh: $python lacks numpy, ml_dtypes or scikit-learn" >&2; exit 1; }
/work/main/build/bin/amp-opt --version | head -2
