#!/usr/bin/env bash
# The main job: set up, build, then train PyTorch modules through
# amp_mlir.torch.compile_train_step (the joint forward/backward graph of
# AOTAutograd, imported by torch-mlir, compiled with loss scaling and the
# optimizer as one step by amp-cpu-pipeline and JIT-run on the CPU):
# - the scikit-learn digits (1797 real 8x8 images): an MLP and a small CNN,
#   each in f32, autocast(cpu, bf16) and autocast(cpu, f16) with a
#   GradScaler; loss and test accuracy per epoch; PASS when every run reaches
#   95% and each AMP run is within 1 point of f32 (exit 1 otherwise);
# - a short char-level GPT run (2 layers) on the Python standard library's
#   sources with autocast(cpu, bf16): its loss curve against the unigram
#   entropy and a few generated characters (exit 1 unless the loss is below
#   0.85 x the unigram entropy).
# When the training passes, a real model's inference: resnet18 (examples/models, seeded random
# weights) compiled f32 and with autocast(cpu, bf16) by amp-cpu-pipeline and
# JIT-run on one input: the amp pass statistics, the time per inference of
# both, and the relative L2 error of the logits (PASS at most 2e-2, no
# NaN/inf; exit 1 otherwise).
# Then the PyTorch front door (amp_mlir.torch, issue 26): a GPT-style decoder
# (a torch.nn.Module) exported by torch.export + torch-mlir, compiled f32 and
# with autocast(cpu, bf16) and compared with PyTorch on the same tokens: the
# errors, compile times and time per call next to PyTorch's (PASS when f32 is
# within 1e-5 and autocast within 1.5x torch.autocast's error; exit 1
# otherwise).
# Extra arguments go to examples/training/digits.py (e.g. --epochs 30).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh"
build="${AMP_BUILD_DIR:-$root/build}"
export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}"
"$build/venv/bin/python" "$root/examples/training/digits.py" "$@"
echo
"$build/venv/bin/python" "$root/examples/training/gpt.py" --steps 200 --every 25 \
  --context 32 --generate 80
echo
echo "== resnet18 inference, f32 vs autocast(cpu, bf16), CPU JIT (20 calls each)"
"$build/venv/bin/python" "$root/utils/model_harness.py" \
  "$root/examples/models/resnet18.mlir" --build "$build" --device cpu \
  --repeat 20 --stats --max-rel-l2 2e-2
echo
echo "== PyTorch front end: a GPT decoder through torch-mlir and amp-mlir vs PyTorch"
"$build/venv/bin/python" "$root/examples/torch_frontend.py" --repeat 10
