// A tosa layer whose batch dimension is dynamic (`?`), compiled and run in
// f32 and in a cuda/f16 autocast region in both modes: relu(x W + b) per
// batch element, x: ?x1x2, W: ?x2x2 (values exact in f16). The CPU
// pipeline's TOSA validation used to refuse it: upstream's default target
// (TOSA 1.0) allows no dynamic dimension, and the error named a tosa op the
// pipeline had made itself (amp-validate-tosa-input now checks the input as
// written, against what the pipeline compiles).
// batch 0: [1, 2] [[1, -1], [0.5, 2]] + [0.25, -5] = [2.25, -2] -> [2.25, 0]
// batch 1: [3, -1] [[1, 0], [0, 1]] + [0.25, -5] = [3.25, -6] -> [3.25, 0]
// RUN: amp-opt %s --amp-cpu-pipeline=autocast=false | amp-runner -e main --entry-point-result=void | FileCheck %s
// RUN: amp-opt %s --amp-cpu-pipeline | amp-runner -e main --entry-point-result=void | FileCheck %s
// RUN: amp-opt %s --amp-cpu-pipeline=mode=eager | amp-runner -e main --entry-point-result=void | FileCheck %s
// CHECK: ( 2.25, 0 )
// CHECK-NEXT: ( 3.25, 0 )

func.func @layer(%x: tensor<?x1x2xf32>, %w: tensor<?x2x2xf32>) -> tensor<?x1x2xf32> {
  %r = amp.autocast device_type(cuda) -> tensor<?x1x2xf32> {
    %b = "tosa.const"() <{values = dense<[[[0.25, -5.0]]]> : tensor<1x1x2xf32>}> : () -> tensor<1x1x2xf32>
    %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %m = tosa.matmul %x, %w, %z, %z : (tensor<?x1x2xf32>, tensor<?x2x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<?x1x2xf32>
    %a = tosa.add %m, %b : (tensor<?x1x2xf32>, tensor<1x1x2xf32>) -> tensor<?x1x2xf32>
    %y = tosa.clamp %a {max_val = 3.4e38 : f32, min_val = 0.0 : f32} : (tensor<?x1x2xf32>) -> tensor<?x1x2xf32>
    amp.yield %y : tensor<?x1x2xf32>
  }
  return %r : tensor<?x1x2xf32>
}

func.func @main() {
  %x = arith.constant dense<[[[1.0, 2.0]], [[3.0, -1.0]]]> : tensor<2x1x2xf32>
  %w = arith.constant dense<[[[1.0, -1.0], [0.5, 2.0]], [[1.0, 0.0], [0.0, 1.0]]]> : tensor<2x2x2xf32>
  %xd = tensor.cast %x : tensor<2x1x2xf32> to tensor<?x1x2xf32>
  %wd = tensor.cast %w : tensor<2x2x2xf32> to tensor<?x2x2xf32>
  %r = call @layer(%xd, %wd) : (tensor<?x1x2xf32>, tensor<?x2x2xf32>) -> tensor<?x1x2xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %p = arith.constant 0.0 : f32
  %v0 = vector.transfer_read %r[%c0, %c0, %c0], %p : tensor<?x1x2xf32>, vector<2xf32>
  vector.print %v0 : vector<2xf32>
  %v1 = vector.transfer_read %r[%c1, %c0, %c0], %p : tensor<?x1x2xf32>, vector<2xf32>
  vector.print %v1 : vector<2xf32>
  return
}
