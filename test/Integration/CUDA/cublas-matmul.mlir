// The tensor-core matmul test through cuBLAS (gemm=cublas): same values.
//
// REQUIRES: cuda-device
// RUN: amp-opt %S/tensor-core-matmul.mlir --amp-cuda-pipeline=gemm=cublas | amp-runner -e main --entry-point-result=void | FileCheck %S/tensor-core-matmul.mlir
