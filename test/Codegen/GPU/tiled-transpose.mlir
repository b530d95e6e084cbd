// RUN: amp-opt %s -split-input-file --amp-gpu-tiled-transpose -verify-diagnostics | FileCheck %s
// The kernels run on the CPU by utils/simt_emulator.py (every thread in
// lockstep, shared memory per block with a race check): OUT must be IN
// transposed, every element written once.
// RUN: amp-opt %s --amp-gpu-tiled-transpose --mlir-print-op-generic -o %t.mlir 2>/dev/null
// RUN: %amp_build_root/venv/bin/python %amp_src_root/utils/simt_emulator.py %t.mlir --func f16 --func f32_wide --func i8_square --func narrow --func ragged --func tiny | FileCheck %s --check-prefix=EMULATED
// EMULATED: f16: 1 launch(es), 96 blocks of 256 threads, 0 mma.sync per warp, max |OUT - numpy| = 0
// EMULATED: f32_wide: 1 launch(es), 256 blocks of 256 threads, 0 mma.sync per warp, max |OUT - numpy| = 0
// EMULATED: i8_square: 1 launch(es), 1 blocks of 256 threads, 0 mma.sync per warp, max |OUT - numpy| = 0
// EMULATED: narrow: 1 launch(es), 128 blocks of 256 threads, 0 mma.sync per warp, max |OUT - numpy| = 0
// EMULATED: ragged: 1 launch(es), 6 blocks of 256 threads, 0 mma.sync per warp, max |OUT - numpy| = 0
// EMULATED: tiny: 1 launch(es), 1 blocks of 256 threads, 0 mma.sync per warp, max |OUT - numpy| = 0

// One block of 32 x 8 threads per 32 x 32 input tile (grid: 96 / 32 tile
// columns on x, 1024 / 32 tile rows on y) and a shared 32 x 33 tile: four
// coalesced rows in, a barrier, four rows out read down the tile's columns.
// CHECK-LABEL: func @f16
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c3{{(_[0-9]+)?}}, {{.*}} = %c32{{(_[0-9]+)?}}, {{.*}} = %c1{{(_[0-9]+)?}}) threads(%{{.*}}, %{{.*}}, %{{.*}}) in ({{.*}} = %c32{{(_[0-9]+)?}}, {{.*}} = %c8{{(_[0-9]+)?}}, {{.*}} = %c1{{(_[0-9]+)?}}) workgroup(%[[TILE:.*]] : memref<32x33xf16, #gpu.address_space<workgroup>>)
// CHECK-COUNT-4: memref.store {{.*}}, %[[TILE]]
// CHECK-NOT: %arg1
// CHECK: gpu.barrier
// CHECK-COUNT-4: memref.store {{.*}}, %arg1
// CHECK: gpu.terminator
// CHECK-NOT: linalg.transpose
func.func @f16(%a: memref<1024x96xf16>, %b: memref<96x1024xf16>) {
  linalg.transpose ins(%a : memref<1024x96xf16>) outs(%b : memref<96x1024xf16>) permutation = [1, 0]
  return
}

// -----

// CHECK-LABEL: func @f32_wide
// CHECK: gpu.launch
// CHECK-SAME: memref<32x33xf32, #gpu.address_space<workgroup>>
func.func @f32_wide(%a: memref<64x4096xf32>, %b: memref<4096x64xf32>) {
  linalg.transpose ins(%a : memref<64x4096xf32>) outs(%b : memref<4096x64xf32>) permutation = [1, 0]
  return
}

// -----

// CHECK-LABEL: func @i8_square
// CHECK: gpu.launch
func.func @i8_square(%a: memref<32x32xi8>, %b: memref<32x32xi8>) {
  linalg.transpose ins(%a : memref<32x32xi8>) outs(%b : memref<32x32xi8>) permutation = [1, 0]
  return
}

// -----

// Sizes that are not multiples of 32: the last tiles are partial, each
// load and store guarded by its element being in bounds (a check on the
// columns only for 4096 x 16; both for 70 x 40; none for the barrier).
// CHECK-LABEL: func @narrow
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1{{(_[0-9]+)?}}, {{.*}} = %c128{{(_[0-9]+)?}}, {{.*}} = %c1{{(_[0-9]+)?}}) threads
// CHECK-COUNT-4: arith.cmpi ult, %{{.*}}, %c16
// CHECK-NOT: arith.cmpi
// CHECK: gpu.barrier
// CHECK-NOT: scf.if
// CHECK-COUNT-4: arith.cmpi ult, %{{.*}}, %c16
// CHECK-NOT: arith.cmpi
// CHECK: gpu.terminator
// CHECK-NOT: linalg.transpose
func.func @narrow(%a: memref<4096x16xf16>, %b: memref<16x4096xf16>) {
  linalg.transpose ins(%a : memref<4096x16xf16>) outs(%b : memref<16x4096xf16>) permutation = [1, 0]
  return
}

// -----

