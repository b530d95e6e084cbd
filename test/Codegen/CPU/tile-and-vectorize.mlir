// RUN: amp-opt %s -split-input-file --amp-cpu-tile-and-vectorize="pack-rhs=false cpu-features=generic" | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-cpu-tile-and-vectorize="cache-tile=32,64,64 register-tile=4,8,4 pack-rhs=false cpu-features=generic" | FileCheck %s --check-prefix=SMALL
// RUN: amp-opt %s -split-input-file --amp-cpu-tile-and-vectorize="cache-tile=64,64,128 parallel=true pack-rhs=false cpu-features=generic" | FileCheck %s --check-prefix=PAR
// RUN: amp-opt %s -split-input-file --amp-cpu-tile-and-vectorize=cpu-features=generic | FileCheck %s --check-prefix=PACK
// RUN: amp-opt %s -split-input-file --amp-cpu-tile-and-vectorize="parallel=true cpu-features=generic" | FileCheck %s --check-prefix=PACKPAR

// A matmul: cache tiles (m 128, n 128, k 256 by default; the single k
// tile's loop folds away), register tiles (6 x 16, k 8) vectorized into a
// vector.contract on 2-D transfers. 128 = 21 x 6 + 2: the m loop is peeled,
// and its last iteration is a static 2 x 16 tile.
// CHECK-LABEL: func @matmul
// CHECK: scf.for {{.*}} to %c256 step %c128
// CHECK: scf.for {{.*}} to %c256 step %c128
// CHECK: scf.for {{.*}} to %c126 step %c6
// CHECK: scf.for {{.*}} step %c16
// CHECK: scf.for {{.*}} step %c8
// CHECK: vector.transfer_read {{.*}} : tensor<256x256xf32>, vector<6x8xf32>
// CHECK: vector.transfer_read {{.*}} : tensor<256x256xf32>, vector<8x16xf32>
// CHECK: vector.contract {{.*}} : vector<6x8xf32>, vector<8x16xf32> into vector<6x16xf32>
// CHECK: vector.contract {{.*}} : vector<2x8xf32>, vector<8x16xf32> into vector<2x16xf32>
// CHECK-NOT: linalg.matmul
// SMALL-LABEL: func @matmul
// By default (pack-rhs), B (256 KiB) is packed into 16-column panels
// (K x 16 contiguous): 16 x 256 x 16, the matmul becomes a generic over
// (N/16, M, K, 16) on C viewed as 256 x 16 x 16, whose cache tiles spread
// n = 128 over 8 panels of 16; the register tiles drop the unit panel
// dimension and vectorize as above.
// PACK-LABEL: func @matmul
// The panels are written by vector code: 8 rows of 16 per step.
// PACK: %[[B:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2]] output_shape [256, 16, 16]
// PACK: scf.for
// PACK: vector.transfer_read %[[B]]{{.*}} : tensor<256x16x16xf32>, vector<8x16xf32>
// PACK-NEXT: vector.transfer_write {{.*}} : vector<8x16xf32>, tensor<16x256x16xf32>
// PACK-NOT: linalg.transpose
// PACK: scf.for {{.*}} to %c16 step %c8
// PACK: vector.contract {{.*}} : vector<6x8xf32>, vector<8x16xf32> into vector<6x16xf32>
// C's unpack is a view: the collapse is returned, not copied into a
// fresh tensor (upstream lowerUnPack's linalg.copy, a second buffer of C).
// PACK: %[[C:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2]] : tensor<256x16x16xf32> into tensor<256x256xf32>
// PACK-NOT: linalg.copy
// PACK-NOT: linalg.matmul
// PACK: return %[[C]]
// With `parallel`, the m and n cache tiles form an scf.forall and the k
// cache tiles a sequential loop inside it.
// PAR-LABEL: func @matmul
// With `parallel`, B's panels (256 KiB) are packed by an scf.forall over
// the panels, each writing its own slice.
// PACKPAR-LABEL: func @matmul
// PACKPAR: scf.forall (%{{.*}}) in (16) shared_outs(%[[OUT:.*]] = %{{.*}}) -> (tensor<16x256x16xf32>)
// PACKPAR: tensor.extract_slice %[[OUT]]{{.*}} [1, 256, 16] [1, 1, 1] : tensor<16x256x16xf32> to tensor<1x256x16xf32>
// PACKPAR: vector.transfer_read {{.*}} : tensor<256x16x16xf32>, vector<8x16xf32>
// PACKPAR: vector.transfer_write {{.*}} : vector<8x16xf32>, tensor<1x256x16xf32>
// PACKPAR: tensor.parallel_insert_slice {{.*}} into %[[OUT]]
// PAR: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (256, 256) step (64, 64)
// PAR: scf.for {{.*}} to %c256 step %c128
// PAR: vector.contract
// PAR: tensor.parallel_insert_slice
// SMALL: vector.contract {{.*}} : vector<4x4xf32>, vector<4x8xf32> into vector<4x8xf32>
func.func @matmul(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>, %c: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<256x256xf32>, tensor<256x256xf32>) outs(%c : tensor<256x256xf32>) -> tensor<256x256xf32>
  return %r : tensor<256x256xf32>
}

