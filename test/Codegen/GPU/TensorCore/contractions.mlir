// RUN: amp-opt %s -split-input-file --amp-gpu-tensor-core-contractions -verify-diagnostics | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-gpu-tensor-core-contractions 2>/dev/null | FileCheck %s --check-prefix=TILE
// RUN: amp-opt %s -split-input-file --amp-gpu-tensor-core-contractions 2>/dev/null | FileCheck %s --check-prefix=LDB
// RUN: amp-opt %s -split-input-file --amp-gpu-tensor-core-contractions=chip=sm_75 2>&1 | FileCheck %s --check-prefix=SM75
// RUN: not amp-opt %s --amp-gpu-tensor-core-contractions=chip=volta 2>&1 | FileCheck %s --check-prefix=CHIP

// A small matmul: warp tiles shrink to the 16x8 mma tile for parallelism,
// and blocks group 2 x 2 warps (64 x 2 threads) over 32 x 16 of the output.
// Four k steps of 32, as many stages (4 x 6.5 KiB of shared memory): the
// block's 32 x 32 tile of A (8 f16, 16 bytes, per thread and cp.async,
// bypassing L1) and 32 x 16 tile of B (4 f16 each) of steps 0-2 are copied
// to stages 0-2 (rows padded by 8) before the loop, a commit group per
// step; each iteration waits for its step's group (2 left pending), passes
// a barrier, copies step k + 96 (clamped to the last, 96) to stage
// (k / 32 + 3) mod 4, then each warp loads its fragments from stage
// (k / 32) mod 4 with ldmatrix (B transposed) and issues two m16n8k16
// mma.syncs with f16 operands and f32 accumulators. Nothing is pending
// after the loop. Each lane's accumulator fragment is loaded before the k
// loop, carried in registers through it and stored once after it.
// CHECK-DAG: #[[STAGE:.*]] = affine_map<(d0) -> ((d0 floordiv 32) mod 4)>
// CHECK-LABEL: func @f16_matmul
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c2{{(_[0-9]+)?}}, {{.*}} = %c2{{(_[0-9]+)?}}, {{.*}} = %c1{{(_[0-9]+)?}}) threads({{.*}}) in ({{.*}} = %c64{{(_[0-9]+)?}}, {{.*}} = %c2{{(_[0-9]+)?}}, {{.*}} = %c1{{(_[0-9]+)?}}) workgroup(%[[SA:.*]] : memref<4x32x40xf16, #gpu.address_space<workgroup>>, %[[SB:.*]] : memref<4x32x24xf16, #gpu.address_space<workgroup>>)
// CHECK-COUNT-2: vector.load %arg2[{{.*}}] : memref<64x32xf32>, vector<2xf32>
// CHECK: %[[A0:.*]] = nvgpu.device_async_copy %arg0[{{.*}}], %[[SA]][%c0{{(_[0-9]+)?}}, {{.*}}], 8 {bypassL1} : memref<64x128xf16> to memref<4x32x40xf16, #gpu.address_space<workgroup>>
// CHECK: %[[B0:.*]] = nvgpu.device_async_copy %arg1[{{.*}}], %[[SB]][%c0{{(_[0-9]+)?}}, {{.*}}], 4 : memref<128x32xf16> to
// CHECK: nvgpu.device_async_create_group %[[A0]], %[[B0]]
// CHECK: nvgpu.device_async_copy %arg0[{{.*}}], %[[SA]][%c1{{(_[0-9]+)?}}, {{.*}}], 8 {bypassL1}
// CHECK: nvgpu.device_async_copy %arg1[{{.*}}], %[[SB]][%c1{{(_[0-9]+)?}}, {{.*}}], 4
// CHECK: nvgpu.device_async_create_group
// CHECK: nvgpu.device_async_copy %arg0[{{.*}}], %[[SA]][%c2{{(_[0-9]+)?}}, {{.*}}], 8 {bypassL1}
// CHECK: nvgpu.device_async_copy %arg1[{{.*}}], %[[SB]][%c2{{(_[0-9]+)?}}, {{.*}}], 4
// CHECK: %[[G:.*]] = nvgpu.device_async_create_group
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: scf.for %[[K:.*]] = %c0{{(_[0-9]+)?}} to %c128 step %c32{{(_[0-9]+)?}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (vector<2x2xf32>)
// CHECK-NEXT: nvgpu.device_async_wait %[[G]] {numGroups = 2 : i32}
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: %[[AHEAD:.*]] = arith.addi %[[K]], %c96
// CHECK-NEXT: %[[LAST:.*]] = arith.minui %[[AHEAD]], %c96
// CHECK: %[[NEXT_STAGE:.*]] = affine.apply #[[STAGE]](%[[AHEAD]])
// CHECK: nvgpu.device_async_copy %arg0[{{.*}}], %[[SA]][%[[NEXT_STAGE]], {{.*}}], 8 {bypassL1}
// CHECK: nvgpu.device_async_copy %arg1[{{.*}}], %[[SB]][{{.*}}], 4
// CHECK: nvgpu.device_async_create_group
// CHECK-NOT: gpu.barrier
// CHECK-NOT: %arg2{{[^0-9]}}
// CHECK: %[[STEP_STAGE:.*]] = affine.apply #[[STAGE]](%[[K]])
// CHECK: nvgpu.ldmatrix %[[SA]][%[[STEP_STAGE]], {{.*}}] {numTiles = 4 : i32, transpose = false}
// CHECK: nvgpu.ldmatrix %[[SB]][{{.*}}] {numTiles = 2 : i32, transpose = true}
// CHECK: %[[D:.*]] = nvgpu.mma.sync({{.*}}, %[[ACC]]) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK: %[[D2:.*]] = nvgpu.mma.sync({{.*}}, %[[D]]) {mmaShape = [16, 8, 16]}
// CHECK-NOT: %arg2{{[^0-9]}}
// CHECK-NOT: gpu.barrier
// CHECK: scf.yield %[[D2]]
// CHECK-NEXT: }
// CHECK-NEXT: nvgpu.device_async_wait %[[G]] {numGroups = 0 : i32}
// CHECK-COUNT-2: vector.store {{.*}}, %arg2[{{.*}}] : memref<64x32xf32>, vector<2xf32>
// CHECK-NOT: gpu.barrier
// CHECK-NOT: amp.tile_copy
// CHECK-NOT: vector.load %arg0
// CHECK-NOT: linalg.matmul
// SM75: warning: amp-gpu-tensor-core-contractions: sm_75 has no mma.sync m16n8k16 (sm_80+); this contraction runs as SIMT code with f32 accumulation
// SM75-LABEL: func @f16_matmul
// SM75-NOT: gpu.launch
// SM75: linalg.matmul
// CHIP: amp-gpu-tensor-core-contractions: chip must be sm_<NN>[a|f], got 'volta'
func.func @f16_matmul(%a: memref<64x128xf16>, %b: memref<128x32xf16>, %c: memref<64x32xf32>) {
  linalg.matmul ins(%a, %b : memref<64x128xf16>, memref<128x32xf16>) outs(%c : memref<64x32xf32>)
  return
}

// -----

// bf16: the pass loads the m16n8k16 fragments itself (A: ldmatrix x4 from
// the shared A tile, lane l giving row l % 16, column 8 * (l / 16); B:
// ldmatrix x2 transposed; C: pairs of rows g and g+8, g = lane / 4), as
// i32 registers of two bf16, and issues nvvm.mma.sync with bf16
// multiplicands and f32 accumulators. 32 x 8 x 32: one block of 2 x 1
// warps, one k step of 32 (no loop); two mma.syncs per warp, the first's
// result the second's accumulator.
// CHECK-LABEL: func @bf16_matmul
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1{{(_[0-9]+)?}}, {{.*}} = %c1{{(_[0-9]+)?}}, {{.*}} = %c1{{(_[0-9]+)?}}) threads({{.*}}) in ({{.*}} = %c32{{(_[0-9]+)?}}, {{.*}} = %c2{{(_[0-9]+)?}}, {{.*}} = %c1{{(_[0-9]+)?}}) workgroup(%[[SA:.*]] : memref<32x40xbf16, #gpu.address_space<workgroup>>, %[[SB:.*]] : memref<32x16xbf16, #gpu.address_space<workgroup>>)
// CHECK: vector.store {{.*}}, %[[SA]]
// CHECK: vector.store {{.*}}, %[[SB]]
// CHECK: gpu.barrier
// CHECK: %[[LANE:.*]] = gpu.lane_id
// CHECK: %[[FA:.*]] = nvgpu.ldmatrix %[[SA]][{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<32x40xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// CHECK-COUNT-4: llvm.bitcast {{.*}} : vector<2xbf16> to i32
// CHECK: nvgpu.ldmatrix %[[SB]][{{.*}}] {numTiles = 2 : i32, transpose = true} : memref<32x16xbf16, #gpu.address_space<workgroup>> -> vector<2x2xbf16>
// CHECK-COUNT-2: llvm.bitcast {{.*}} : vector<2xbf16> to i32
// CHECK-COUNT-2: vector.load %arg2[{{.*}}] : memref<32x8xf32>, vector<2xf32>
// CHECK: %[[D:.*]] = nvvm.mma.sync A[{{.*}}, {{.*}}, {{.*}}, {{.*}}] B[{{.*}}, {{.*}}] C[{{.*}}, {{.*}}, {{.*}}, {{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK: %[[D0:.*]] = llvm.extractvalue %[[D]][0]
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[%[[D0]], {{.*}}]
// CHECK-COUNT-2: vector.store {{.*}}, %arg2[{{.*}}] : memref<32x8xf32>, vector<2xf32>
// CHECK-NOT: vector.contract
// CHECK-NOT: linalg.matmul
func.func @bf16_matmul(%d: memref<32x32xbf16>, %e: memref<32x8xbf16>, %f: memref<32x8xf32>) {
  linalg.matmul ins(%d, %e : memref<32x32xbf16>, memref<32x8xbf16>) outs(%f : memref<32x8xf32>)
  return
}

// -----

// A larger matmul: each warp takes a 32 x 32 output tile (1024 warps of
// 32 x 32 are enough to fill the GPU), blocks 2 x 2 warps over 64 x 64.
// Per k step of 32 the block copies A's 64 x 32 and B's 32 x 64 tile to
// shared memory (two 16-byte cp.asyncs each per thread; two k steps, so
// two stages), and each warp loads
// its fragments once (A: 2 rows x 2 k pieces, ldmatrix x4; B: 4 columns x
// 2 k pieces, ldmatrix x2 transposed) and issues 2 x 4 x 2 mma.syncs, each
// A fragment used by four of them and each B fragment by two; the eight
// accumulator fragments stay in registers through the k loop.
// CHECK-LABEL: func @f16_warp_tile
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c16{{(_[0-9]+)?}}, {{.*}} = %c16{{(_[0-9]+)?}}, {{.*}} = %c1{{(_[0-9]+)?}}) threads({{.*}}) in ({{.*}} = %c64{{(_[0-9]+)?}}, {{.*}} = %c2{{(_[0-9]+)?}}, {{.*}} = %c1{{(_[0-9]+)?}}) workgroup({{.*}} : memref<2x64x40xf16, #gpu.address_space<workgroup>>, {{.*}} : memref<2x32x72xf16, #gpu.address_space<workgroup>>)
// CHECK-COUNT-16: vector.load %arg2
// CHECK: scf.for {{.*}} -> (vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>) {
// CHECK-COUNT-16: nvgpu.mma.sync
// CHECK-NOT: %arg2{{[^0-9]}}
// CHECK: scf.yield
// CHECK-COUNT-16: vector.store {{.*}}, %arg2
// CHECK: gpu.terminator
// TILE-LABEL: func @f16_warp_tile
// TILE-COUNT-2: nvgpu.device_async_copy %arg0{{.*}}, 8 {bypassL1}
// TILE-COUNT-2: nvgpu.device_async_copy %arg1{{.*}}, 8 {bypassL1}
// TILE: nvgpu.device_async_create_group
// TILE: scf.for
// TILE-NEXT: nvgpu.device_async_wait {{.*}} {numGroups = 0 : i32}
// TILE-NEXT: gpu.barrier
// TILE-COUNT-2: nvgpu.device_async_copy %arg0{{.*}}, 8 {bypassL1}
// TILE-COUNT-2: nvgpu.device_async_copy %arg1{{.*}}, 8 {bypassL1}
// TILE: nvgpu.device_async_create_group
// TILE-NOT: vector.load
// TILE-NOT: gpu.barrier
// TILE-COUNT-4: numTiles = 4 : i32, transpose = false
// TILE-NOT: numTiles = 4
// TILE: scf.yield
// LDB-LABEL: func @f16_warp_tile
// LDB: scf.for
// LDB-COUNT-8: numTiles = 2 : i32, transpose = true
// LDB-NOT: ldmatrix
// LDB: scf.yield
func.func @f16_warp_tile(%a: memref<1024x64xf16>, %b: memref<64x1024xf16>, %c: memref<1024x1024xf32>) {
  linalg.matmul ins(%a, %b : memref<1024x64xf16>, memref<64x1024xf16>) outs(%c : memref<1024x1024xf32>)
  return
}

// -----

// The same in bf16: fragments loaded from the shared tiles by ldmatrix once
// per tile and k piece, sixteen nvvm.mma.syncs, sixteen accumulator pairs
// in registers.
// CHECK-LABEL: func @bf16_warp_tile
// CHECK-COUNT-16: vector.load %arg2
// CHECK: scf.for {{.*}} -> (vector<2xf32>, vector<2xf32>, vector<2xf32>, vector<2xf32>, vector<2xf32>, vector<2xf32>, vector<2xf32>, vector<2xf32>, vector<2xf32>, vector<2xf32>, vector<2xf32>, vector<2xf32>, vector<2xf32>, vector<2xf32>, vector<2xf32>, vector<2xf32>) {
// CHECK-COUNT-16: nvvm.mma.sync
// CHECK-NOT: %arg2{{[^0-9]}}
// CHECK: scf.yield
// CHECK-COUNT-16: vector.store {{.*}}, %arg2
// CHECK: gpu.terminator
// TILE-LABEL: func @bf16_warp_tile
// TILE: gpu.launch {{.*}} workgroup(%[[SA:[^ ]*]] : memref<2x64x40xbf16, #gpu.address_space<workgroup>>
// TILE: scf.for
// TILE-COUNT-2: nvgpu.device_async_copy %arg0
// TILE-COUNT-2: nvgpu.device_async_copy %arg1
// TILE-COUNT-4: nvgpu.ldmatrix %[[SA]]{{.*}} {numTiles = 4 : i32, transpose = false}
// TILE-NOT: nvgpu.ldmatrix %[[SA]]
// TILE: scf.yield
// LDB-LABEL: func @bf16_warp_tile
// LDB: gpu.launch {{.*}}, %[[SB:[^ ]*]] : memref<2x32x72xbf16, #gpu.address_space<workgroup>>)
// LDB: scf.for
// LDB-COUNT-8: nvgpu.ldmatrix %[[SB]]{{.*}} {numTiles = 2 : i32, transpose = true}
// LDB-NOT: ldmatrix
// LDB: scf.yield
func.func @bf16_warp_tile(%a: memref<1024x64xbf16>, %b: memref<64x1024xbf16>, %c: memref<1024x1024xf32>) {
  linalg.matmul ins(%a, %b : memref<1024x64xbf16>, memref<64x1024xbf16>) outs(%c : memref<1024x1024xf32>)
  return
}

// -----

// Two matmuls accumulating into one buffer, f16 then bf16: both k loops
// carry their accumulators in registers (each launch's views of the buffer
// are folded before either is rewritten).
// CHECK-LABEL: func @shared_accumulator
// CHECK: gpu.launch
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<2x2xf32>) {
// CHECK: nvgpu.mma.sync
// CHECK: gpu.launch
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (vector<2xf32>, vector<2xf32>) {
// CHECK: nvvm.mma.sync
func.func @shared_accumulator(%a: memref<32x64xf16>, %b: memref<64x8xf16>,
                              %d: memref<32x64xbf16>, %e: memref<64x8xbf16>,
                              %c: memref<32x8xf32>) {
  linalg.matmul ins(%a, %b : memref<32x64xf16>, memref<64x8xf16>) outs(%c : memref<32x8xf32>)
  linalg.matmul ins(%d, %e : memref<32x64xbf16>, memref<64x8xbf16>) outs(%c : memref<32x8xf32>)
  return
}

// -----

// A view of the accumulator buffer elsewhere (here a subview passed to a
// call) keeps upstream's hoisting from proving the k loop the only user:
// the accumulator stays in memory, with a remark.
func.func private @use(memref<16x8xf32, strided<[8, 1], offset: 128>>)
// CHECK-LABEL: func @accumulator_with_view
// CHECK: scf.for
// CHECK: vector.load %arg2
// CHECK: mma.sync
// CHECK: vector.store {{.*}}, %arg2
// CHECK: gpu.terminator
func.func @accumulator_with_view(%a: memref<32x64xbf16>, %b: memref<64x8xbf16>, %c: memref<32x8xf32>) {
  // expected-remark @below {{the accumulator is read and written in every k step: keeping it in registers needs its buffer to have no view (subview, cast, reshape) anywhere and no other access in the loop}}
  linalg.matmul ins(%a, %b : memref<32x64xbf16>, memref<64x8xbf16>) outs(%c : memref<32x8xf32>)
  %s = memref.subview %c[16, 0] [16, 8] [1, 1] : memref<32x8xf32> to memref<16x8xf32, strided<[8, 1], offset: 128>>
  func.call @use(%s) : (memref<16x8xf32, strided<[8, 1], offset: 128>>) -> ()
  return
}

// -----

// Other matmuls stay for the SIMT path, each with the reason.
// CHECK-LABEL: func @fallbacks
// CHECK-NOT: gpu.launch
// CHECK-COUNT-3: linalg.matmul
func.func @fallbacks(%a: memref<10x16xf16>, %b: memref<16x8xf16>, %c: memref<10x8xf32>,
                     %g: memref<?x16xf16>, %h: memref<?x8xf32>,
                     %i: memref<16x16xf32>, %j: memref<16x8xf32>, %k: memref<16x8xf32>) {
  // expected-remark @below {{10x8x16 is not a multiple of the 16x8x16 mma tile; SIMT fallback}}
  linalg.matmul ins(%a, %b : memref<10x16xf16>, memref<16x8xf16>) outs(%c : memref<10x8xf32>)
  // expected-remark @below {{dynamic shape or strided layout; SIMT fallback}}
  linalg.matmul ins(%g, %b : memref<?x16xf16>, memref<16x8xf16>) outs(%h : memref<?x8xf32>)
  // f32 matmuls are not autocast contractions: no remark.
  linalg.matmul ins(%i, %j : memref<16x16xf32>, memref<16x8xf32>) outs(%k : memref<16x8xf32>)
  return
}

// -----

// Matmuls already in device code, or in a parallel loop whose body becomes
// device code, cannot get launches of their own; an empty matmul has no
// tiles. All stay for the SIMT path (a nested launch would not lower).
// CHECK-LABEL: func @not_host_code
// CHECK: gpu.launch
// CHECK-NOT: gpu.launch
// CHECK: linalg.matmul
// CHECK: scf.parallel
// CHECK: linalg.matmul
// CHECK: scf.forall
// CHECK: linalg.matmul
// CHECK: linalg.matmul
func.func @not_host_code(%a: memref<64x32xf16>, %b: memref<32x64xf16>, %c: memref<64x64xf32>,
                         %e: memref<16x0xf16>, %f: memref<0x8xf16>, %g: memref<16x8xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%u = %c1, %v = %c1, %w = %c1) {
    // expected-remark @below {{amp-gpu-tensor-core-contractions: inside device code or a parallel loop; SIMT fallback}}
    linalg.matmul ins(%a, %b : memref<64x32xf16>, memref<32x64xf16>) outs(%c : memref<64x64xf32>)
    gpu.terminator
  }
  scf.parallel (%i) = (%c0) to (%c2) step (%c1) {
    // expected-remark @below {{amp-gpu-tensor-core-contractions: inside device code or a parallel loop; SIMT fallback}}
    linalg.matmul ins(%a, %b : memref<64x32xf16>, memref<32x64xf16>) outs(%c : memref<64x64xf32>)
  }
  scf.forall (%i) in (2) {
    // expected-remark @below {{amp-gpu-tensor-core-contractions: inside device code or a parallel loop; SIMT fallback}}
    linalg.matmul ins(%a, %b : memref<64x32xf16>, memref<32x64xf16>) outs(%c : memref<64x64xf32>)
  }
  // expected-remark @below {{amp-gpu-tensor-core-contractions: 16x8x0 is empty; SIMT fallback}}
  linalg.matmul ins(%e, %f : memref<16x0xf16>, memref<0x8xf16>) outs(%g : memref<16x8xf32>)
  return
}

// -----

// A transposed A (k x m in memory): not the plain row-major form.
// CHECK-LABEL: func @transposed
// CHECK-NOT: gpu.launch
// CHECK: linalg.matmul
func.func @transposed(%a: memref<32x32xf16>, %b: memref<32x16xf16>, %c: memref<32x16xf32>) {
  // expected-remark @below {{amp-gpu-tensor-core-contractions: transposed or broadcast operands; SIMT fallback}}
  linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d0)>,
                                 affine_map<(d0, d1, d2) -> (d2, d1)>,
                                 affine_map<(d0, d1, d2) -> (d0, d1)>]
    ins(%a, %b : memref<32x32xf16>, memref<32x16xf16>) outs(%c : memref<32x16xf32>)
  return
}

