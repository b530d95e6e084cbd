#!/usr/bin/env bash
# The main job: set up, build, then autocast a real model (resnet18, torchvision
# via torch-mlir) for cuda/f16 and cpu/bf16 in graph mode, with f32
# accumulation, and print what the cast policy did.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh"
opt="${AMP_BUILD_DIR:-$root/build}/bin/amp-opt"
model="$root/examples/models/resnet18.mlir"
out="${AMP_BUILD_DIR:-$root/build}/run"
mkdir -p "$out"
for device in cuda cpu; do
  echo "== resnet18, @forward decorated with #amp.autocast<device_type = $device>"
  sed -e "s/@forward(\([^)]*\)) -> \([^ ]*\) {/@forward(\1) -> \2 attributes {amp.autocast = #amp.autocast<device_type = $device>} {/" \
    "$model" > "$out/resnet18.$device.mlir"
  "$opt" "$out/resnet18.$device.mlir" --amp-autocast --amp-fp32-accumulation \
    -mlir-pass-statistics -o "$out/resnet18.$device.amp.mlir" 2>&1 |
    sed -n "/amp pass statistics/,\$p"
  echo "-- every convolution and matmul, by input and accumulator types (count, op):"
  grep -oE "linalg\.(conv_2d_nchw_fchw|matmul)[^(]*ins\([^)]*\) outs\([^)]*\)" \
    "$out/resnet18.$device.amp.mlir" | sed -E 's/%[a-z0-9_]+/%_/g; s/ \{[^}]*\}//' |
    sort | uniq -c
  echo "-- output: $out/resnet18.$device.amp.mlir"
done
