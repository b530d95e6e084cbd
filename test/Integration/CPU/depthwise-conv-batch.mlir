// A depthwise NHWC convolution with batch 2: [3, 5] * 2 = [6, 10] for every
// batch entry. (Upstream's im2col rewrite of this op reads out of bounds for
// batch > 1 in MLIR 22.1; amp-cpu-tile-and-vectorize does not apply it.)
// RUN: amp-opt %s --amp-cpu-pipeline | amp-runner -e main --entry-point-result=void | FileCheck %s
// CHECK: 6
// CHECK-NEXT: 10

func.func @dw(%i: tensor<2x1x1x1xf32>, %w: tensor<1x1x1xf32>) -> tensor<2x1x1x1xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x1x1x1xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x1x1x1xf32>) -> tensor<2x1x1x1xf32>
  %r = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%i, %w : tensor<2x1x1x1xf32>, tensor<1x1x1xf32>) outs(%f : tensor<2x1x1x1xf32>) -> tensor<2x1x1x1xf32>
  return %r : tensor<2x1x1x1xf32>
}

func.func @main() {
  %i = arith.constant dense<[[[[3.0]]], [[[5.0]]]]> : tensor<2x1x1x1xf32>
  %w = arith.constant dense<[[[2.0]]]> : tensor<1x1x1xf32>
  %r = call @dw(%i, %w) : (tensor<2x1x1x1xf32>, tensor<1x1x1xf32>) -> tensor<2x1x1x1xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v0 = tensor.extract %r[%c0, %c0, %c0, %c0] : tensor<2x1x1x1xf32>
  %v1 = tensor.extract %r[%c1, %c0, %c0, %c0] : tensor<2x1x1x1xf32>
  vector.print %v0 : f32
  vector.print %v1 : f32
  return
}
