// RUN: amp-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(amp-cpu-amx-tiles{cpu-features=amx}))" -verify-diagnostics | FileCheck %s
// RUN: amp-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(amp-cpu-amx-tiles{cpu-features=avx512bf16}))" | FileCheck %s --check-prefix=AVX
// RUN: not amp-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(amp-cpu-amx-tiles{cpu-features=sse}))" 2>&1 | FileCheck %s --check-prefix=BAD

// The k loop of a register tile as amp-cpu-tile-and-vectorize leaves it
// after bufferization and hoisting: A (M x K/2 x 2) and a packed B panel
// (K/2 x 16 x 2) read per step, the accumulator, a 16 x 16 slice of C viewed
// as M x N/16 x 16, read before the loop and written after it. The loop
// carries a tile; A, B and C are tile loads from their buffers with their
// row strides (A: K = 64 elements, B: 32, C: N = 64); no stack buffer.

#a = affine_map<(m, n, k, p) -> (m, k, p)>
#b = affine_map<(m, n, k, p) -> (k, n, p)>
#c = affine_map<(m, n, k, p) -> (m, n)>
// CHECK-LABEL: func.func @k_loop
// CHECK-NOT: memref.alloca
// CHECK: %[[C:.*]] = amx.tile_load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}], %c64{{.*}} : memref<32x4x16xf32> into !amx.tile<16x16xf32>
// CHECK: %[[R:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[C]]) -> (!amx.tile<16x16xf32>)
// CHECK:   %[[B:.*]] = amx.tile_load %{{.*}}, %c32{{.*}} : memref<4x32x16x2xbf16> into !amx.tile<16x32xbf16>
// CHECK:   %[[A:.*]] = amx.tile_load %{{.*}}, %c64{{.*}} : memref<32x32x2xbf16> into !amx.tile<16x32xbf16>
// CHECK:   %[[P:.*]] = amx.tile_mulf %[[A]], %[[B]], %[[ACC]]
// CHECK:   scf.yield %[[P]] : !amx.tile<16x16xf32>
// CHECK: amx.tile_store %{{.*}}, %[[R]], %c64{{.*}} : memref<32x4x16xf32>, !amx.tile<16x16xf32>
// CHECK-NOT: vector.contract
// AVX-LABEL: func.func @k_loop
// AVX: vector.contract
func.func @k_loop(%A: memref<32x32x2xbf16>, %B: memref<4x32x16x2xbf16>, %C: memref<32x4x16xf32>, %m: index, %j: index) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %pb = ub.poison : bf16
  %pf = ub.poison : f32
  %init = vector.transfer_read %C[%m, %j, %c0], %pf {in_bounds = [true, true], permutation_map = affine_map<(d0, d1, d2) -> (d0, d2)>} : memref<32x4x16xf32>, vector<16x16xf32>
  %r = scf.for %k = %c0 to %c32 step %c16 iter_args(%acc = %init) -> (vector<16x16xf32>) {
    %va = vector.transfer_read %A[%m, %k, %c0], %pb {in_bounds = [true, true, true]} : memref<32x32x2xbf16>, vector<16x16x2xbf16>
    %vb = vector.transfer_read %B[%j, %k, %c0, %c0], %pb {in_bounds = [true, true, true]} : memref<4x32x16x2xbf16>, vector<16x16x2xbf16>
    %p = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "reduction"], kind = #vector.kind<add>} %va, %vb, %acc : vector<16x16x2xbf16>, vector<16x16x2xbf16> into vector<16x16xf32>
    scf.yield %p : vector<16x16xf32>
  }
  vector.transfer_write %r, %C[%m, %j, %c0] {in_bounds = [true, true], permutation_map = affine_map<(d0, d1, d2) -> (d0, d2)>} : vector<16x16xf32>, memref<32x4x16xf32>
  return
}

// -----

// A register tile of 2 x 2 C tiles (32 x 32): four accumulator tiles carried
// by the loop; per step B's two column tiles, then each of A's row tiles
// and its two products (A and B tiles each serve two tdpbf16ps). The second
// row and column tiles start 16 rows / columns in.

