// RUN: amp-opt %s -split-input-file --amp-decompose-aggregated-ops -verify-diagnostics | FileCheck %s

// linalg.softmax on tensors becomes max, sub + exp, sum and div generics, in
// its own element type.
// CHECK-LABEL: func @softmax
// CHECK-NOT: linalg.softmax
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: arith.maxnumf {{.*}} : f32
// CHECK: math.exp {{.*}} : f32
// CHECK: arith.addf {{.*}} : f32
// CHECK: arith.divf {{.*}} : f32
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

func.func @softmax_buffers(%x: memref<4x8xf32>, %o: memref<4x8xf32>) {
  // expected-error @+1 {{amp-decompose-aggregated-ops: only ops on tensors can be decomposed; this one has buffer operands}}
  linalg.softmax dimension(1) ins(%x : memref<4x8xf32>) outs(%o : memref<4x8xf32>)
  return
}