// -----

// A launch that was there before the pass (here with its own bf16
// vector.contract) is left as written; only the matmul's new launch is
// converted.
// CHECK-LABEL: func @earlier_launch
// CHECK: nvvm.mma.sync
// CHECK: gpu.launch
// CHECK: vector.contract {{.*}} : vector<4x4xbf16>, vector<4x4xbf16> into vector<4x4xf32>
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
func.func @earlier_launch(%a: memref<32x32xbf16>, %b: memref<32x8xbf16>, %c: memref<32x8xf32>,
                          %va: vector<4x4xbf16>, %vb: vector<4x4xbf16>, %out: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<32x32xbf16>, memref<32x8xbf16>) outs(%c : memref<32x8xf32>)
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%u = %c1, %v = %c1, %w = %c1) {
    %acc = arith.constant dense<0.0> : vector<4x4xf32>
    %r = vector.contract {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %va, %vb, %acc : vector<4x4xbf16>, vector<4x4xbf16> into vector<4x4xf32>
    vector.transfer_write %r, %out[%c0, %c0] {in_bounds = [true, true]} : vector<4x4xf32>, memref<4x4xf32>
    gpu.terminator
  }
  return
}

// -----

// A batched matmul (attention's scores and values): one block per batch
// element along z and tile along y and x; the block's matmul reads its
// batch element's matrices through memref.reinterpret_cast views (offset
// b * rows * cols), and its accumulator stays in registers across the k
// loop (the view's read before it, its write after it).
// CHECK-LABEL: func @batched
// CHECK-SAME: (%[[A:.*]]: memref<8x64x128xf16>, %[[B:.*]]: memref<8x128x32xf16>, %[[C:.*]]: memref<8x64x32xf32>)
// CHECK: %[[C8:.*]] = arith.constant 8 : index
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}}, {{.*}}, {{.*}} = %[[C8]])
// CHECK:   %[[Z:.*]] = gpu.block_id z
// CHECK:   %[[OA:.*]] = affine.apply #{{.*}}()[%[[Z]]]
// CHECK:   %[[VA:.*]] = memref.reinterpret_cast %[[A]] to offset: [%[[OA]]], sizes: [64, 128], strides: [128, 1]
// CHECK:   %[[VB:.*]] = memref.reinterpret_cast %[[B]] to offset: [%{{.*}}], sizes: [128, 32], strides: [32, 1]
// CHECK:   %[[VC:.*]] = memref.reinterpret_cast %[[C]] to offset: [%{{.*}}], sizes: [64, 32], strides: [32, 1]
// CHECK:   vector.load %[[VC]]
// CHECK:   nvgpu.device_async_copy %[[VA]]
// CHECK:   nvgpu.device_async_copy %[[VB]]
// CHECK:   scf.for {{.*}} iter_args({{.*}}) -> (vector<2x2xf32>
// CHECK:     nvgpu.device_async_copy %[[VA]]
// CHECK:     nvgpu.device_async_copy %[[VB]]
// CHECK:     nvgpu.ldmatrix
// CHECK:     nvgpu.mma.sync
// CHECK-NOT: vector.store {{.*}}%[[VC]]
// CHECK:     scf.yield
// CHECK:   vector.store {{.*}}, %[[VC]]
func.func @batched(%a: memref<8x64x128xf16>, %b: memref<8x128x32xf16>, %c: memref<8x64x32xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<8x64x128xf16>, memref<8x128x32xf16>) outs(%c : memref<8x64x32xf32>)
  return
}

