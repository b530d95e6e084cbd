// C01: dot product of 4096 f16 ones in a cuda/f16 region, compiled for the
// CPU: f16 inputs, f32 accumulator, 4096 exactly (an f16 accumulator stops
// at 2048).
// RUN: amp-opt %s --amp-cpu-pipeline | amp-runner -e main --entry-point-result=void | FileCheck %s
// RUN: amp-opt %s --amp-cpu-pipeline=mode=eager | amp-runner -e main --entry-point-result=void | FileCheck %s
// CHECK: 4096

func.func @c01(%a: tensor<1x4096xf32>, %b: tensor<4096x1xf32>) -> tensor<1x1xf32> {
  %zero = arith.constant 0.0 : f32
  %r = amp.autocast device_type(cuda) -> tensor<1x1xf32> {
    %e = tensor.empty() : tensor<1x1xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1xf32>) -> tensor<1x1xf32>
    %m = linalg.matmul ins(%a, %b : tensor<1x4096xf32>, tensor<4096x1xf32>) outs(%f : tensor<1x1xf32>) -> tensor<1x1xf32>
    amp.yield %m : tensor<1x1xf32>
  }
  return %r : tensor<1x1xf32>
}

func.func @main() {
  %a = arith.constant dense<1.0> : tensor<1x4096xf32>
  %b = arith.constant dense<1.0> : tensor<4096x1xf32>
  %r = call @c01(%a, %b) : (tensor<1x4096xf32>, tensor<4096x1xf32>) -> tensor<1x1xf32>
  %c0 = arith.constant 0 : index
  %v = tensor.extract %r[%c0, %c0] : tensor<1x1xf32>
  vector.print %v : f32
  return
}
