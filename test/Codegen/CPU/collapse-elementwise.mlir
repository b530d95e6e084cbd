// RUN: amp-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(amp-cpu-collapse-elementwise))" | FileCheck %s

// An elementwise cast over contiguous buffers (autocast's f32 -> bf16 cast
// of a 3x3 convolution's weights) runs over 1-D views: one loop.
// CHECK-LABEL: func @weight_cast
// CHECK-DAG: %[[X:.*]] = memref.collapse_shape %arg0 {{\[}}[0, 1, 2, 3]] : memref<8x5x3x3xf32> into memref<360xf32>
// CHECK-DAG: %[[Y:.*]] = memref.collapse_shape %arg1 {{\[}}[0, 1, 2, 3]] : memref<8x5x3x3xbf16> into memref<360xbf16>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel"]{{.*}} ins(%[[X]] : memref<360xf32>) outs(%[[Y]] : memref<360xbf16>)
// CHECK: arith.truncf
func.func @weight_cast(%x: memref<8x5x3x3xf32>, %y: memref<8x5x3x3xbf16>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<8x5x3x3xf32>) outs(%y : memref<8x5x3x3xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  }
  return
}

// -----

// Left alone: a broadcast operand (not the identity map), a strided view
// (not contiguous), a reduction, and a 1-D op.
// CHECK-LABEL: func @left_alone
// CHECK-NOT: memref.collapse_shape
// CHECK-COUNT-4: linalg.generic
func.func @left_alone(%b: memref<4xf32>, %x: memref<4x4xf32>, %s: memref<4x4xf32, strided<[8, 1]>>,
                      %r: memref<4xf32>, %v: memref<16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%b : memref<4xf32>) outs(%x : memref<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%s : memref<4x4xf32, strided<[8, 1]>>) outs(%x : memref<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x4xf32>) outs(%r : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%v : memref<16xf32>) outs(%v : memref<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}
