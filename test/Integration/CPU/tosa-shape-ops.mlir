// tosa's data-movement ops (reshape, slice, concat, pad, tile) lower through
// tosa-to-tensor and tosa-to-linalg and run, in f32 and in a cuda/f16
// autocast region (integers: exact in f16); before tosa-to-tensor was in the
// front end they stopped the pipeline ("op was not bufferized").
// x = [[0, 1, 2, 3], [4, 5, 6, 7]]; reshape to 4 x 2, rows 1..2 and 0,
// concatenated (rows 1, 2, 0), padded with one column of -1 on the left,
// tiled twice along columns, then scaled by the f16 matmul with identity.
// RUN: amp-opt %s --amp-cpu-pipeline=autocast=false | amp-runner -e main --entry-point-result=void | FileCheck %s
// RUN: amp-opt %s --amp-cpu-pipeline | amp-runner -e main --entry-point-result=void | FileCheck %s
// RUN: amp-opt %s --amp-cpu-pipeline=mode=eager | amp-runner -e main --entry-point-result=void | FileCheck %s
// CHECK: ( -1, 2, 3, -1, 2, 3 )
// CHECK-NEXT: ( -1, 4, 5, -1, 4, 5 )
// CHECK-NEXT: ( -1, 0, 1, -1, 0, 1 )

func.func @shapes(%x: tensor<2x4xf32>, %eye: tensor<6x6xf32>) -> tensor<3x6xf32> {
  %r = amp.autocast device_type(cuda) -> tensor<3x6xf32> {
    %s42 = tosa.const_shape {values = dense<[4, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %y = tosa.reshape %x, %s42 : (tensor<2x4xf32>, !tosa.shape<2>) -> tensor<4x2xf32>
    %start1 = tosa.const_shape {values = dense<[1, 0]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %size2 = tosa.const_shape {values = dense<[2, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %a = tosa.slice %y, %start1, %size2 : (tensor<4x2xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<2x2xf32>
    %start0 = tosa.const_shape {values = dense<[0, 0]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %size1 = tosa.const_shape {values = dense<[1, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %b = tosa.slice %y, %start0, %size1 : (tensor<4x2xf32>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<1x2xf32>
    %c = tosa.concat %a, %b {axis = 0 : i32} : (tensor<2x2xf32>, tensor<1x2xf32>) -> tensor<3x2xf32>
    %padding = tosa.const_shape {values = dense<[0, 0, 1, 0]> : tensor<4xindex>} : () -> !tosa.shape<4>
    %minus1 = "tosa.const"() {values = dense<-1.0> : tensor<1xf32>} : () -> tensor<1xf32>
    %p = tosa.pad %c, %padding, %minus1 : (tensor<3x2xf32>, !tosa.shape<4>, tensor<1xf32>) -> tensor<3x3xf32>
    %twice = tosa.const_shape {values = dense<[1, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %t = tosa.tile %p, %twice : (tensor<3x3xf32>, !tosa.shape<2>) -> tensor<3x6xf32>
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<3x6xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x6xf32>) -> tensor<3x6xf32>
    %m = linalg.matmul ins(%t, %eye : tensor<3x6xf32>, tensor<6x6xf32>) outs(%f : tensor<3x6xf32>) -> tensor<3x6xf32>
    amp.yield %m : tensor<3x6xf32>
  }
  return %r : tensor<3x6xf32>
}

func.func @main() {
  %x = arith.constant dense<[[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0]]> : tensor<2x4xf32>
  %eye = arith.constant dense<[[1.0, 0.0, 0.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 1.0]]> : tensor<6x6xf32>
  %r = call @shapes(%x, %eye) : (tensor<2x4xf32>, tensor<6x6xf32>) -> tensor<3x6xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %p = arith.constant 0.0 : f32
  %v0 = vector.transfer_read %r[%c0, %c0], %p : tensor<3x6xf32>, vector<6xf32>
  vector.print %v0 : vector<6xf32>
  %v1 = vector.transfer_read %r[%c1, %c0], %p : tensor<3x6xf32>, vector<6xf32>
  vector.print %v1 : vector<6xf32>
  %v2 = vector.transfer_read %r[%c2, %c0], %p : tensor<3x6xf32>, vector<6xf32>
  vector.print %v2 : vector<6xf32>
  return
}
