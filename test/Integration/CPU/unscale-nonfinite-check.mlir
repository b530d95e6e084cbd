// The inf/NaN check of amp.unscale on gradients of rank 2 and 3, which
// amp-lower-loss-scaling reduces in two steps (one flag per row, then their
// or): a NaN, +inf or -inf anywhere (first, middle or last row, any column)
// is found, a finite gradient with large values (65504, -3.4e38) is not.
// Flags are printed as i32 (1: found), in this order: finite, NaN at
// [1, 0], +inf at [2, 4], -inf at [0, 3], 3-D finite, 3-D NaN at [1, 2, 1],
// a 0x5 gradient of dynamic first dimension (no rows: nothing found; on a
// GPU its kernels have an empty grid, which the runtime skips).
//
// RUN: amp-opt %s --amp-cpu-pipeline | amp-runner -e main --entry-point-result=void | FileCheck %s

func.func @check2d(%g: tensor<3x5xf32>) -> i32 {
  %s = arith.constant dense<1.0> : tensor<f32>
  %u, %inf = amp.unscale %g by %s : tensor<3x5xf32>
  %r = arith.extui %inf : i1 to i32
  return %r : i32
}

func.func @check3d(%g: tensor<2x3x2xf32>) -> i32 {
  %s = arith.constant dense<1.0> : tensor<f32>
  %u, %inf = amp.unscale %g by %s : tensor<2x3x2xf32>
  %r = arith.extui %inf : i1 to i32
  return %r : i32
}

func.func @checkdyn(%g: tensor<?x5xf32>) -> i32 {
  %s = arith.constant dense<1.0> : tensor<f32>
  %u, %inf = amp.unscale %g by %s : tensor<?x5xf32>
  %r = arith.extui %inf : i1 to i32
  return %r : i32
}

func.func private @printMemrefI32(tensor<*xi32>)

func.func @main() {
  %finite = arith.constant dense<[[1.0, 2.0, 3.0, 4.0, 65504.0],
                                  [-1.0, 0.0, -3.4e38, 3.4e38, 5.0],
                                  [0.5, 0.25, 1.0e-38, -0.0, 7.0]]> : tensor<3x5xf32>
  %nan = arith.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0],
                               [0x7FC00000, 0.0, 1.0, 1.0, 5.0],
                               [0.5, 0.25, 1.0, 2.0, 7.0]]> : tensor<3x5xf32>
  %pinf = arith.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0],
                                [1.0, 0.0, 1.0, 1.0, 5.0],
                                [0.5, 0.25, 1.0, 2.0, 0x7F800000]]> : tensor<3x5xf32>
  %ninf = arith.constant dense<[[1.0, 2.0, 3.0, 0xFF800000, 5.0],
                                [1.0, 0.0, 1.0, 1.0, 5.0],
                                [0.5, 0.25, 1.0, 2.0, 7.0]]> : tensor<3x5xf32>
  %f3 = arith.constant dense<1.5> : tensor<2x3x2xf32>
  %n3 = arith.constant dense<[[[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]],
                              [[1.0, 1.0], [1.0, 1.0], [1.0, 0x7FC00000]]]> : tensor<2x3x2xf32>
  %c0 = call @check2d(%finite) : (tensor<3x5xf32>) -> i32
  %c1 = call @check2d(%nan) : (tensor<3x5xf32>) -> i32
  %c2 = call @check2d(%pinf) : (tensor<3x5xf32>) -> i32
  %c3 = call @check2d(%ninf) : (tensor<3x5xf32>) -> i32
  %c4 = call @check3d(%f3) : (tensor<2x3x2xf32>) -> i32
  %c5 = call @check3d(%n3) : (tensor<2x3x2xf32>) -> i32
  %empty = tensor.empty() : tensor<0x5xf32>
  %e = tensor.cast %empty : tensor<0x5xf32> to tensor<?x5xf32>
  %c6 = call @checkdyn(%e) : (tensor<?x5xf32>) -> i32
  %flags = tensor.from_elements %c0, %c1, %c2, %c3, %c4, %c5, %c6 : tensor<7xi32>
  %fu = tensor.cast %flags : tensor<7xi32> to tensor<*xi32>
  call @printMemrefI32(%fu) : (tensor<*xi32>) -> ()
  // CHECK: [0,  1,  1,  1,  0,  1,  0]
  return
}
