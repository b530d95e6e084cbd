// C05: f16 scores (a matmul) plus an f32 mask with -3.4e38, softmax over the
// last axis, in a cuda/f16 region: [[1, 0], [0.5, 0.5]]. The mask is not
// narrowed to -inf (which gives NaN in row 2): the add takes the widest
// input type and softmax runs in f32.
// RUN: amp-opt %s --amp-cpu-pipeline | amp-runner -e main --entry-point-result=void | FileCheck %s
// RUN: amp-opt %s --amp-cpu-pipeline=mode=eager | amp-runner -e main --entry-point-result=void | FileCheck %s
// CHECK: ( 1, 0 )
// CHECK-NEXT: ( 0.5, 0.5 )

func.func @c05(%q: tensor<2x2xf32>, %k: tensor<2x2xf32>, %mask: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %zero = arith.constant 0.0 : f32
  %r = amp.autocast device_type(cuda) -> tensor<2x2xf32> {
    %e = tensor.empty() : tensor<2x2xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
    %s = linalg.matmul ins(%q, %k : tensor<2x2xf32>, tensor<2x2xf32>) outs(%f : tensor<2x2xf32>) -> tensor<2x2xf32>
    %m = arith.addf %s, %mask : tensor<2x2xf32>
    %p = linalg.softmax dimension(1) ins(%m : tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
    amp.yield %p : tensor<2x2xf32>
  }
  return %r : tensor<2x2xf32>
}

func.func @main() {
  %q = arith.constant dense<0.0> : tensor<2x2xf32>
  %mask = arith.constant dense<[[0.0, -3.4e38], [-3.4e38, -3.4e38]]> : tensor<2x2xf32>
  %r = call @c05(%q, %q, %mask) : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %p = arith.constant 0.0 : f32
  %v0 = vector.transfer_read %r[%c0, %c0], %p : tensor<2x2xf32>, vector<2xf32>
  %v1 = vector.transfer_read %r[%c1, %c0], %p : tensor<2x2xf32>, vector<2xf32>
  vector.print %v0 : vector<2xf32>
  vector.print %v1 : vector<2xf32>
  return
}
