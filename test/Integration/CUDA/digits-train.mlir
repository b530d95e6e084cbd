// GPU execution of the digits training run (amp_mlir.digits, real data:
// scikit-learn's 8x8 handwritten digits): f32, autocast(cpu, bf16) and
// autocast(cuda, f16) with dynamic loss scaling, every training step and
// evaluation compiled by amp-cuda-pipeline for sm_90 and run on the GPU
// from numpy batches. Each run must reach 95% test accuracy after 15
// epochs and each AMP run must be within 1 point of f32 (the CPU test,
// python/tests/test_digits.py, holds the same bounds).
//
// REQUIRES: cuda-device
// RUN: cd %amp_src_root/python && %amp_build_root/venv/bin/python -m amp_mlir.digits --target cuda --epochs 15 | FileCheck %s

// CHECK: target cuda
// CHECK: loss scale (cuda/f16): 315 steps
// CHECK: PASS (each run >= 95%, AMP within 1 point of f32)
