// A tosa layer with tosa.const weights and bias in a cuda/f16 region:
// relu(x W + b) with x = [1, 2], W = [[1, -1], [0.5, 2]], b = [0.25, -5]:
// [2.25, 0] (exact in f16). The pipeline lowers tosa.const (which the
// upstream tosa-to-linalg pipeline leaves) through tosa-to-arith.
// RUN: amp-opt %s --amp-cpu-pipeline | amp-runner -e main --entry-point-result=void | FileCheck %s
// RUN: amp-opt %s --amp-cpu-pipeline=autocast=false | amp-runner -e main --entry-point-result=void | FileCheck %s
// CHECK: ( 2.25, 0 )

func.func @layer(%x: tensor<1x1x2xf32>) -> tensor<1x1x2xf32> {
  %r = amp.autocast device_type(cuda) -> tensor<1x1x2xf32> {
    %w = "tosa.const"() <{values = dense<[[[1.0, -1.0], [0.5, 2.0]]]> : tensor<1x2x2xf32>}> : () -> tensor<1x2x2xf32>
    %b = "tosa.const"() <{values = dense<[[[0.25, -5.0]]]> : tensor<1x1x2xf32>}> : () -> tensor<1x1x2xf32>
    %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %m = tosa.matmul %x, %w, %z, %z : (tensor<1x1x2xf32>, tensor<1x2x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x2xf32>
    %a = tosa.add %m, %b : (tensor<1x1x2xf32>, tensor<1x1x2xf32>) -> tensor<1x1x2xf32>
    %y = tosa.clamp %a {max_val = 3.4e38 : f32, min_val = 0.0 : f32} : (tensor<1x1x2xf32>) -> tensor<1x1x2xf32>
    amp.yield %y : tensor<1x1x2xf32>
  }
  return %r : tensor<1x1x2xf32>
}

func.func @main() {
  %x = arith.constant dense<[[[1.0, 2.0]]]> : tensor<1x1x2xf32>
  %r = call @layer(%x) : (tensor<1x1x2xf32>) -> tensor<1x1x2xf32>
  %c0 = arith.constant 0 : index
  %p = arith.constant 0.0 : f32
  %v = vector.transfer_read %r[%c0, %c0, %c0], %p : tensor<1x1x2xf32>, vector<2xf32>
  vector.print %v : vector<2xf32>
  return
}
