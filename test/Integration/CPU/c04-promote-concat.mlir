// C04: concat of an f16 matmul result [1, 2] with an f32 [70000] in a
// cuda/f16 region is f32 (promote never narrows): [1, 2, 70000], not inf.
// RUN: amp-opt %s --amp-cpu-pipeline | amp-runner -e main --entry-point-result=void | FileCheck %s
// RUN: amp-opt %s --amp-cpu-pipeline=mode=eager | amp-runner -e main --entry-point-result=void | FileCheck %s
// CHECK: ( 1, 2, 70000 )

func.func @c04(%a: tensor<1x4xf32>, %b: tensor<4x2xf32>) -> tensor<1x3xf32> {
  %zero = arith.constant 0.0 : f32
  %r = amp.autocast device_type(cuda) -> tensor<1x3xf32> {
    %e = tensor.empty() : tensor<1x2xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2xf32>) -> tensor<1x2xf32>
    %m = linalg.matmul ins(%a, %b : tensor<1x4xf32>, tensor<4x2xf32>) outs(%f : tensor<1x2xf32>) -> tensor<1x2xf32>
    %c = arith.constant dense<70000.0> : tensor<1x1xf32>
    %cat = tensor.concat dim(1) %m, %c : (tensor<1x2xf32>, tensor<1x1xf32>) -> tensor<1x3xf32>
    amp.yield %cat : tensor<1x3xf32>
  }
  return %r : tensor<1x3xf32>
}

func.func @main() {
  %a = arith.constant dense<1.0> : tensor<1x4xf32>
  %b = arith.constant dense<[[0.25, 0.5], [0.25, 0.5], [0.25, 0.5], [0.25, 0.5]]> : tensor<4x2xf32>
  %r = call @c04(%a, %b) : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x3xf32>
  %c0 = arith.constant 0 : index
  %p = arith.constant 0.0 : f32
  %v = vector.transfer_read %r[%c0, %c0], %p : tensor<1x3xf32>, vector<3xf32>
  vector.print %v : vector<3xf32>
  return
}
