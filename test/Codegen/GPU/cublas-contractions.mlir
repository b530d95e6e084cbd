// RUN: amp-opt %s -split-input-file --amp-gpu-cublas-contractions -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func @matmuls
// CHECK-SAME: (%[[A:.*]]: memref<64x128xf16>, %[[B:.*]]: memref<128x32xf16>, %[[C:.*]]: memref<64x32xf32>,
// CHECK: %[[CA:.*]] = memref.cast %[[A]] : memref<64x128xf16> to memref<?x?xf16>
// CHECK: %[[CB:.*]] = memref.cast %[[B]] : memref<128x32xf16> to memref<?x?xf16>
// CHECK: %[[CC:.*]] = memref.cast %[[C]] : memref<64x32xf32> to memref<?x?xf32>
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: call @ampCublasMatmulF16F32(%[[CA]], %[[CB]], %[[CC]], %[[ONE]])
// CHECK: call @ampCublasMatmulBF16F32(
// CHECK: call @ampCublasMatmulF32(
// CHECK: call @ampCublasMatmulF16F32(
// Mixed f16 x f32 and f16 -> f16 have no cuBLAS entry here: left as they are.
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x4xf16>, memref<4x4xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x4xf16>, memref<4x4xf16>) outs(%{{.*}} : memref<4x4xf16>)
// The runtime functions, each with its queued variant (no synchronization)
// for amp-gpu-async-launches.
// CHECK-DAG: func.func private @ampCublasMatmulF16F32(memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf32>, f32) attributes {amp.queued_variant = @ampCublasMatmulF16F32Queued, llvm.emit_c_interface}
// CHECK-DAG: func.func private @ampCublasMatmulF16F32Queued(memref<?x?xf16>, memref<?x?xf16>, memref<?x?xf32>, f32) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @ampCublasMatmulBF16F32(memref<?x?xbf16>, memref<?x?xbf16>, memref<?x?xf32>, f32) attributes {amp.queued_variant = @ampCublasMatmulBF16F32Queued, llvm.emit_c_interface}
// CHECK-DAG: func.func private @ampCublasMatmulBF16F32Queued(memref<?x?xbf16>, memref<?x?xbf16>, memref<?x?xf32>, f32) attributes {llvm.emit_c_interface}
// CHECK-DAG: func.func private @ampCublasMatmulF32(memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>, f32) attributes {amp.queued_variant = @ampCublasMatmulF32Queued, llvm.emit_c_interface}
// CHECK-DAG: func.func private @ampCublasMatmulF32Queued(memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>, f32) attributes {llvm.emit_c_interface}
func.func @matmuls(%a: memref<64x128xf16>, %b: memref<128x32xf16>, %c: memref<64x32xf32>,
                   %d: memref<8x8xbf16>, %e: memref<8x8xf32>, %f: memref<?x?xf16>,
                   %g: memref<4x4xf16>, %h: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<64x128xf16>, memref<128x32xf16>) outs(%c : memref<64x32xf32>)
  linalg.matmul ins(%d, %d : memref<8x8xbf16>, memref<8x8xbf16>) outs(%e : memref<8x8xf32>)
  linalg.matmul ins(%e, %e : memref<8x8xf32>, memref<8x8xf32>) outs(%e : memref<8x8xf32>)
  linalg.matmul ins(%f, %f : memref<?x?xf16>, memref<?x?xf16>) outs(%e : memref<8x8xf32>)
  linalg.matmul ins(%g, %h : memref<4x4xf16>, memref<4x4xf32>) outs(%h : memref<4x4xf32>)
  linalg.matmul ins(%g, %g : memref<4x4xf16>, memref<4x4xf16>) outs(%g : memref<4x4xf16>)
  return
}

// -----

// CHECK-LABEL: func @strided
// CHECK: linalg.matmul
func.func @strided(%a: memref<8x8xf16, strided<[16, 1]>>, %c: memref<8x8xf32>) {
  // expected-remark @below {{amp-gpu-cublas-contractions: strided buffer; not a cuBLAS call}}
  linalg.matmul ins(%a, %a : memref<8x8xf16, strided<[16, 1]>>, memref<8x8xf16, strided<[16, 1]>>) outs(%c : memref<8x8xf32>)
  return
}

// -----