#a = affine_map<(m, n, k, p) -> (m, k, p)>
#b = affine_map<(m, n, k, p) -> (k, n, p)>
#c = affine_map<(m, n, k, p) -> (m, n)>
// CHECK-LABEL: func.func @block
// CHECK-NOT: memref.alloca
// CHECK-COUNT-4: amx.tile_load %{{.*}} : memref<64x2x32xf32> into !amx.tile<16x16xf32>
// CHECK: %[[R:.*]]:4 = scf.for {{.*}} iter_args(%[[C0:.*]] = %{{.*}}, %[[C1:.*]] = %{{.*}}, %[[C2:.*]] = %{{.*}}, %[[C3:.*]] = %{{.*}}) -> (!amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>)
// CHECK:   %[[B0:.*]] = amx.tile_load %{{.*}}[%{{.*}}, %{{.*}}, %c0{{.*}}, %c0{{.*}}], %c64{{.*}} : memref<2x32x32x2xbf16> into !amx.tile<16x32xbf16>
// CHECK:   %[[N16:.*]] = arith.addi %c0{{.*}}, %c16
// CHECK:   %[[B1:.*]] = amx.tile_load %{{.*}}[%{{.*}}, %{{.*}}, %[[N16]], %c0{{.*}}], %c64{{.*}} : memref<2x32x32x2xbf16> into !amx.tile<16x32xbf16>
// CHECK:   %[[A0:.*]] = amx.tile_load %{{.*}} : memref<64x32x2xbf16> into !amx.tile<16x32xbf16>
// CHECK:   %[[P0:.*]] = amx.tile_mulf %[[A0]], %[[B0]], %[[C0]]
// CHECK:   %[[P1:.*]] = amx.tile_mulf %[[A0]], %[[B1]], %[[C1]]
// CHECK:   %[[A1:.*]] = amx.tile_load %{{.*}} : memref<64x32x2xbf16> into !amx.tile<16x32xbf16>
// CHECK:   %[[P2:.*]] = amx.tile_mulf %[[A1]], %[[B0]], %[[C2]]
// CHECK:   %[[P3:.*]] = amx.tile_mulf %[[A1]], %[[B1]], %[[C3]]
// CHECK:   scf.yield %[[P0]], %[[P1]], %[[P2]], %[[P3]]
// CHECK-COUNT-4: amx.tile_store %{{.*}}, %[[R]]#{{[0-3]}}, %c64{{.*}} : memref<64x2x32xf32>, !amx.tile<16x16xf32>
func.func @block(%A: memref<64x32x2xbf16>, %B: memref<2x32x32x2xbf16>, %C: memref<64x2x32xf32>, %m: index, %j: index) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %pb = ub.poison : bf16
  %pf = ub.poison : f32
  %init = vector.transfer_read %C[%m, %j, %c0], %pf {in_bounds = [true, true], permutation_map = affine_map<(d0, d1, d2) -> (d0, d2)>} : memref<64x2x32xf32>, vector<32x32xf32>
  %r = scf.for %k = %c0 to %c32 step %c16 iter_args(%acc = %init) -> (vector<32x32xf32>) {
    %va = vector.transfer_read %A[%m, %k, %c0], %pb {in_bounds = [true, true, true]} : memref<64x32x2xbf16>, vector<32x16x2xbf16>
    %vb = vector.transfer_read %B[%j, %k, %c0, %c0], %pb {in_bounds = [true, true, true]} : memref<2x32x32x2xbf16>, vector<16x32x2xbf16>
    %p = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "reduction"], kind = #vector.kind<add>} %va, %vb, %acc : vector<32x16x2xbf16>, vector<16x32x2xbf16> into vector<32x32xf32>
    scf.yield %p : vector<32x32xf32>
  }
  vector.transfer_write %r, %C[%m, %j, %c0] {in_bounds = [true, true], permutation_map = affine_map<(d0, d1, d2) -> (d0, d2)>} : vector<32x32xf32>, memref<64x2x32xf32>
  return
}

// -----

// A single step with operands that are not reads of a buffer (here, function
// arguments; the remainder of a peeled loop whose operand was computed):
// each goes through a stack buffer allocated at the function's entry, and
// the result is read back as a vector. A partial tile (5 rows, 3 pairs).

#a = affine_map<(m, n, k, p) -> (m, k, p)>
#b = affine_map<(m, n, k, p) -> (k, n, p)>
#c = affine_map<(m, n, k, p) -> (m, n)>
// CHECK-LABEL: func.func @stack
// CHECK-COUNT-3: memref.alloca() : memref<{{.*}}>
// CHECK: amx.tile_load %{{.*}} : memref<3x32xbf16> into !amx.tile<3x32xbf16>
// CHECK: amx.tile_load %{{.*}} : memref<5x6xbf16> into !amx.tile<5x6xbf16>
// CHECK: amx.tile_mulf {{.*}} : !amx.tile<5x6xbf16>, !amx.tile<3x32xbf16>, !amx.tile<5x16xf32>
// CHECK: amx.tile_store
// CHECK: %[[V:.*]] = vector.transfer_read %{{.*}} : memref<5x16xf32>, vector<5x16xf32>
// CHECK: return %[[V]]
func.func @stack(%a: vector<5x3x2xbf16>, %b: vector<3x16x2xbf16>, %c: vector<5x16xf32>) -> vector<5x16xf32> {
  %p = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<5x3x2xbf16>, vector<3x16x2xbf16> into vector<5x16xf32>
  return %p : vector<5x16xf32>
}

// -----

// Not AMX-shaped (f32 operands; more than 32 rows): left alone.

#a = affine_map<(m, n, k, p) -> (m, k, p)>
#b = affine_map<(m, n, k, p) -> (k, n, p)>
#c = affine_map<(m, n, k, p) -> (m, n)>
// CHECK-LABEL: func.func @not_amx
// CHECK-NOT: amx.
// CHECK-COUNT-2: vector.contract
func.func @not_amx(%a: vector<4x2x2xf32>, %b: vector<2x16x2xf32>, %c: vector<4x16xf32>,
                   %a2: vector<48x16x2xbf16>, %b2: vector<16x16x2xbf16>, %c2: vector<48x16xf32>) -> (vector<4x16xf32>, vector<48x16xf32>) {
  %p = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "reduction"], kind = #vector.kind<add>} %a, %b, %c : vector<4x2x2xf32>, vector<2x16x2xf32> into vector<4x16xf32>
  %q = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction", "reduction"], kind = #vector.kind<add>} %a2, %b2, %c2 : vector<48x16x2xbf16>, vector<16x16x2xbf16> into vector<48x16xf32>
  return %p, %q : vector<4x16xf32>, vector<48x16xf32>
}

// BAD: amp-cpu-amx-tiles: cpu-features must be host, generic, avx512bf16 or amx, got 'sse'