// -----

// Batched matmuls the tensor-core path does not take, each with the
// reason: more batch elements than gridDim.z holds, a transposed operand,
// an empty batch.
// CHECK-LABEL: func @batched_fallbacks
// CHECK-NOT: gpu.launch
// CHECK-COUNT-3: linalg.batch_matmul
func.func @batched_fallbacks(%a: memref<70000x16x16xf16>, %b: memref<70000x16x8xf16>, %c: memref<70000x16x8xf32>,
                             %d: memref<2x16x16xf16>, %e: memref<2x8x16xf16>, %f: memref<2x16x8xf32>,
                             %g: memref<0x16x16xf16>, %h: memref<0x16x8xf16>, %i: memref<0x16x8xf32>) {
  // expected-remark @below {{amp-gpu-tensor-core-contractions: a batch of 70000 exceeds the grid (65535 blocks); SIMT fallback}}
  linalg.batch_matmul ins(%a, %b : memref<70000x16x16xf16>, memref<70000x16x8xf16>) outs(%c : memref<70000x16x8xf32>)
  // expected-remark @below {{amp-gpu-tensor-core-contractions: transposed or broadcast operands; SIMT fallback}}
  linalg.batch_matmul indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>,
                                       affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>,
                                       affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>]
    ins(%d, %e : memref<2x16x16xf16>, memref<2x8x16xf16>) outs(%f : memref<2x16x8xf32>)
  // expected-remark @below {{amp-gpu-tensor-core-contractions: 0x16x8x16 is empty; SIMT fallback}}
  linalg.batch_matmul ins(%g, %h : memref<0x16x16xf16>, memref<0x16x8xf16>) outs(%i : memref<0x16x8xf32>)
  return
}

