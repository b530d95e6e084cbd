// RUN: amp-opt %s -split-input-file --amp-cpu-flatten-pair-transfers | FileCheck %s

// A row of 16 bf16 pairs (a VNNI-packed B row) is one 1-D read of the 32
// contiguous elements it covers.
// CHECK-LABEL: func.func @pairs
// CHECK:         memref.collapse_shape
// CHECK:         vector.transfer_read {{.*}} : memref<{{.*}}xbf16>, vector<32xbf16>
// CHECK:         vector.shape_cast {{.*}} : vector<32xbf16> to vector<16x2xbf16>
func.func @pairs(%m: memref<8x16x2xbf16>, %i: index) -> vector<16x2xbf16> {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : bf16
  %v = vector.transfer_read %m[%i, %c0, %c0], %pad {in_bounds = [true, true]} : memref<8x16x2xbf16>, vector<16x2xbf16>
  return %v : vector<16x2xbf16>
}

// -----

// A transfer of unit dimensions only is one element: left as it is (MLIR
// 22's contiguity check reads out of bounds on it: found by amp-fuzz).
// CHECK-LABEL: func.func @unit
// CHECK-NOT:     memref.collapse_shape
// CHECK:         vector.transfer_read {{.*}} : memref<1x1xf32>, vector<1x1xf32>
// CHECK-NOT:     vector.shape_cast
func.func @unit(%m: memref<1x1xf32>) -> vector<1x1xf32> {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %v = vector.transfer_read %m[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x1xf32>, vector<1x1xf32>
  return %v : vector<1x1xf32>
}
