// RUN: amp-opt %s -split-input-file --amp-autocast=annotate -verify-diagnostics | FileCheck %s

// Constants are cast at compile time; a constant that would overflow the low
// type keeps its op in f32, with a remark.
// CHECK-LABEL: func @constants
// CHECK: %[[Q:.*]] = arith.constant dense<2.500000e-01> : tensor<2x2xf16>
// CHECK: arith.mulf %{{.*}}, %[[Q]] {amp.compute_type = f16} : tensor<2x2xf16>
// CHECK: %[[BIG:.*]] = arith.constant dense<7.000000e+04> : tensor<2x2xf32>
// CHECK: arith.addf %{{.*}}, %[[BIG]] {amp.compute_type = f32} : tensor<2x2xf32>
func.func @constants(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %r = amp.autocast device_type(cuda) -> tensor<2x2xf32> {
    %e = tensor.empty() : tensor<2x2xf32>
    %m = linalg.matmul ins(%x, %x : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
    %q = arith.constant dense<0.25> : tensor<2x2xf32>
    %s = arith.mulf %m, %q : tensor<2x2xf32>
    %big = arith.constant dense<70000.0> : tensor<2x2xf32>
    // expected-remark @+1 {{stays f32: constant dense<7.000000e+04> : tensor<2x2xf32> does not fit in 'f16'}}
    %t = arith.addf %s, %big : tensor<2x2xf32>
    %m2 = linalg.matmul ins(%t, %x : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
    amp.yield %m2 : tensor<2x2xf32>
  }
  return %r : tensor<2x2xf32>
}

// -----

// Underflow counts too: 1e-10 is zero in f16 (but fits in bf16).
// CHECK-LABEL: func @underflow
// CHECK: arith.mulf %{{.*}} {amp.compute_type = f32} : tensor<2xf32>
// CHECK: arith.mulf %{{.*}} {amp.compute_type = bf16} : tensor<2xbf16>
func.func @underflow(%x: tensor<2x2xf32>, %v: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %r = amp.autocast device_type(cuda) -> tensor<2xf32> {
    %e = tensor.empty() : tensor<2xf32>
    %m = linalg.matvec ins(%x, %v : tensor<2x2xf32>, tensor<2xf32>) outs(%e : tensor<2xf32>) -> tensor<2xf32>
    %tiny = arith.constant dense<1.0e-10> : tensor<2xf32>
    // expected-remark @+1 {{stays f32: constant dense<1.000000e-10> : tensor<2xf32> does not fit in 'f16'}}
    %s = arith.mulf %m, %tiny : tensor<2xf32>
    amp.yield %s : tensor<2xf32>
  }
  %q = amp.autocast device_type(cuda) dtype(bf16) -> tensor<2xf32> {
    %e = tensor.empty() : tensor<2xf32>
    %m = linalg.matvec ins(%x, %v : tensor<2x2xf32>, tensor<2xf32>) outs(%e : tensor<2xf32>) -> tensor<2xf32>
    %tiny = arith.constant dense<1.0e-10> : tensor<2xf32>
    %s = arith.mulf %m, %tiny : tensor<2xf32>
    amp.yield %s : tensor<2xf32>
  }
  return %r, %q : tensor<2xf32>, tensor<2xf32>
}

// -----

// Case C05: scores plus an f32 mask of -3.4e38, then softmax, in a cuda/f16
// region: the mask is never narrowed (it would become -inf and give NaN).
// CHECK-LABEL: func @c05
// CHECK: %[[S:.*]] = linalg.matmul {amp.compute_type = f16}
// CHECK: %[[SF:.*]] = amp.cast %[[S]] : tensor<2x2xf16> to tensor<2x2xf32>
// CHECK: %[[M:.*]] = arith.addf %[[SF]], %{{.*}} {amp.compute_type = f32} : tensor<2x2xf32>
// CHECK: linalg.softmax {amp.compute_type = f32} dimension(1) ins(%[[M]] : tensor<2x2xf32>)
func.func @c05(%q: tensor<2x2xf32>, %k: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %mask = arith.constant dense<[[0.0, -3.4e38], [-3.4e38, -3.4e38]]> : tensor<2x2xf32>
  %r = amp.autocast device_type(cuda) -> tensor<2x2xf32> {
    %e = tensor.empty() : tensor<2x2xf32>
    %s = linalg.matmul ins(%q, %k : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
    %m = arith.addf %s, %mask : tensor<2x2xf32>
    %p = linalg.softmax dimension(1) ins(%m : tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
    amp.yield %p : tensor<2x2xf32>
  }
  return %r : tensor<2x2xf32>
}