// -----

// Buffers in a memory space: the batch element's views keep it.
// CHECK-LABEL: func @batched_memory_space
// CHECK: memref.reinterpret_cast {{.*}} : memref<2x32x32xf16, 1> to memref<32x32xf16, strided<[32, 1], offset: ?>, 1>
// CHECK: mma.sync
func.func @batched_memory_space(%a: memref<2x32x32xf16, 1>, %b: memref<2x32x16xf16, 1>, %c: memref<2x32x16xf32, 1>) {
  linalg.batch_matmul ins(%a, %b : memref<2x32x32xf16, 1>, memref<2x32x16xf16, 1>) outs(%c : memref<2x32x16xf32, 1>)
  return
}

// -----

// A constant fill of the output right before the matmul: the kernel's
// accumulators start from it (constants, no read of C) and the fill goes.
// CHECK-LABEL: func @fill_fused
// CHECK-NOT: linalg.fill
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<2x2xf32>
// CHECK-NOT: linalg.fill
// CHECK: gpu.launch
// CHECK-NOT: vector.load %arg2
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[ZERO]])
// CHECK: nvgpu.mma.sync
func.func @fill_fused(%a: memref<32x64xf16>, %b: memref<64x8xf16>, %c: memref<32x8xf32>) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%c : memref<32x8xf32>)
  linalg.matmul ins(%a, %b : memref<32x64xf16>, memref<64x8xf16>) outs(%c : memref<32x8xf32>)
  return
}