// -----

// A bf16 x bf16 -> f32 matmul (fp32 accumulation): bf16 transfers, extended
// to f32 in registers, f32 contraction. Register tiles that do not divide
// their dimension are peeled (m 16 = 2 x 6 + 4, n 24 = 16 + 8,
// k 20 = 2 x 8 + 4): every tile is static, down to the 4 x 8 corner with k 4.
// CHECK-LABEL: func @matmul_bf16
// CHECK: vector.transfer_read {{.*}} : tensor<16x20xbf16>, vector<6x8xbf16>
// CHECK: arith.extf {{.*}} : vector<6x8xbf16> to vector<6x8xf32>
// CHECK: vector.contract {{.*}} into vector<6x16xf32>
// CHECK: vector.contract {{.*}} : vector<4x4xf32>, vector<4x8xf32> into vector<4x8xf32>
// CHECK-NOT: linalg.matmul
func.func @matmul_bf16(%a: tensor<16x20xbf16>, %b: tensor<20x24xbf16>, %c: tensor<16x24xf32>) -> tensor<16x24xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<16x20xbf16>, tensor<20x24xbf16>) outs(%c : tensor<16x24xf32>) -> tensor<16x24xf32>
  return %r : tensor<16x24xf32>
}

// -----

// A packed bf16 x bf16 -> f32 matmul (B 256 x 512 bf16, 256 KiB): both
// operands are extended to f32 once (exact), B while being packed, so the
// register tiles convert nothing.
// PACK-LABEL: func @matmul_bf16_packed
// PACK: linalg.generic {{.*}} ins(%{{.*}} : tensor<64x256xbf16>) outs(%{{.*}} : tensor<64x256xf32>)
// PACK: arith.extf {{.*}} : bf16 to f32
// B is widened as it is packed (no f32 copy of B).
// PACK-NOT: linalg.generic
// PACK: vector.transfer_read {{.*}} : tensor<256x32x16xbf16>, vector<8x16xbf16>
// PACK-NEXT: arith.extf {{.*}} : vector<8x16xbf16> to vector<8x16xf32>
// PACK-NEXT: vector.transfer_write {{.*}} : vector<8x16xf32>, tensor<32x256x16xf32>
// PACK-NOT: arith.extf
// PACK: vector.contract {{.*}} : vector<6x8xf32>, vector<8x16xf32> into vector<6x16xf32>
// PACK-NOT: arith.extf
// PACK-NOT: linalg.matmul
func.func @matmul_bf16_packed(%a: tensor<64x256xbf16>, %b: tensor<256x512xbf16>, %c: tensor<64x512xf32>) -> tensor<64x512xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x256xbf16>, tensor<256x512xbf16>) outs(%c : tensor<64x512xf32>) -> tensor<64x512xf32>
  return %r : tensor<64x512xf32>
}

// -----

