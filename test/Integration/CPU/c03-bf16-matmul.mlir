// C03: a 1024x1024 matmul of all-ones matrices in a cpu/bf16 region, through
// the tiled and vectorized contraction: every element is 1024 (a bf16
// accumulator stops at 256). Prints the first, a middle and the last
// element, and the minimum and maximum over the matrix.
// RUN: amp-opt %s --amp-cpu-pipeline | amp-runner -e main --entry-point-result=void | FileCheck %s
// CHECK: 1024
// CHECK-NEXT: 1024
// CHECK-NEXT: 1024
// CHECK-NEXT: 1024
// CHECK-NEXT: 1024

func.func @c03(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %r = amp.autocast device_type(cpu) -> tensor<1024x1024xf32> {
    %e = tensor.empty() : tensor<1024x1024xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
    %m = linalg.matmul ins(%a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%f : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
    amp.yield %m : tensor<1024x1024xf32>
  }
  return %r : tensor<1024x1024xf32>
}

func.func @main() {
  %a = arith.constant dense<1.0> : tensor<1024x1024xf32>
  %b = arith.constant dense<1.0> : tensor<1024x1024xf32>
  %r = call @c03(%a, %b) : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %c0 = arith.constant 0 : index
  %c517 = arith.constant 517 : index
  %c1023 = arith.constant 1023 : index
  %v0 = tensor.extract %r[%c0, %c0] : tensor<1024x1024xf32>
  %v1 = tensor.extract %r[%c517, %c1023] : tensor<1024x1024xf32>
  %v2 = tensor.extract %r[%c1023, %c1023] : tensor<1024x1024xf32>
  vector.print %v0 : f32
  vector.print %v1 : f32
  vector.print %v2 : f32
  %big = arith.constant 3.0e38 : f32
  %small = arith.constant -3.0e38 : f32
  %i0 = tensor.empty() : tensor<f32>
  %i1 = linalg.fill ins(%big : f32) outs(%i0 : tensor<f32>) -> tensor<f32>
  %i2 = linalg.fill ins(%small : f32) outs(%i0 : tensor<f32>) -> tensor<f32>
  %mn = linalg.reduce ins(%r : tensor<1024x1024xf32>) outs(%i1 : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %m = arith.minimumf %in, %acc : f32
      linalg.yield %m : f32
    }
  %mx = linalg.reduce ins(%r : tensor<1024x1024xf32>) outs(%i2 : tensor<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %m = arith.maximumf %in, %acc : f32
      linalg.yield %m : f32
    }
  %vmn = tensor.extract %mn[] : tensor<f32>
  %vmx = tensor.extract %mx[] : tensor<f32>
  vector.print %vmn : f32
  vector.print %vmx : f32
  return
}
