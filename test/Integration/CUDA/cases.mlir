// GPU execution of cases C01 (f16 dot of 4096 ones: 4096 with fp32
// accumulation), C03 (bf16 1024^2 matmul), C05 (masked softmax), C14 (loss
// scaling) and the inf/NaN check of amp.unscale on 2-D and 3-D gradients with
// amp-cuda-pipeline, JIT-run by amp-runner on the project's CUDA runtime.
// The inputs and expected values are the CPU tests' (test/Integration/CPU).
//
// REQUIRES: cuda-device
// RUN: amp-opt %S/../CPU/c01-f16-dot.mlir --amp-cuda-pipeline | amp-runner -e main --entry-point-result=void | FileCheck %S/../CPU/c01-f16-dot.mlir
// RUN: amp-opt %S/../CPU/c03-bf16-matmul.mlir --amp-cuda-pipeline | amp-runner -e main --entry-point-result=void | FileCheck %S/../CPU/c03-bf16-matmul.mlir
// RUN: amp-opt %S/../CPU/c05-masked-softmax.mlir --amp-cuda-pipeline | amp-runner -e main --entry-point-result=void | FileCheck %S/../CPU/c05-masked-softmax.mlir
// RUN: amp-opt %S/../CPU/c14-loss-scaling.mlir --amp-cuda-pipeline | amp-runner -e main --entry-point-result=void | FileCheck %S/../CPU/c14-loss-scaling.mlir
// RUN: amp-opt %S/../CPU/unscale-nonfinite-check.mlir --amp-cuda-pipeline | amp-runner -e main --entry-point-result=void | FileCheck %S/../CPU/unscale-nonfinite-check.mlir