// CHECK-LABEL: func @ragged
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c2{{(_[0-9]+)?}}, {{.*}} = %c3{{(_[0-9]+)?}}, {{.*}} = %c1{{(_[0-9]+)?}}) threads
// CHECK-COUNT-4: arith.andi
// CHECK: gpu.barrier
// CHECK-COUNT-4: arith.andi
// CHECK-NOT: linalg.transpose
func.func @ragged(%a: memref<70x40xf32>, %b: memref<40x70xf32>) {
  linalg.transpose ins(%a : memref<70x40xf32>) outs(%b : memref<40x70xf32>) permutation = [1, 0]
  return
}

// -----

// CHECK-LABEL: func @tiny
// CHECK: gpu.launch
// CHECK-NOT: linalg.transpose
func.func @tiny(%a: memref<3x5xbf16>, %b: memref<5x3xbf16>) {
  linalg.transpose ins(%a : memref<3x5xbf16>) outs(%b : memref<5x3xbf16>) permutation = [1, 0]
  return
}

// -----

// The others stay for the parallel-loop path, each with the reason; a
// transpose of rank 3 or on tensors is not this pass's (no remark).
// CHECK-LABEL: func @fallbacks
// CHECK-NOT: gpu.launch
// CHECK-COUNT-2: linalg.transpose
// CHECK: gpu.launch
// CHECK: linalg.transpose
// CHECK: scf.parallel
// CHECK: linalg.transpose
// CHECK: affine.parallel
// CHECK: linalg.transpose
// CHECK: linalg.transpose
// CHECK: linalg.transpose
// CHECK: linalg.transpose
func.func @fallbacks(%a: memref<4096x16xf16>, %b: memref<16x4096xf16>,
                     %c: memref<?x32xf32>, %d: memref<32x?xf32>,
                     %e: memref<64x64xf32>,
                     %f: memref<32x32x32xf32>, %g: memref<32x32x32xf32>,
                     %t: tensor<32x64xf32>, %u: tensor<64x32xf32>) {
  // expected-remark @below {{amp-gpu-tiled-transpose: dynamic shape or strided layout; parallel-loop transpose}}
  linalg.transpose ins(%c : memref<?x32xf32>) outs(%d : memref<32x?xf32>) permutation = [1, 0]
  // expected-remark @below {{amp-gpu-tiled-transpose: input and output on one buffer; parallel-loop transpose}}
  linalg.transpose ins(%e : memref<64x64xf32>) outs(%e : memref<64x64xf32>) permutation = [1, 0]
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%p = %c1, %q = %c1, %r = %c1) {
    // expected-remark @below {{amp-gpu-tiled-transpose: inside device code or a parallel loop; parallel-loop transpose}}
    linalg.transpose ins(%e : memref<64x64xf32>) outs(%e : memref<64x64xf32>) permutation = [1, 0]
    gpu.terminator
  }
  scf.parallel (%i) = (%c0) to (%c1) step (%c1) {
    // expected-remark @below {{amp-gpu-tiled-transpose: inside device code or a parallel loop; parallel-loop transpose}}
    linalg.transpose ins(%a : memref<4096x16xf16>) outs(%b : memref<16x4096xf16>) permutation = [1, 0]
  }
  affine.parallel (%i) = (0) to (2) {
    // expected-remark @below {{amp-gpu-tiled-transpose: inside device code or a parallel loop; parallel-loop transpose}}
    linalg.transpose ins(%a : memref<4096x16xf16>) outs(%b : memref<16x4096xf16>) permutation = [1, 0]
  }
  %z0 = memref.alloc() : memref<0x32xf32>
  %z1 = memref.alloc() : memref<32x0xf32>
  // expected-remark @below {{amp-gpu-tiled-transpose: empty; parallel-loop transpose}}
  linalg.transpose ins(%z0 : memref<0x32xf32>) outs(%z1 : memref<32x0xf32>) permutation = [1, 0]
  linalg.transpose ins(%f : memref<32x32x32xf32>) outs(%g : memref<32x32x32xf32>) permutation = [1, 0, 2]
  %o = linalg.transpose ins(%t : tensor<32x64xf32>) outs(%u : tensor<64x32xf32>) permutation = [1, 0]
  return
}

// -----

// Grids CUDA cannot launch: tile rows go on blockIdx.y (at most 65535),
// tile columns on blockIdx.x (at most 2^31 - 1); 2^16 + 1 tile rows and
// 2^31 tile columns stay parallel loops.
// CHECK-LABEL: func @grid_limits
// CHECK-NOT: gpu.launch
func.func @grid_limits(%a: memref<2097184x1xf32>, %b: memref<1x2097184xf32>,
                       %c: memref<1x68719476736xi8>, %d: memref<68719476736x1xi8>) {
  // expected-remark @below {{amp-gpu-tiled-transpose: more than 65535 tile rows; parallel-loop transpose}}
  linalg.transpose ins(%a : memref<2097184x1xf32>) outs(%b : memref<1x2097184xf32>) permutation = [1, 0]
  // expected-remark @below {{amp-gpu-tiled-transpose: more than 2147483647 tile columns; parallel-loop transpose}}
  linalg.transpose ins(%c : memref<1x68719476736xi8>) outs(%d : memref<68719476736x1xi8>) permutation = [1, 0]
  return
}