// -----

// The fill stays when the accumulator is read in every k step (a view of
// the output elsewhere keeps it in memory), and when an op between the
// fill and the matmul reads the filled buffer.
// CHECK-LABEL: func @fill_kept
// CHECK: linalg.fill
// CHECK: gpu.launch
// CHECK: call @use_view
// CHECK: linalg.fill
// CHECK: memref.load
// CHECK: gpu.launch
func.func private @use_view(memref<16x8xf32, strided<[8, 1], offset: 128>>)
func.func @fill_kept(%a: memref<32x64xbf16>, %b: memref<64x8xbf16>, %c: memref<32x8xf32>,
                     %d: memref<32x8xf32>) -> f32 {
  %z = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  linalg.fill ins(%z : f32) outs(%c : memref<32x8xf32>)
  // expected-remark @below {{the accumulator is read and written in every k step}}
  linalg.matmul ins(%a, %b : memref<32x64xbf16>, memref<64x8xbf16>) outs(%c : memref<32x8xf32>)
  %s = memref.subview %c[16, 0] [16, 8] [1, 1] : memref<32x8xf32> to memref<16x8xf32, strided<[8, 1], offset: 128>>
  func.call @use_view(%s) : (memref<16x8xf32, strided<[8, 1], offset: 128>>) -> ()
  linalg.fill ins(%z : f32) outs(%d : memref<32x8xf32>)
  %v = memref.load %d[%c0, %c0] : memref<32x8xf32>
  linalg.matmul ins(%a, %b : memref<32x64xbf16>, memref<64x8xbf16>) outs(%d : memref<32x8xf32>)
  return %v : f32
}

