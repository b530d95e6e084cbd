// RUN: amp-opt %s -split-input-file --amp-cpu-tile-and-vectorize=cpu-features=avx512bf16 | FileCheck %s --check-prefix=DOT
// RUN: amp-opt %s -split-input-file --amp-cpu-tile-and-vectorize=cpu-features=generic | FileCheck %s --check-prefix=FMA

// With AVX512-BF16, a bf16 x bf16 -> f32 matmul gets B packed in VNNI
// layout (N/64 x K/2 x 64 x 2: a transpose of B split into pairs), A split
// into K/2 x 2 (a reshape), C viewed as M x N/64 x 64; the register tile is
// one x86vector.avx512.dot per 16 columns and row, on the broadcast A pair.
// Without it (generic, or an AVX2 / AVX-512 CPU without BF16): FMA code on
// f32, no x86vector.
// DOT-LABEL: func @matmul_bf16
// DOT: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [24, 32, 2] : tensor<24x64xbf16> into tensor<24x32x2xbf16>
// B's VNNI pack (K/2 x 2 x N/64 x 64 -> N/64 x K/2 x 64 x 2) as vector
// code: per pair row, the two k rows of 32 columns interleaved.
// DOT: %[[B:.*]] = tensor.expand_shape %{{.*}} into tensor<32x2x2x64xbf16>
// DOT: scf.for
// DOT: scf.for
// DOT: scf.for
// DOT: vector.transfer_read %[[B]]{{.*}} permutation_map = #{{.*}}} : tensor<32x2x2x64xbf16>, vector<2x32xbf16>
// DOT-NEXT: vector.transpose %{{.*}}, [1, 0] : vector<2x32xbf16> to vector<32x2xbf16>
// DOT-NEXT: vector.transfer_write {{.*}} : vector<32x2xbf16>, tensor<2x32x64x2xbf16>
// DOT-NOT: linalg.transpose
// DOT: vector.transfer_read {{.*}} : tensor<2x32x64x2xbf16>, vector<1x16x2xbf16>
// DOT: vector.broadcast {{.*}} : vector<1xi32> to vector<16xi32>
// DOT: x86vector.avx512.dot {{.*}} : vector<32xbf16> -> vector<16xf32>
// DOT-NOT: vector.contract
// C's unpack is the collapse of its 24 x 2 x 64 view, not a copy.
// DOT: %[[C:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<24x2x64xf32> into tensor<24x128xf32>
// DOT-NOT: linalg.copy
// DOT: return %[[C]]
// FMA-LABEL: func @matmul_bf16
// FMA-NOT: x86vector
// FMA: vector.contract
// FMA-NOT: x86vector
func.func @matmul_bf16(%a: tensor<24x64xbf16>, %b: tensor<64x128xbf16>, %c: tensor<24x128xf32>) -> tensor<24x128xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<24x64xbf16>, tensor<64x128xbf16>) outs(%c : tensor<24x128xf32>) -> tensor<24x128xf32>
  return %r : tensor<24x128xf32>
}

// -----

// Odd K and an N of 40: the last pair and the panels are padded with zeros
// (one 48-wide panel, not 64), the padded C is cut back.
// DOT-LABEL: func @matmul_bf16_edges
// DOT: tensor.pad
// DOT: vector.transfer_write {{.*}} : vector<16x2xbf16>, tensor<1x4x48x2xbf16>
// DOT: x86vector.avx512.dot
// DOT: tensor.extract_slice {{.*}} to tensor<10x40xf32>
// FMA-LABEL: func @matmul_bf16_edges
// FMA-NOT: x86vector
func.func @matmul_bf16_edges(%a: tensor<10x7xbf16>, %b: tensor<7x40xbf16>, %c: tensor<10x40xf32>) -> tensor<10x40xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<10x7xbf16>, tensor<7x40xbf16>) outs(%c : tensor<10x40xf32>) -> tensor<10x40xf32>
  return %r : tensor<10x40xf32>
}

// -----

