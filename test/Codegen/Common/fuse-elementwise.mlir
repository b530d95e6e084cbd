// RUN: amp-opt %s -split-input-file --amp-fuse-elementwise | FileCheck %s

// LayerNorm's normalisation feeding a Linear (as torch-mlir exports it): the
// normalisation is not fused into the matmul (it would run once per
// multiply-add), and the collapse_shape in between is not propagated
// through the matmul, which stays a 2-D linalg.matmul. The per-row
// statistic (4x128x1, read by every element of the row through a broadcast)
// stays its own op too; the elementwise chain on the full tensor is one op.
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
// CHECK-LABEL: func @layernorm_linear
// CHECK: %[[RSTD:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<4x128x1xf32>)
// CHECK: math.rsqrt
// CHECK: %[[NORM:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[RSTD]] : tensor<4x128x256xf32>, tensor<4x128x1xf32>)
// CHECK: arith.subf
// CHECK-NEXT: arith.mulf
// CHECK-NOT: math.rsqrt
// CHECK: %[[A:.*]] = tensor.collapse_shape %[[NORM]]
// CHECK: linalg.matmul ins(%[[A]], %{{.*}} : tensor<512x256xf32>, tensor<256x1024xf32>)
func.func @layernorm_linear(%x: tensor<4x128x256xf32>, %var: tensor<4x128x1xf32>,
                            %w: tensor<256x1024xf32>) -> tensor<512x1024xf32> {
  %eps = arith.constant 1.0e-5 : f32
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<4x128x1xf32>
  %rstd = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%var : tensor<4x128x1xf32>) outs(%e1 : tensor<4x128x1xf32>) {
  ^bb0(%v: f32, %o: f32):
    %a = arith.addf %v, %eps : f32
    %r = math.rsqrt %a : f32
    linalg.yield %r : f32
  } -> tensor<4x128x1xf32>
  %e = tensor.empty() : tensor<4x128x256xf32>
  %c = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<4x128x256xf32>) outs(%e : tensor<4x128x256xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.subf %v, %eps : f32
    linalg.yield %s : f32
  } -> tensor<4x128x256xf32>
  %n = linalg.generic {indexing_maps = [#id3, #row, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%c, %rstd : tensor<4x128x256xf32>, tensor<4x128x1xf32>) outs(%e : tensor<4x128x256xf32>) {
  ^bb0(%v: f32, %r: f32, %o: f32):
    %m = arith.mulf %v, %r : f32
    linalg.yield %m : f32
  } -> tensor<4x128x256xf32>
  %a = tensor.collapse_shape %n [[0, 1], [2]] : tensor<4x128x256xf32> into tensor<512x256xf32>
  %ce = tensor.empty() : tensor<512x1024xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%ce : tensor<512x1024xf32>) -> tensor<512x1024xf32>
  %y = linalg.matmul ins(%a, %w : tensor<512x256xf32>, tensor<256x1024xf32>) outs(%acc : tensor<512x1024xf32>) -> tensor<512x1024xf32>
  return %y : tensor<512x1024xf32>
}

// -----

// A producer read elementwise by a reduction is fused into it (each element
// computed once): the sum of squares reads x once.
#id = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func @square_into_sum
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<8x64xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
func.func @square_into_sum(%x: tensor<8x64xf32>) -> tensor<8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x64xf32>
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x64xf32>) outs(%e : tensor<8x64xf32>) {
  ^bb0(%v: f32, %o: f32):
    %m = arith.mulf %v, %v : f32
    linalg.yield %m : f32
  } -> tensor<8x64xf32>
  %e8 = tensor.empty() : tensor<8xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e8 : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "reduction"]}
      ins(%sq : tensor<8x64xf32>) outs(%acc : tensor<8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %a = arith.addf %v, %o : f32
    linalg.yield %a : f32
  } -> tensor<8xf32>
  return %s : tensor<8xf32>
}