// -----

// 128 x 128 block tiles (64 x 64 warp tiles, 1024 warps) with eight k steps
// of 32: four stages of 18.5 KiB exceed the 48 KiB of static shared memory,
// so they are views of the launch's dynamic shared memory (74 KiB: A's
// 4 x 128 x 40 stages at byte 0, B's 4 x 32 x 136 at byte 40960), with no
// workgroup attributions; the copies and ldmatrix index the views.
// CHECK-LABEL: func @dynamic_shared_stages
// CHECK: %[[BYTES:.*]] = arith.constant 75776 : i32
// CHECK: gpu.launch {{.*}} threads({{.*}}) in ({{.*}} = %c64{{(_[0-9]+)?}}, {{.*}} = %c2{{(_[0-9]+)?}}, {{.*}} = %c1{{(_[0-9]+)?}}) dynamic_shared_memory_size %[[BYTES]] {
// CHECK: %[[DYN:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[SB:.*]] = memref.view %[[DYN]][%c40960][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4x32x136xf16, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[SA:.*]] = memref.view %[[DYN]][%c0{{(_[0-9]+)?}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<4x128x40xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.device_async_copy %arg0[{{.*}}], %[[SA]][{{.*}}], 8 {bypassL1}
// CHECK: nvgpu.device_async_copy %arg1[{{.*}}], %[[SB]][{{.*}}], 8 {bypassL1}
// CHECK: scf.for
// CHECK-NEXT: nvgpu.device_async_wait {{.*}} {numGroups = 2 : i32}
// CHECK: nvgpu.ldmatrix %[[SA]]
// CHECK: nvgpu.ldmatrix %[[SB]]
// CHECK: nvgpu.mma.sync
func.func @dynamic_shared_stages(%a: memref<2048x256xf16>, %b: memref<256x2048xf16>, %c: memref<2048x2048xf32>) {
  linalg.matmul ins(%a, %b : memref<2048x256xf16>, memref<256x2048xf16>) outs(%c : memref<2048x2048xf32>)
  return
}

