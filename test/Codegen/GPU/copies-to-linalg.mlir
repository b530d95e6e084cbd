// RUN: amp-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(amp-gpu-copies-to-linalg))" | FileCheck %s

// A host copy between buffers becomes linalg.copy (a kernel later in the
// CUDA pipeline), with the same source and target.
// CHECK-LABEL: func @contiguous
// CHECK-SAME: (%[[A:.*]]: memref<?x4xf32>, %[[B:.*]]: memref<?x4xf32>)
// CHECK-NOT: memref.copy
// CHECK: linalg.copy ins(%[[A]] : memref<?x4xf32>) outs(%[[B]] : memref<?x4xf32>)
func.func @contiguous(%a: memref<?x4xf32>, %b: memref<?x4xf32>) {
  memref.copy %a, %b : memref<?x4xf32> to memref<?x4xf32>
  return
}

// -----

// Strided views (tensor.insert_slice into a slice of a bigger buffer), in a
// host loop, rank 0, f16: each one a linalg.copy.
// CHECK-LABEL: func @strided_in_loop
// CHECK: scf.for
// CHECK:   %[[S:.*]] = memref.subview
// CHECK:   linalg.copy ins(%{{.*}} : memref<2x4xf16>) outs(%[[S]] : memref<2x4xf16, strided<[8, 1], offset: ?>>)
// CHECK: linalg.copy ins(%{{.*}} : memref<f32>) outs(%{{.*}} : memref<f32>)
// CHECK-NOT: memref.copy
func.func @strided_in_loop(%src: memref<2x4xf16>, %big: memref<8x8xf16>, %s0: memref<f32>, %s1: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  scf.for %i = %c0 to %c8 step %c2 {
    %view = memref.subview %big[%i, 4] [2, 4] [1, 1] : memref<8x8xf16> to memref<2x4xf16, strided<[8, 1], offset: ?>>
    memref.copy %src, %view : memref<2x4xf16> to memref<2x4xf16, strided<[8, 1], offset: ?>>
  }
  memref.copy %s0, %s1 : memref<f32> to memref<f32>
  return
}

// -----

// Copies of unranked memrefs, and copies already inside a kernel, stay.
// CHECK-LABEL: func @left_alone
// CHECK: memref.copy %{{.*}}, %{{.*}} : memref<*xf32> to memref<*xf32>
// CHECK: gpu.launch
// CHECK:   memref.copy %{{.*}}, %{{.*}} : memref<4xf32> to memref<4xf32>
// CHECK-NOT: linalg.copy
func.func @left_alone(%u: memref<*xf32>, %v: memref<*xf32>, %a: memref<4xf32>, %b: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  memref.copy %u, %v : memref<*xf32> to memref<*xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.copy %a, %b : memref<4xf32> to memref<4xf32>
    gpu.terminator
  }
  return
}