// A zero fill of C right before the matmul (bufferization's zeroed
// accumulator, a buffer the function allocates): beta = 0 and the fill
// goes. Not fused: a non-zero fill, a fill of another buffer, a fill with
// an op in between, a dynamic k (cuBLAS leaves C alone when k is 0), a C
// the function does not allocate (an argument: A may be the same buffer),
// and an A that may be C (an scf.if result).
// CHECK-LABEL: func @fills
// CHECK-SAME: (%[[A:[^:]*]]: memref<64x128xf16>, %[[B:[^:]*]]: memref<128x32xf16>, %[[F:[^:]*]]: memref<64x?xf16>, %[[G:[^:]*]]: memref<?x32xf16>, %[[ARG:[^:]*]]: memref<64x32xf32>,
// CHECK: %[[C:.*]] = memref.alloc() : memref<64x32xf32>
// CHECK: %[[D:.*]] = memref.alloc() : memref<64x32xf32>
// CHECK-NOT: linalg.fill
// CHECK: %[[BETA0:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: call @ampCublasMatmulF16F32({{.*}}, %[[BETA0]])
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[C]]
// CHECK: %[[BETA1:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: call @ampCublasMatmulF16F32({{.*}}, %[[BETA1]])
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[D]]
// CHECK: call @ampCublasMatmulF16F32(
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[C]]
// CHECK: memref.copy
// CHECK: call @ampCublasMatmulF16F32(
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[C]]
// CHECK: call @ampCublasMatmulF16F32(
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[ARG]]
// CHECK: call @ampCublasMatmulF16F32(
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[E:[^ ]*]]
// CHECK: call @ampCublasMatmulF32(
// CHECK-NOT: 0.000000e+00 : f32
func.func @fills(%a: memref<64x128xf16>, %b: memref<128x32xf16>, %f: memref<64x?xf16>, %g: memref<?x32xf16>,
                 %arg: memref<64x32xf32>, %x: memref<32x32xf32>, %p: i1) {
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %c = memref.alloc() : memref<64x32xf32>
  %d = memref.alloc() : memref<64x32xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<64x32xf32>)
  linalg.matmul ins(%a, %b : memref<64x128xf16>, memref<128x32xf16>) outs(%c : memref<64x32xf32>)
  linalg.fill ins(%two : f32) outs(%c : memref<64x32xf32>)
  linalg.matmul ins(%a, %b : memref<64x128xf16>, memref<128x32xf16>) outs(%c : memref<64x32xf32>)
  linalg.fill ins(%zero : f32) outs(%d : memref<64x32xf32>)
  linalg.matmul ins(%a, %b : memref<64x128xf16>, memref<128x32xf16>) outs(%c : memref<64x32xf32>)
  linalg.fill ins(%zero : f32) outs(%c : memref<64x32xf32>)
  memref.copy %d, %d : memref<64x32xf32> to memref<64x32xf32>
  linalg.matmul ins(%a, %b : memref<64x128xf16>, memref<128x32xf16>) outs(%c : memref<64x32xf32>)
  linalg.fill ins(%zero : f32) outs(%c : memref<64x32xf32>)
  linalg.matmul ins(%f, %g : memref<64x?xf16>, memref<?x32xf16>) outs(%c : memref<64x32xf32>)
  linalg.fill ins(%zero : f32) outs(%arg : memref<64x32xf32>)
  linalg.matmul ins(%a, %b : memref<64x128xf16>, memref<128x32xf16>) outs(%arg : memref<64x32xf32>)
  %e = memref.alloc() : memref<32x32xf32>
  %ea = scf.if %p -> memref<32x32xf32> {
    scf.yield %e : memref<32x32xf32>
  } else {
    scf.yield %x : memref<32x32xf32>
  }
  linalg.fill ins(%zero : f32) outs(%e : memref<32x32xf32>)
  linalg.matmul ins(%ea, %x : memref<32x32xf32>, memref<32x32xf32>) outs(%e : memref<32x32xf32>)
  return
}

// -----

// A and B are C itself: the fill's zeros are what the matmul reads, and
// the fill stays.
// CHECK-LABEL: func @fill_read_by_matmul
// CHECK: linalg.fill
// CHECK: %[[BETA1:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: call @ampCublasMatmulF32({{.*}}, %[[BETA1]])
func.func @fill_read_by_matmul(%c: memref<8x8xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%c : memref<8x8xf32>)
  linalg.matmul ins(%c, %c : memref<8x8xf32>, memref<8x8xf32>) outs(%c : memref<8x8xf32>)
  return
}