// Transposed A and B, batch_matmul: A is transposed to M x K (a
// linalg.transpose, vectorized in blocks later) and split into pairs by a
// reshape; B^T (N x K) is packed to VNNI panels directly.
// DOT-LABEL: func @batch_matmul_bf16_transposed
// DOT: linalg.transpose ins(%{{.*}} : tensor<2x32x16xbf16>) outs(%{{.*}} : tensor<2x16x32xbf16>) permutation = [0, 2, 1]
// DOT: tensor.expand_shape {{.*}} into tensor<2x16x16x2xbf16>
// DOT: linalg.transpose ins(%{{.*}} : tensor<2x1x64x16x2xbf16>) outs(%{{.*}} : tensor<2x1x16x64x2xbf16>)
// DOT: x86vector.avx512.dot
// FMA-LABEL: func @batch_matmul_bf16_transposed
// FMA-NOT: x86vector
func.func @batch_matmul_bf16_transposed(%a: tensor<2x32x16xbf16>, %b: tensor<2x64x32xbf16>, %c: tensor<2x16x64xf32>) -> tensor<2x16x64xf32> {
  %r = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, k, m)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
       ins(%a, %b : tensor<2x32x16xbf16>, tensor<2x64x32xbf16>) outs(%c : tensor<2x16x64xf32>) -> tensor<2x16x64xf32>
  return %r : tensor<2x16x64xf32>
}

// -----

// A batch_matmul's register tile (6 x 64 of the 1 x 64 x 1 x 64 slice of
// C's view for one batch entry) writes its accumulators into the k loop's
// tensor itself, not into an extracted 1 x 6 x 1 x 64 slice inserted back:
// each accumulator is then a read and write of one subset of the loop's
// iter_arg, which loop-invariant-subset-hoisting keeps in registers (they
// were stored and reloaded on every k step, 2.5x slower).
// DOT-LABEL: func @batch_matmul_bf16_accumulators
// DOT: scf.for {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<1x64x1x64xf32>)
// DOT-NOT: tensor.extract_slice %[[ACC]]
// DOT: x86vector.avx512.dot
// DOT: vector.transfer_write %{{.*}}, %[[ACC]][%c0, %{{.*}}, %c0, %c0] {in_bounds = [true, true], permutation_map = #{{.*}}} : vector<1x16xf32>, tensor<1x64x1x64xf32>
// DOT-NOT: tensor.insert_slice
// DOT: scf.yield
func.func @batch_matmul_bf16_accumulators(%a: tensor<4x64x16xbf16>, %b: tensor<4x16x64xbf16>, %c: tensor<4x64x64xf32>) -> tensor<4x64x64xf32> {
  %r = linalg.batch_matmul ins(%a, %b : tensor<4x64x16xbf16>, tensor<4x16x64xbf16>) outs(%c : tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
  return %r : tensor<4x64x64xf32>
}

// -----

// f32 and f16 contractions keep the FMA path on every target.
// DOT-LABEL: func @matmul_f32
// DOT-NOT: x86vector
// DOT: vector.contract
// DOT-NOT: x86vector
func.func @matmul_f32(%a: tensor<24x64xf32>, %b: tensor<64x128xf32>, %c: tensor<24x128xf32>) -> tensor<24x128xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<24x64xf32>, tensor<64x128xf32>) outs(%c : tensor<24x128xf32>) -> tensor<24x128xf32>
  return %r : tensor<24x128xf32>
}

// -----

