// RUN: amp-opt %s -split-input-file --amp-gpu-parallel-dims-outer | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-gpu-parallel-dims-outer --convert-linalg-to-parallel-loops | FileCheck %s --check-prefix=LOOPS

// A sum over rows (a bias gradient): the column dimension becomes the
// outer, parallel one; the row loop runs inside it.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func @bias_grad
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME: ins(%{{.*}} : memref<64x32xf32>) outs(%{{.*}} : memref<32xf32>)
// CHECK: arith.addf
// LOOPS-LABEL: func @bias_grad
// LOOPS: scf.parallel (%[[N:.*]]) = (%c0) to (%c32) step (%c1) {
// LOOPS:   scf.for %[[B:.*]] = %c0 to %c64 step %c1 {
// LOOPS:     memref.load %{{.*}}[%[[B]], %[[N]]] : memref<64x32xf32>
func.func @bias_grad(%dy: memref<64x32xf32>, %db: memref<32xf32>) {
  linalg.reduce ins(%dy : memref<64x32xf32>) outs(%db : memref<32xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return
}

// -----

// Parallel-first ops stay as they are.
// CHECK-LABEL: func @row_sum
// CHECK: linalg.reduce
// CHECK-LABEL: func @matmul
// CHECK: linalg.matmul
func.func @row_sum(%x: memref<64x32xf32>, %r: memref<64xf32>) {
  linalg.reduce ins(%x : memref<64x32xf32>) outs(%r : memref<64xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return
}
func.func @matmul(%a: memref<8x4xf32>, %b: memref<4x8xf32>, %c: memref<8x8xf32>) {
  linalg.matmul ins(%a, %b : memref<8x4xf32>, memref<4x8xf32>) outs(%c : memref<8x8xf32>)
  return
}
