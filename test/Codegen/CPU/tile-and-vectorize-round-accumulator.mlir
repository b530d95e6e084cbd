// RUN: amp-opt %s -split-input-file --amp-cpu-tile-and-vectorize="parallel=true cpu-features=avx512bf16" | FileCheck %s --check-prefix=DOT
// RUN: amp-opt %s -split-input-file --amp-cpu-tile-and-vectorize="parallel=true cpu-features=generic" | FileCheck %s --check-prefix=FMA
// RUN: amp-opt %s -split-input-file --amp-cpu-tile-and-vectorize="parallel=true cpu-features=avx512bf16 round-accumulator-tiles=false" | FileCheck %s --check-prefix=OFF

// A bf16 matmul with an f32 accumulator whose reader rounds it to bf16
// first (autocast's bias add): each cache tile of the scf.forall
// accumulates in a tile-sized f32 tensor of its own, filled with zeros, and
// is rounded to bf16 as it is inserted; the shared output, the forall and
// the collapse of C's view are bf16, and the reader's truncf is gone.
// DOT-LABEL: func @round_per_tile
// DOT: %[[OUT:.*]] = tensor.empty() : tensor<256x16x64xbf16>
// DOT: scf.forall {{.*}} shared_outs(%[[S:.*]] = %[[OUT]]) -> (tensor<256x16x64xbf16>)
// DOT: %[[ACC:.*]] = tensor.empty() : tensor<128x2x64xf32>
// DOT: linalg.fill ins(%{{.*}} : f32) outs(%[[ACC]] : tensor<128x2x64xf32>)
// DOT: x86vector.avx512.dot
// The rounded tile is written into its place of the shared output (the
// slice is the generic's destination: in place after bufferization, no
// tile-sized temporary copied into a strided subview).
// DOT: %[[PLACE:.*]] = tensor.extract_slice %[[S]][%[[I:.*]], %[[J:.*]], 0] [128, 2, 64] [1, 1, 1] : tensor<256x16x64xbf16> to tensor<128x2x64xbf16>
// DOT: %[[R:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<128x2x64xf32>) outs(%[[PLACE]] : tensor<128x2x64xbf16>)
// DOT: arith.truncf %{{.*}} : f32 to bf16
// DOT: tensor.parallel_insert_slice %[[R]] into %[[S]][%[[I]], %[[J]], 0] [128, 2, 64] [1, 1, 1] : tensor<128x2x64xbf16> into tensor<256x16x64xbf16>
// DOT: tensor.collapse_shape %{{.*}} : tensor<256x16x64xbf16> into tensor<256x1024xbf16>
// DOT: linalg.generic
// DOT-NEXT: ^bb0(%{{.*}}: bf16, %{{.*}}: bf16, %{{.*}}: bf16):
// DOT-NOT: arith.truncf
// DOT: arith.addf %{{.*}}, %{{.*}} : bf16
// The FMA path (B packed into 16-wide f32 panels) rounds its tiles too.
// FMA-LABEL: func @round_per_tile
// FMA: scf.forall {{.*}} -> (tensor<256x64x16xbf16>)
// FMA: tensor.empty() : tensor<128x8x16xf32>
// FMA: vector.contract
// FMA: tensor.parallel_insert_slice %{{.*}} : tensor<128x8x16xbf16> into tensor<256x64x16xbf16>
// OFF-LABEL: func @round_per_tile
// OFF: scf.forall {{.*}} -> (tensor<256x16x64xf32>)
// OFF: arith.truncf %{{.*}} : f32 to bf16
func.func @round_per_tile(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>, %bias: tensor<1024xbf16>) -> tensor<256x1024xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x1024xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  %m = linalg.matmul ins(%a, %b : tensor<256x512xbf16>, tensor<512x1024xbf16>) outs(%c : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  %o = tensor.empty() : tensor<256x1024xbf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m, %bias : tensor<256x1024xf32>, tensor<1024xbf16>) outs(%o : tensor<256x1024xbf16>) {
  ^bb0(%in: f32, %in1: bf16, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    %s = arith.addf %t, %in1 : bf16
    linalg.yield %s : bf16
  } -> tensor<256x1024xbf16>
  return %r : tensor<256x1024xbf16>
}

// -----

// A reader that needs the f32 value (here: it also adds it in f32) keeps
// the full f32 accumulator.
// DOT-LABEL: func @f32_reader
// DOT: scf.forall {{.*}} -> (tensor<256x16x64xf32>)
// DOT-NOT: tensor<128x2x64xbf16>
// DOT: arith.truncf %{{.*}} : f32 to bf16
func.func @f32_reader(%a: tensor<256x512xbf16>, %b: tensor<512x1024xbf16>) -> tensor<256x1024xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x1024xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  %m = linalg.matmul ins(%a, %b : tensor<256x512xbf16>, tensor<512x1024xbf16>) outs(%c : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  %o = tensor.empty() : tensor<256x1024xbf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<256x1024xf32>) outs(%o : tensor<256x1024xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %d = arith.addf %in, %in : f32
    %t = arith.truncf %d : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<256x1024xbf16>
  return %r : tensor<256x1024xbf16>
}

// -----

// The reader behind a reshape (amp-fold-batch-broadcast's rows of a batch,
// expanded back to 16 x 64): the reshapes become bf16 as well.
// DOT-LABEL: func @reader_behind_reshape
// DOT: scf.forall {{.*}} -> (tensor<1024x4x64xbf16>)
// DOT: tensor.collapse_shape %{{.*}} : tensor<1024x4x64xbf16> into tensor<1024x256xbf16>
// DOT: tensor.expand_shape %{{.*}} : tensor<1024x256xbf16> into tensor<16x64x256xbf16>
// DOT: ^bb0(%{{.*}}: bf16, %{{.*}}: bf16):
// DOT-NOT: arith.truncf
// DOT: linalg.yield
func.func @reader_behind_reshape(%a: tensor<1024x64xbf16>, %b: tensor<64x256xbf16>) -> tensor<16x64x256xbf16> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x256xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1024x256xf32>) -> tensor<1024x256xf32>
  %m = linalg.matmul ins(%a, %b : tensor<1024x64xbf16>, tensor<64x256xbf16>) outs(%c : tensor<1024x256xf32>) -> tensor<1024x256xf32>
  %x = tensor.expand_shape %m [[0, 1], [2]] output_shape [16, 64, 256] : tensor<1024x256xf32> into tensor<16x64x256xf32>
  %o = tensor.empty() : tensor<16x64x256xbf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : tensor<16x64x256xf32>) outs(%o : tensor<16x64x256xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    %s = arith.mulf %t, %t : bf16
    linalg.yield %s : bf16
  } -> tensor<16x64x256xbf16>
  return %r : tensor<16x64x256xbf16>
}
