// RUN: amp-opt %s -split-input-file --amp-gpu-map-parallel-loops | FileCheck %s --check-prefix=MAP
// RUN: amp-opt %s -split-input-file --amp-gpu-map-parallel-loops --convert-parallel-loops-to-gpu --canonicalize | FileCheck %s

// The last dimension on threadIdx.x (32 per block), the one before on
// threadIdx.y (8), their tiles on blockIdx.x/y; the outer dimensions loop
// (sequential). Threads beyond the extent are guarded (constant bounds).
// MAP-LABEL: func @nchw
// MAP: scf.parallel
// MAP:   scf.parallel
// MAP:     scf.if
// MAP:       memref.store
// MAP:   } {mapping = [#gpu.loop_dim_map<processor = sequential, {{.*}}>, #gpu.loop_dim_map<processor = sequential, {{.*}}>, #gpu.loop_dim_map<processor = thread_y, {{.*}}>, #gpu.loop_dim_map<processor = thread_x, {{.*}}>]}
// MAP: } {mapping = [#gpu.loop_dim_map<processor = sequential, {{.*}}>, #gpu.loop_dim_map<processor = block_z, {{.*}}>, #gpu.loop_dim_map<processor = block_y, {{.*}}>, #gpu.loop_dim_map<processor = block_x, {{.*}}>]}
// The kernel: 4 x 8 x 3 blocks of 32 x 8 threads (100 / 32 and 64 / 8
// rounded up, 3 channels), the batch dimension looped, a guard for w >= 100.
// CHECK-LABEL: func @nchw
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c4, {{.*}} = %c8, {{.*}} = %c3) threads({{.*}}) in ({{.*}} = %c32, {{.*}} = %c8, {{.*}} = %c1)
// CHECK:   scf.for {{.*}} = %c0 to %c2 step %c1
// CHECK:     scf.if
// CHECK:       memref.store
func.func @nchw(%a: memref<2x3x64x100xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %c100 = arith.constant 100 : index
  %z = arith.constant 0.0 : f32
  scf.parallel (%n, %c, %h, %w) = (%c0, %c0, %c0, %c0) to (%c2, %c3, %c64, %c100) step (%c1, %c1, %c1, %c1) {
    memref.store %z, %a[%n, %c, %h, %w] : memref<2x3x64x100xf32>
    scf.reduce
  }
  return
}

// -----

// A short last dimension gets no more threads than iterations: 5 x 8
// threads, 125 blocks, no guard needed.
// CHECK-LABEL: func @short_rows
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1, {{.*}} = %c125, {{.*}} = %c1) threads({{.*}}) in ({{.*}} = %c5, {{.*}} = %c8, {{.*}} = %c1)
// CHECK-NOT: scf.if
// CHECK: memref.store
func.func @short_rows(%a: memref<1000x5xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c1000 = arith.constant 1000 : index
  %z = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%c1000, %c5) step (%c1, %c1) {
    memref.store %z, %a[%i, %j] : memref<1000x5xf32>
    scf.reduce
  }
  return
}

// -----

// 600000 rows in tiles of 8 are 75000 blocks, over CUDA's 65535 in y: the
// rows take blockIdx.x (up to 2^31 - 1) and the 2 column tiles blockIdx.y.
// MAP-LABEL: func @many_rows
// MAP: } {mapping = [#gpu.loop_dim_map<processor = block_x, {{.*}}>, #gpu.loop_dim_map<processor = block_y, {{.*}}>]}
// CHECK-LABEL: func @many_rows
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c75000, {{.*}} = %c2, {{.*}} = %c1) threads({{.*}}) in ({{.*}} = %c32, {{.*}} = %c8, {{.*}} = %c1)
func.func @many_rows(%a: memref<600000x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %rows = arith.constant 600000 : index
  %z = arith.constant 0.0 : f32
  scf.parallel (%i, %j) = (%c0, %c0) to (%rows, %c64) step (%c1, %c1) {
    memref.store %z, %a[%i, %j] : memref<600000x64xf32>
    scf.reduce
  }
  return
}

// -----

// 70000 images (third-last dimension, blockIdx.z by default) trade places
// with the single block of the last dimension.
// MAP-LABEL: func @many_images
// MAP: } {mapping = [#gpu.loop_dim_map<processor = block_x, {{.*}}>, #gpu.loop_dim_map<processor = block_y, {{.*}}>, #gpu.loop_dim_map<processor = block_z, {{.*}}>]}
// CHECK-LABEL: func @many_images
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c70000, {{.*}} = %c1, {{.*}} = %c1)
func.func @many_images(%a: memref<70000x3x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  %n = arith.constant 70000 : index
  %z = arith.constant 0.0 : f32
  scf.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%n, %c3, %c32) step (%c1, %c1, %c1) {
    memref.store %z, %a[%i, %j, %k] : memref<70000x3x32xf32>
    scf.reduce
  }
  return
}

// -----

// A one-dimensional loop: 256 threads per block on threadIdx.x (as many as
// the 32 x 8 of two dimensions), 1000 / 256 = 4 blocks, a guard for the
// last 24 threads.
// CHECK-LABEL: func @flat
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c4, {{.*}} = %c1, {{.*}} = %c1) threads({{.*}}) in ({{.*}} = %c256, {{.*}} = %c1, {{.*}} = %c1)
// CHECK:   scf.if
// CHECK:     memref.store
func.func @flat(%a: memref<1000xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c1000 = arith.constant 1000 : index
  %z = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%c1000) step (%c1) {
    memref.store %z, %a[%i] : memref<1000xf32>
    scf.reduce
  }
  return
}