// A packed matmul keeps its cast kind: an i8 A with `cast_unsigned` is
// converted with uitofp after the f16 B is widened and the matmul rebuilt.
// A bf16 B of 256 x 320 (160 KiB) is packed: as f32, the way it is packed,
// it holds 320 KiB.
// PACK-LABEL: func @matmul_unsigned_packed
// PACK: vector.transfer_read {{.*}} : tensor<1024x16x16xf16>, vector<8x16xf16>
// PACK-NEXT: arith.extf {{.*}} : vector<8x16xf16> to vector<8x16xf32>
// PACK: arith.uitofp
// PACK-NOT: arith.sitofp
// PACK-LABEL: func @matmul_bf16_sized_as_f32
// PACK: vector.transfer_write {{.*}} : vector<8x16xf32>, tensor<20x256x16xf32>
func.func @matmul_unsigned_packed(%a: tensor<8x1024xi8>, %b: tensor<1024x256xf16>, %c: tensor<8x256xf32>) -> tensor<8x256xf32> {
  %r = linalg.matmul {cast = #linalg.type_fn<cast_unsigned>} ins(%a, %b : tensor<8x1024xi8>, tensor<1024x256xf16>) outs(%c : tensor<8x256xf32>) -> tensor<8x256xf32>
  return %r : tensor<8x256xf32>
}
func.func @matmul_bf16_sized_as_f32(%a: tensor<64x256xbf16>, %b: tensor<256x320xbf16>, %c: tensor<64x320xf32>) -> tensor<64x320xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x256xbf16>, tensor<256x320xbf16>) outs(%c : tensor<64x320xf32>) -> tensor<64x320xf32>
  return %r : tensor<64x320xf32>
}

// -----

// The transposed-operand forms amp-fold-transpose-into-contraction leaves
// (a Linear's x @ W^T, the weight gradient dY^T @ X) are packed too: B^T
// (N x K, 256 x 256 f32) goes to the 16-column panels by one transpose
// from its stored order ([N/16, 16, K] -> [N/16, K, 16], 8 x 8 blocks);
// A^T (K x M) is transposed to M x K once. The register tile's accumulator (a 6 x 16
// slice of C viewed as M x N/16 x 16) is written back through the same
// rank-reducing map it is read with, so that loop-invariant-subset-hoisting
// keeps it in registers across the k loop.
// PACK-LABEL: func @matmul_transposed
// PACK: linalg.transpose ins(%{{.*}} : tensor<256x128xf32>) outs(%{{.*}} : tensor<128x256xf32>) permutation = [1, 0]
// PACK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [16, 16, 256] : tensor<256x256xf32> into tensor<16x16x256xf32>
// PACK: vector.transfer_read %{{.*}} : tensor<16x16x256xf32>, vector<8x8xf32>
// PACK-NEXT: vector.transpose %{{.*}}, [1, 0] : vector<8x8xf32> to vector<8x8xf32>
// PACK-NEXT: vector.transfer_write {{.*}} : vector<8x8xf32>, tensor<16x256x16xf32>
// PACK: %[[ACC:.*]] = vector.transfer_read %{{.*}} {in_bounds = [true, true], permutation_map = #{{.*}}} : tensor<128x8x16xf32>, vector<6x16xf32>
// PACK: vector.contract {{.*}} : vector<6x8xf32>, vector<8x16xf32> into vector<6x16xf32>
// PACK: vector.transfer_write %{{.*}} {in_bounds = [true, true], permutation_map = #{{.*}}} : vector<6x16xf32>, tensor<128x8x16xf32>
func.func @matmul_transposed(%at: tensor<256x128xf32>, %bt: tensor<256x256xf32>, %c: tensor<128x256xf32>) -> tensor<128x256xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
       ins(%at, %bt : tensor<256x128xf32>, tensor<256x256xf32>) outs(%c : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %r : tensor<128x256xf32>
}

// -----

