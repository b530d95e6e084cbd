// TOSA that public kernel files use and upstream's default TOSA target (1.0,
// level 8k, no extension) refuses, compiled and run: a tosa.rescale with
// rounding_mode = DOUBLE_ROUND ("requires extension [doubleround]") and a
// rank-4 tosa.pad, whose padding is a !tosa.shape<8> ("exceeds MAX_RANK" at
// level 8k).
//
// Rescale by 2^30 / 2^32 = 1/4 with TOSA's apply_scale_32 (specification
// 1.0, section 1.7.2): round = 2^31, and with double rounding (shift > 31)
// +2^30 for x >= 0, -2^30 for x < 0; result = (x * 2^30 + round) >> 32, that
// is floor(x / 4 + 0.75) for x >= 0 and floor(x / 4 + 0.25) for x < 0 (single
// rounding would give floor(x / 4 + 0.5): 0 0 1 0 1 -1 2 -1 25 -25).
// x = 1 -1 2 -2 5 -5 6 -6 100 -100:
// CHECK: ( 1, 0, 1, -1, 2, -1, 2, -2, 25, -25 )
//
// Pad [[[[1], [2]]]] (1x1x2x1) with one row before and one column after,
// value -1: 1x2x3x1.
// CHECK-NEXT: ( -1, -1, -1 )
// CHECK-NEXT: ( 1, 2, -1 )
//
// RUN: amp-opt %s --amp-cpu-pipeline=autocast=false | amp-runner -e main --entry-point-result=void | FileCheck %s
// RUN: amp-opt %s --amp-cpu-pipeline | amp-runner -e main --entry-point-result=void | FileCheck %s

func.func @rescale(%x: tensor<10xi8>) -> tensor<10xi32> {
  %multiplier = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %shift = "tosa.const"() <{values = dense<32> : tensor<1xi8>}> : () -> tensor<1xi8>
  %izp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %ozp = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %r = tosa.rescale %x, %multiplier, %shift, %izp, %ozp {scale32 = true, rounding_mode = DOUBLE_ROUND, per_channel = false, input_unsigned = false, output_unsigned = false} : (tensor<10xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>, tensor<1xi32>) -> tensor<10xi32>
  return %r : tensor<10xi32>
}

func.func @pad(%x: tensor<1x1x2x1xf32>) -> tensor<1x2x3x1xf32> {
  %r = amp.autocast device_type(cuda) -> tensor<1x2x3x1xf32> {
    %padding = tosa.const_shape {values = dense<[0, 0, 1, 0, 0, 1, 0, 0]> : tensor<8xindex>} : () -> !tosa.shape<8>
    %minus1 = "tosa.const"() <{values = dense<-1.0> : tensor<1xf32>}> : () -> tensor<1xf32>
    %p = tosa.pad %x, %padding, %minus1 : (tensor<1x1x2x1xf32>, !tosa.shape<8>, tensor<1xf32>) -> tensor<1x2x3x1xf32>
    amp.yield %p : tensor<1x2x3x1xf32>
  }
  return %r : tensor<1x2x3x1xf32>
}

func.func @main() {
  %x = arith.constant dense<[1, -1, 2, -2, 5, -5, 6, -6, 100, -100]> : tensor<10xi8>
  %r = call @rescale(%x) : (tensor<10xi8>) -> tensor<10xi32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %i0 = arith.constant 0 : i32
  %v = vector.transfer_read %r[%c0], %i0 : tensor<10xi32>, vector<10xi32>
  vector.print %v : vector<10xi32>

  %y = arith.constant dense<[[[[1.0], [2.0]]]]> : tensor<1x1x2x1xf32>
  %p = call @pad(%y) : (tensor<1x1x2x1xf32>) -> tensor<1x2x3x1xf32>
  %f0 = arith.constant 0.0 : f32
  %p0 = vector.transfer_read %p[%c0, %c0, %c0, %c0], %f0 {in_bounds = [true], permutation_map = affine_map<(d0, d1, d2, d3) -> (d2)>} : tensor<1x2x3x1xf32>, vector<3xf32>
  vector.print %p0 : vector<3xf32>
  %p1 = vector.transfer_read %p[%c0, %c1, %c0, %c0], %f0 {in_bounds = [true], permutation_map = affine_map<(d0, d1, d2, d3) -> (d2)>} : tensor<1x2x3x1xf32>, vector<3xf32>
  vector.print %p1 : vector<3xf32>
  return
}
