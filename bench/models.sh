#!/usr/bin/env bash
# Forward time per inference of real models, f32 vs autocast, compiled by
# amp-cpu-pipeline and JIT-run by amp-runner in one process (same input,
# same seeded weights). Prints f32_ms, amp_ms, speedup (f32/amp) and the
# relative L2 error of the logits for each model and autocast device.
# Usage: bash bench/models.sh [repeat]   (default 20 calls per version)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
repeat=${1:-20}
for model in resnet18 mobilenet_v2; do
  for device in cpu cuda; do
    python3 "$root/utils/model_harness.py" "$root/examples/models/$model.mlir" \
      --device "$device" --repeat "$repeat" | tr '\n' ' '
    echo
  done
done
