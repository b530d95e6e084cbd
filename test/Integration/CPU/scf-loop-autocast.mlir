// A loop-carried accumulator in an scf.for inside a cpu/bf16 region: four
// matmuls accumulate into the iter_arg. Autocast casts the carried value in
// the loop body, so the loop yields a new tensor; bufferization must accept
// it. acc = 4 * (a b): [0][0] = 4 * 4 = 16, [2][2] = 4 * 16 = 64.
// RUN: amp-opt %s --amp-cpu-pipeline | amp-runner -e main --entry-point-result=void | FileCheck %s
// RUN: amp-opt %s --amp-cpu-pipeline=autocast=false | amp-runner -e main --entry-point-result=void | FileCheck %s
// CHECK: 16
// CHECK-NEXT: 64

func.func @f(%a: tensor<3x3xf32>, %b: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = amp.autocast device_type(cpu) -> tensor<3x3xf32> {
    %e = tensor.empty() : tensor<3x3xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x3xf32>) -> tensor<3x3xf32>
    %loop = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %f) -> tensor<3x3xf32> {
      %m = linalg.matmul ins(%a, %b : tensor<3x3xf32>, tensor<3x3xf32>) outs(%acc : tensor<3x3xf32>) -> tensor<3x3xf32>
      scf.yield %m : tensor<3x3xf32>
    }
    amp.yield %loop : tensor<3x3xf32>
  }
  return %r : tensor<3x3xf32>
}

func.func @main() {
  %a = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]> : tensor<3x3xf32>
  %b = arith.constant dense<[[1.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 1.0, 1.0]]> : tensor<3x3xf32>
  %r = call @f(%a, %b) : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %v0 = tensor.extract %r[%c0, %c0] : tensor<3x3xf32>
  %v1 = tensor.extract %r[%c2, %c2] : tensor<3x3xf32>
  vector.print %v0 : f32
  vector.print %v1 : f32
  return
}