// A batch_matmul: the batch dimension gets tile size 1 (a unit vector
// dimension, unrolled when the contraction is lowered).
// CHECK-LABEL: func @batch_matmul
// CHECK: scf.for {{.*}} to %c4 step %c1
// CHECK: vector.contract {{.*}} : vector<1x6x8xf32>, vector<1x8x16xf32> into vector<1x6x16xf32>
// CHECK-NOT: linalg.batch_matmul
func.func @batch_matmul(%a: tensor<4x32x64xf32>, %b: tensor<4x64x32xf32>, %c: tensor<4x32x32xf32>) -> tensor<4x32x32xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<4x32x64xf32>, tensor<4x64x32xf32>) outs(%c : tensor<4x32x32xf32>) -> tensor<4x32x32xf32>
  return %r : tensor<4x32x32xf32>
}

// -----

// An NCHW convolution: im2col, then a vectorized contraction (the unit
// batch dimension of its register tiles is dropped).
// CHECK-LABEL: func @conv
// CHECK-NOT: linalg.conv_2d_nchw_fchw
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<1x8x10x10xf32>) outs(%{{.*}} : tensor<1x72x64xf32>)
// CHECK: vector.contract {{.*}} : vector<6x8xf32>, vector<8x16xf32> into vector<6x16xf32>
func.func @conv(%x: tensor<1x8x10x10xf32>, %w: tensor<16x8x3x3xf32>, %o: tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x8x10x10xf32>, tensor<16x8x3x3xf32>) outs(%o : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  return %r : tensor<1x16x8x8xf32>
}

// -----

// Dynamic shapes are left alone (scalar loops later).
// CHECK-LABEL: func @dynamic
// CHECK: linalg.matmul
func.func @dynamic(%a: tensor<?x8xf32>, %b: tensor<8x8xf32>, %c: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x8xf32>, tensor<8x8xf32>) outs(%c : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}

// -----

// An empty reduction (k = 0) is not tiled (nothing to compute; upstream
// tiling would crash on it), with or without `parallel`.
// CHECK-LABEL: func @empty_reduction
// CHECK: linalg.matmul
// PAR-LABEL: func @empty_reduction
// PAR: linalg.matmul
func.func @empty_reduction(%a: tensor<4x0xf32>, %b: tensor<0x5xf32>, %c: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x0xf32>, tensor<0x5xf32>) outs(%c : tensor<4x5xf32>) -> tensor<4x5xf32>
  return %r : tensor<4x5xf32>
}

// -----

// Depthwise convolutions are not rewritten to im2col.
// CHECK-LABEL: func @depthwise
// CHECK: linalg.depthwise_conv_2d_nhwc_hwc
func.func @depthwise(%i: tensor<2x4x4x3xf32>, %w: tensor<3x3x3xf32>, %o: tensor<2x2x2x3xf32>) -> tensor<2x2x2x3xf32> {
  %r = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%i, %w : tensor<2x4x4x3xf32>, tensor<3x3x3xf32>) outs(%o : tensor<2x2x2x3xf32>) -> tensor<2x2x2x3xf32>
  return %r : tensor<2x2x2x3xf32>
}

// -----

// A prime extent (257 rows: 257 output channels of a convolution): its only
// divisors below the cache tile are 1 and itself, so it is one cache tile
// of 257 rows, and the register tiles keep their 6 rows (42 of them and a
// peeled tile of 5), not 257 tiles of one row each.
// CHECK-LABEL: func.func @prime_rows
// CHECK: vector.contract {{.*}} : vector<6x8xf32>, vector<8x16xf32> into vector<6x16xf32>
// CHECK: vector.contract {{.*}} : vector<5x8xf32>, vector<8x16xf32> into vector<5x16xf32>
// CHECK-NOT: vector<1x8xf32>, vector<8x16xf32> into vector<1x16xf32>
func.func @prime_rows(%a: tensor<257x64xf32>, %b: tensor<64x64xf32>, %c: tensor<257x64xf32>) -> tensor<257x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<257x64xf32>, tensor<64x64xf32>) outs(%c : tensor<257x64xf32>) -> tensor<257x64xf32>
  return %r : tensor<257x64xf32>
}
