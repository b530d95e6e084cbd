// RUN: amp-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(amp-cpu-strided-copies))" | FileCheck %s

// A copy into a strided subview (attention's head split: 64 of every 192
// columns) becomes a linalg.copy, i.e. loops instead of the runtime's
// element-by-element memrefCopy.
// CHECK-LABEL: func @into_strided
// CHECK: %[[V:.*]] = memref.subview
// CHECK-NOT: memref.copy
// CHECK: linalg.copy ins(%{{.*}} : memref<16x64x64xf32>) outs(%[[V]] : memref<16x64x64xf32, strided<[12288, 192, 1], offset: 64>>)
func.func @into_strided(%src: memref<16x64x64xf32>, %dst: memref<16x64x192xf32>) {
  %v = memref.subview %dst[0, 0, 64] [16, 64, 64] [1, 1, 1] : memref<16x64x192xf32> to memref<16x64x64xf32, strided<[12288, 192, 1], offset: 64>>
  memref.copy %src, %v : memref<16x64x64xf32> to memref<16x64x64xf32, strided<[12288, 192, 1], offset: 64>>
  return
}

// -----

// From a strided source (a padded convolution input's interior) too, and
// with a dynamic offset (a tile's place).
// CHECK-LABEL: func @from_strided
// CHECK: linalg.copy ins(%{{.*}} : memref<64x32x4x4xf32, strided<[1152, 36, 6, 1], offset: 7>>) outs(%{{.*}} : memref<64x32x4x4xf32>)
// CHECK: linalg.copy ins(%{{.*}} : memref<128x64xbf16>) outs(%{{.*}} : memref<128x64xbf16, strided<[256, 1], offset: ?>>)
// CHECK-NOT: memref.copy
func.func @from_strided(%src: memref<64x32x6x6xf32>, %dst: memref<64x32x4x4xf32>, %tile: memref<128x64xbf16>, %out: memref<1024x256xbf16>, %i: index) {
  %v = memref.subview %src[0, 0, 1, 1] [64, 32, 4, 4] [1, 1, 1, 1] : memref<64x32x6x6xf32> to memref<64x32x4x4xf32, strided<[1152, 36, 6, 1], offset: 7>>
  memref.copy %v, %dst : memref<64x32x4x4xf32, strided<[1152, 36, 6, 1], offset: 7>> to memref<64x32x4x4xf32>
  %w = memref.subview %out[%i, 64] [128, 64] [1, 1] : memref<1024x256xbf16> to memref<128x64xbf16, strided<[256, 1], offset: ?>>
  memref.copy %tile, %w : memref<128x64xbf16> to memref<128x64xbf16, strided<[256, 1], offset: ?>>
  return
}

// -----

// Contiguous copies stay memref.copy (one llvm.memcpy): identity layouts,
// a subview of whole rows (contiguous although strided in type), rank 0
// and unranked memrefs.
// CHECK-LABEL: func @contiguous
// CHECK-NOT: linalg.copy
// CHECK: memref.copy %{{.*}}, %{{.*}} : memref<4x8xf32> to memref<4x8xf32>
// CHECK: memref.copy %{{.*}}, %{{.*}} : memref<2x8xf32, strided<[8, 1], offset: 16>> to memref<2x8xf32>
// CHECK: memref.copy %{{.*}}, %{{.*}} : memref<f32> to memref<f32>
// CHECK: memref.copy %{{.*}}, %{{.*}} : memref<*xf32> to memref<*xf32>
// CHECK-NOT: linalg.copy
func.func @contiguous(%a: memref<4x8xf32>, %b: memref<4x8xf32>, %c: memref<2x8xf32>, %s: memref<f32>, %t: memref<f32>, %u: memref<*xf32>, %w: memref<*xf32>) {
  memref.copy %a, %b : memref<4x8xf32> to memref<4x8xf32>
  %rows = memref.subview %a[2, 0] [2, 8] [1, 1] : memref<4x8xf32> to memref<2x8xf32, strided<[8, 1], offset: 16>>
  memref.copy %rows, %c : memref<2x8xf32, strided<[8, 1], offset: 16>> to memref<2x8xf32>
  memref.copy %s, %t : memref<f32> to memref<f32>
  memref.copy %u, %w : memref<*xf32> to memref<*xf32>
  return
}
