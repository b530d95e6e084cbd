#!/usr/bin/env bash
# The main job: set up, build, then compile the real resnet18 (torchvision via
# torch-mlir, examples/models) in f32 and under cpu/bf16 autocast with
# amp-cpu-pipeline, JIT-run both with amp-runner on the same input (seeded
# random weights) and print the cast statistics, the time per inference of
# f32 vs autocast, and the relative L2 error of the autocast logits.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh"
build="${AMP_BUILD_DIR:-$root/build}"
out="$build/run"
mkdir -p "$out"
echo "== resnet18: f32 vs autocast(cpu, bf16), graph mode, JIT on this CPU"
python3 "$root/utils/model_harness.py" "$root/examples/models/resnet18.mlir" \
  --build "$build" --device cpu --mode graph --repeat 10 --stats \
  --keep "$out/resnet18.harness.mlir" --max-rel-l2 2e-2
echo "-- compiled module (f32 and autocast copies + main): $out/resnet18.harness.mlir"