// -----

// An elementwise op on the output in place right after the matmul (here
// keep-narrow-rounding's rounding to f16 and back) is applied to each
// lane's accumulator pairs before they are stored once after the k loop,
// and the op goes.
// CHECK-LABEL: func @epilogue_fused
// CHECK: gpu.launch
// CHECK: scf.for
// CHECK: scf.yield
// CHECK-COUNT-2: %[[T:.*]] = arith.truncf %{{.*}} : vector<2xf32> to vector<2xf16>
// CHECK-NEXT: %[[E:.*]] = arith.extf %[[T]] : vector<2xf16> to vector<2xf32>
// CHECK-NEXT: vector.store %[[E]], %arg2
// CHECK: gpu.terminator
// CHECK-NOT: linalg.generic
func.func @epilogue_fused(%a: memref<32x64xf16>, %b: memref<64x8xf16>, %c: memref<32x8xf32>) {
  linalg.matmul ins(%a, %b : memref<32x64xf16>, memref<64x8xf16>) outs(%c : memref<32x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c : memref<32x8xf32>) outs(%c : memref<32x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = arith.truncf %in : f32 to f16
    %e = arith.extf %t : f16 to f32
    linalg.yield %e : f32
  }
  return
}

// -----

// The body's %out is the same element as %in (one buffer, identity maps).
// CHECK-LABEL: func @epilogue_reads_out
// CHECK-COUNT-2: %[[D:.*]] = arith.addf %[[V:.*]], %[[V]] : vector<2xf32>
// CHECK-NEXT: vector.store %[[D]], %arg2
// CHECK-NOT: linalg.generic
func.func @epilogue_reads_out(%a: memref<32x64xf16>, %b: memref<64x8xf16>, %c: memref<32x8xf32>) {
  linalg.matmul ins(%a, %b : memref<32x64xf16>, memref<64x8xf16>) outs(%c : memref<32x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c : memref<32x8xf32>) outs(%c : memref<32x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.addf %in, %out : f32
    linalg.yield %d : f32
  }
  return
}

