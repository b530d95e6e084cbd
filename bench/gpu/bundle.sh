#!/usr/bin/env bash
# Packs a built amp-mlir (build/) with the parts of LLVM/MLIR 22 it runs on,
# for a GPU machine that has the CUDA toolkit and Python but no Debian LLVM 22
# packages and no network (the lent H200 machines): bench/gpu/run.sh --bundle
# DIR installs it there in place of scripts/setup.sh and scripts/build.sh.
#
#   bash bench/gpu/bundle.sh [DIR]        (default DIR: .gpu-bundle)
#
# DIR receives three xz tarballs:
#   llvm.tar.xz     /usr/lib/llvm-22/{lib,bin,utils/lit}: the shared libraries
#                   amp-opt, amp-runner and libAmpMLIRCAPI.so load (libMLIR,
#                   libLLVM, the runner utils, libomp) and lit, FileCheck, not,
#                   count.
#   sysdeps.tar.xz  the other non-glibc libraries those load (libffi, libedit,
#                   libxml2, ICU, Z3, ...); run.sh installs only the ones the
#                   machine lacks.
#   build.tar.xz    build/bin, build/lib/*.so and build/test/lit.site.cfg.py,
#                   with the CPU runtime rebuilt without oneDNN (in
#                   build-gpu-runtime/: libdnnl.so is 40 MB and the device
#                   machine takes 64 MiB in all; the GPU checks run no
#                   gemm=onednn code, and lit's onednn feature is off).
# The build's paths are absolute (/work/main/build, RUNPATHs, lit's site
# config), so run.sh links /work/main to the checkout when they differ.
# The three come to about 45 MB. Needs: a finished build (scripts/build.sh), xz.
set -euo pipefail
case "${1:-}" in
  -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
esac
root=$(cd "$(dirname "$0")/../.." && pwd)
build="${AMP_BUILD_DIR:-$root/build}"
[ -x "$build/bin/amp-runner" ] && [ -f "$build/lib/libAmpMLIRCAPI.so" ] ||
  { echo "bundle.sh: no finished build in $build (run scripts/build.sh)" >&2; exit 2; }
command -v xz >/dev/null || { echo "bundle.sh: xz is missing (apt-get install xz-utils)" >&2; exit 2; }
out=$(mkdir -p "${1:-$root/.gpu-bundle}" && cd "${1:-$root/.gpu-bundle}" && pwd)
llvm=/usr/lib/llvm-22

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/llvm$llvm/lib" "$stage/llvm$llvm/bin" "$stage/llvm$llvm/utils" "$stage/sys"

# The build's files, with the CPU runtime built without oneDNN.
nodnnl="$root/build-gpu-runtime"
AMP_BUILD_DIR="$nodnnl" AMP_CMAKE_ARGS="-DAMP_ENABLE_ONEDNN=OFF" \
  bash "$root/scripts/build.sh" amp_cpu_runtime > "$stage/runtime-build.log" 2>&1 ||
  { cat "$stage/runtime-build.log" >&2; echo "bundle.sh: building the CPU runtime without oneDNN failed" >&2; exit 1; }
mkdir -p "$stage/build/build/bin" "$stage/build/build/lib" "$stage/build/build/test"
cp -a "$build"/bin/* "$stage/build/build/bin/"
cp -a "$build"/lib/*.so "$stage/build/build/lib/"
cp -L "$nodnnl/lib/libamp_cpu_runtime.so" "$stage/build/build/lib/"
sed 's/^config.amp_have_onednn = .*/config.amp_have_onednn = False/' \
  "$build/test/lit.site.cfg.py" > "$stage/build/build/test/lit.site.cfg.py"

tools=("$llvm/bin/FileCheck" "$llvm/bin/not" "$llvm/bin/count")
objects=("$stage/build/build"/bin/* "$stage/build/build"/lib/*.so "${tools[@]}")
# Every shared library the objects load, by soname and resolved path.
declare -A seen=()
while read -r soname path; do
  [ -n "${seen[$soname]:-}" ] && continue
  seen[$soname]=1
  case "$soname" in
    libc.so.*|libm.so.*|libstdc++.so.*|libgcc_s.so.*|ld-linux*|libpthread.so.*|libdl.so.*|librt.so.*|linux-vdso*) ;;
    libamp_*|libAmp*) ;;                                  # the build's own
    libLLVM*|libMLIR*|libmlir_*|libomp*) cp -L "$path" "$stage/llvm$llvm/lib/$soname" ;;
    *) cp -L "$path" "$stage/sys/$soname" ;;
  esac
done < <(LD_LIBRARY_PATH="$stage/build/build/lib" ldd "${objects[@]}" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}')
# The JIT's runtime libraries are loaded by path, under their link names.
for name in libmlir_runner_utils libmlir_c_runner_utils libmlir_float16_utils \
            libmlir_apfloat_wrappers; do
  [ -f "$stage/llvm$llvm/lib/$name.so.22.1" ] || cp -L "$llvm/lib/$name.so.22.1" "$stage/llvm$llvm/lib/"
  ln -sf "$name.so.22.1" "$stage/llvm$llvm/lib/$name.so"
done
ln -sf libomp.so.5 "$stage/llvm$llvm/lib/libomp.so"
ln -sf libMLIR.so.22.1 "$stage/llvm$llvm/lib/libMLIR.so"
ln -sf libLLVM.so.22.1 "$stage/llvm$llvm/lib/libLLVM.so"
for t in "${tools[@]}"; do cp "$t" "$stage/llvm$llvm/bin/"; done
cp -r "$llvm/utils/lit" "$stage/llvm$llvm/utils/"
# lit's launcher names /usr/bin/python3; the machine's python may be elsewhere.
printf '#!/usr/bin/env python3\nimport sys\nsys.path.insert(1, "%s/utils/lit")\nfrom lit.main import main\nmain()\n' \
  "$llvm" > "$stage/llvm$llvm/bin/lit"
chmod +x "$stage/llvm$llvm/bin/lit"

echo "bundle.sh: packing $(ls "$stage/llvm$llvm/lib" | wc -l) LLVM/MLIR libraries," \
     "$(ls "$stage/sys" | wc -l) system libraries, build/ into $out"
tar -C "$stage/llvm" -cf - . | xz -T0 -9 > "$out/llvm.tar.xz"
tar -C "$stage/sys" -cf - . | xz -T0 -9 > "$out/sysdeps.tar.xz"
tar -C "$stage/build" -cf - build | xz -T0 -9 > "$out/build.tar.xz"
du -ch "$out"/*.tar.xz | tail -1 | sed 's/^/bundle.sh: total /'
