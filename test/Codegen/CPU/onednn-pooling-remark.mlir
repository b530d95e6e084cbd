// RUN: amp-opt %s --amp-cpu-onednn-contractions -verify-diagnostics | FileCheck %s

// A marked max pooling whose output does not start as -inf (it accumulates
// into an argument) stays a loop nest, with a remark.
// CHECK-LABEL: func @max_pool_accumulating
// CHECK: linalg.pooling_nchw_max {dilations
// CHECK-NOT: call
func.func @max_pool_accumulating(%x: memref<1x4x9x9xf32>, %o: memref<1x4x4x4xf32>) {
  %w = memref.alloc() : memref<3x3xf32>
  // expected-remark @below {{the output of this max pooling does not start as -inf; it is lowered to loops}}
  linalg.pooling_nchw_max {amp_cpu.onednn, dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>}
      ins(%x, %w : memref<1x4x9x9xf32>, memref<3x3xf32>) outs(%o : memref<1x4x4x4xf32>)
  memref.dealloc %w : memref<3x3xf32>
  return
}