// -----

// The op stays: one that uses a value from outside its body (a scale), one
// after a matmul whose accumulator is stored in every k step (a view of
// the output elsewhere), and one between which and the matmul another op
// comes.
func.func private @keep_view(memref<16x8xf32, strided<[8, 1], offset: 128>>)
// CHECK-LABEL: func @epilogue_kept
// CHECK: gpu.launch
// CHECK: gpu.terminator
// CHECK: linalg.generic
// CHECK: arith.mulf
// CHECK: gpu.launch
// CHECK: gpu.terminator
// CHECK: linalg.generic
// CHECK: arith.truncf
// CHECK: gpu.launch
// CHECK: gpu.terminator
// CHECK: memref.copy
// CHECK: linalg.generic
// CHECK: arith.truncf
func.func @epilogue_kept(%a: memref<32x64xf16>, %b: memref<64x8xf16>, %c: memref<32x8xf32>,
                         %d: memref<32x8xf32>, %e: memref<32x8xf32>, %s: f32) {
  linalg.matmul ins(%a, %b : memref<32x64xf16>, memref<64x8xf16>) outs(%c : memref<32x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%c : memref<32x8xf32>) outs(%c : memref<32x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %s : f32
    linalg.yield %m : f32
  }
  // expected-remark @below {{the accumulator is read and written in every k step}}
  linalg.matmul ins(%a, %b : memref<32x64xf16>, memref<64x8xf16>) outs(%d : memref<32x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%d : memref<32x8xf32>) outs(%d : memref<32x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = arith.truncf %in : f32 to f16
    %x = arith.extf %t : f16 to f32
    linalg.yield %x : f32
  }
  %v = memref.subview %d[16, 0] [16, 8] [1, 1] : memref<32x8xf32> to memref<16x8xf32, strided<[8, 1], offset: 128>>
  func.call @keep_view(%v) : (memref<16x8xf32, strided<[8, 1], offset: 128>>) -> ()
  linalg.matmul ins(%a, %b : memref<32x64xf16>, memref<64x8xf16>) outs(%e : memref<32x8xf32>)
  memref.copy %e, %c : memref<32x8xf32> to memref<32x8xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%e : memref<32x8xf32>) outs(%e : memref<32x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = arith.truncf %in : f32 to f16
    %x = arith.extf %t : f16 to f32
    linalg.yield %x : f32
  }
  return
}