// A Linear's weight under autocast: B^T (N x K) is the f32 -> bf16 cast of
// an f32 weight. The VNNI pack reads the f32 weight in blocks of 8 rows x 8
// pairs, rounds each block (the cast's arith.truncf), transposes it as
// 8 x 8 four-byte pairs and writes it to the panels: no bf16 copy of the
// weight is made, the cast is gone.
// DOT-LABEL: func @linear_cast_weight
// DOT-NOT: linalg.generic
// DOT: %[[W:.*]] = tensor.expand_shape %arg1 {{.*}} into tensor<2x64x32x2xf32>
// DOT: scf.for
// DOT: scf.for %{{.*}} = %c0 to %c32 step %c8
// DOT: scf.for %{{.*}} = %c0 to %c64 step %c8
// DOT: vector.transfer_read %[[W]]{{.*}} : tensor<2x64x32x2xf32>, vector<8x8x2xf32>
// DOT-NEXT: vector.shape_cast %{{.*}} : vector<8x8x2xf32> to vector<8x16xf32>
// DOT-NEXT: arith.truncf %{{.*}} : vector<8x16xf32> to vector<8x16xbf16>
// DOT-NEXT: vector.bitcast %{{.*}} : vector<8x16xbf16> to vector<8x8xi32>
// DOT-NEXT: vector.transpose %{{.*}}, [1, 0] : vector<8x8xi32> to vector<8x8xi32>
// DOT-NEXT: vector.bitcast %{{.*}} : vector<8x8xi32> to vector<8x16xbf16>
// DOT-NEXT: vector.shape_cast %{{.*}} : vector<8x16xbf16> to vector<8x8x2xbf16>
// DOT-NEXT: vector.transfer_write {{.*}} : vector<8x8x2xbf16>, tensor<2x32x64x2xbf16>
// DOT-NOT: linalg.transpose
// DOT: x86vector.avx512.dot
func.func @linear_cast_weight(%a: tensor<24x64xbf16>, %w: tensor<128x64xf32>) -> tensor<24x128xf32> {
  %e = tensor.empty() : tensor<128x64xbf16>
  %wb = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<128x64xf32>) outs(%e : tensor<128x64xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<128x64xbf16>
  %z = arith.constant 0.0 : f32
  %c0 = tensor.empty() : tensor<24x128xf32>
  %c = linalg.fill ins(%z : f32) outs(%c0 : tensor<24x128xf32>) -> tensor<24x128xf32>
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%a, %wb : tensor<24x64xbf16>, tensor<128x64xbf16>) outs(%c : tensor<24x128xf32>) -> tensor<24x128xf32>
  return %r : tensor<24x128xf32>
}

// -----

// The same cast weight read by both packs of a training step (x @ W^T in
// the forward, dY @ W in the backward): each pack reads the f32 weight and
// rounds it, the cast has no reader left and is gone. The plain B's pack
// rounds the two k rows of a pair before interleaving them.
// DOT-LABEL: func @cast_weight_two_packs
// DOT-NOT: linalg.generic
// DOT: vector.transfer_read {{.*}} : tensor<2x64x32x2xf32>, vector<8x8x2xf32>
// DOT: arith.truncf %{{.*}} : vector<8x16xf32> to vector<8x16xbf16>
// DOT: vector.transfer_read {{.*}} : tensor<64x2x1x64xf32>, vector<2x32xf32>
// DOT-NEXT: arith.truncf %{{.*}} : vector<2x32xf32> to vector<2x32xbf16>
// DOT-NEXT: vector.transpose %{{.*}}, [1, 0] : vector<2x32xbf16> to vector<32x2xbf16>
// DOT-NOT: linalg.transpose
func.func @cast_weight_two_packs(%a: tensor<24x64xbf16>, %dy: tensor<24x128xbf16>, %w: tensor<128x64xf32>) -> (tensor<24x128xf32>, tensor<24x64xf32>) {
  %e = tensor.empty() : tensor<128x64xbf16>
  %wb = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<128x64xf32>) outs(%e : tensor<128x64xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<128x64xbf16>
  %z = arith.constant 0.0 : f32
  %c0 = tensor.empty() : tensor<24x128xf32>
  %c = linalg.fill ins(%z : f32) outs(%c0 : tensor<24x128xf32>) -> tensor<24x128xf32>
  %y = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%a, %wb : tensor<24x64xbf16>, tensor<128x64xbf16>) outs(%c : tensor<24x128xf32>) -> tensor<24x128xf32>
  %d0 = tensor.empty() : tensor<24x64xf32>
  %d = linalg.fill ins(%z : f32) outs(%d0 : tensor<24x64xf32>) -> tensor<24x64xf32>
  %dx = linalg.matmul ins(%dy, %wb : tensor<24x128xbf16>, tensor<128x64xbf16>) outs(%d : tensor<24x64xf32>) -> tensor<24x64xf32>
  return %y, %dx : tensor<24x128xf32>, tensor<24x64xf32>
}
