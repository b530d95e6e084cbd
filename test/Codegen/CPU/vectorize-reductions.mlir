// RUN: amp-opt %s --split-input-file --amp-cpu-vectorize-reductions --canonicalize | FileCheck %s

// Softmax's row sum into a keepdim result (output map with a constant 0):
// one row per step, the row reduced as one vector.
// CHECK-LABEL: func @row_sum_keepdim
// CHECK: scf.for
// CHECK: scf.for
// CHECK: scf.for
// CHECK: vector.transfer_read {{.*}} : tensor<128xf32>, vector<128xf32>
// CHECK: vector.reduction <add>, %{{.*}}, %{{.*}} : vector<128xf32> into f32
// CHECK-NOT: linalg.generic
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#r0 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
func.func @row_sum_keepdim(%x: tensor<4x4x128x128xf32>) -> tensor<4x4x128x1xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4x128x1xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x4x128x1xf32>) -> tensor<4x4x128x1xf32>
  %s = linalg.generic {indexing_maps = [#id, #r0], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x : tensor<4x4x128x128xf32>) outs(%f : tensor<4x4x128x1xf32>) {
  ^bb0(%in: f32, %o: f32):
    %a = arith.addf %in, %o : f32
    linalg.yield %a : f32
  } -> tensor<4x4x128x1xf32>
  return %s : tensor<4x4x128x1xf32>
}

// -----

// A row max with a unit loop (torch-mlir's expanded 4x4x128x1x128 form).
// CHECK-LABEL: func @row_max_unit_loop
// CHECK: vector.reduction <maximumf>, %{{.*}}, %{{.*}} : vector<128xf32> into f32
// CHECK-NOT: linalg.generic
#id5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#r5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
func.func @row_max_unit_loop(%x: tensor<2x4x128x1x128xf32>) -> tensor<2x4x128x1xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<2x4x128x1xf32>
  %f = linalg.fill ins(%ninf : f32) outs(%e : tensor<2x4x128x1xf32>) -> tensor<2x4x128x1xf32>
  %m = linalg.generic {indexing_maps = [#id5, #r5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%x : tensor<2x4x128x1x128xf32>) outs(%f : tensor<2x4x128x1xf32>) {
  ^bb0(%in: f32, %o: f32):
    %a = arith.maximumf %in, %o : f32
    linalg.yield %a : f32
  } -> tensor<2x4x128x1xf32>
  return %m : tensor<2x4x128x1xf32>
}

// -----

// layer_norm's variance: an f64 sum of squared differences from a mean
// broadcast along the row; a row of 1000 is reduced in chunks of 500.
// CHECK-LABEL: func @variance_chunks
// CHECK: scf.for
// CHECK: scf.for %{{.*}} = %c0 to %c1000 step %c500
// CHECK: vector.transfer_read {{.*}} : tensor<500xf64>, vector<500xf64>
// CHECK: vector.transfer_read {{.*}}permutation_map = {{.*}} : tensor<f64>, vector<500xf64>
// CHECK: vector.reduction <add>, %{{.*}}, %{{.*}} : vector<500xf64> into f64
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @variance_chunks(%x: tensor<6x1000xf64>, %mean: tensor<6xf64>) -> tensor<6xf64> {
  %z = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<6xf64>
  %f = linalg.fill ins(%z : f64) outs(%e : tensor<6xf64>) -> tensor<6xf64>
  %v = linalg.generic {indexing_maps = [#id2, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %mean : tensor<6x1000xf64>, tensor<6xf64>) outs(%f : tensor<6xf64>) {
  ^bb0(%in: f64, %m: f64, %o: f64):
    %d = arith.subf %in, %m : f64
    %sq = arith.mulf %d, %d : f64
    %a = arith.addf %sq, %o : f64
    linalg.yield %a : f64
  } -> tensor<6xf64>
  return %v : tensor<6xf64>
}

// -----

// Left alone: a column sum (LLVM vectorizes its parallel inner loop), a row
// of 7, a reduction inside a loop, a contraction.
// CHECK-LABEL: func @left_alone
// CHECK-NOT: vector.
// CHECK-COUNT-2: linalg.generic
// CHECK: scf.for
// CHECK: linalg.generic
// CHECK: linalg.matmul
#id2b = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
#rowb = affine_map<(d0, d1) -> (d0)>
func.func @left_alone(%x: tensor<64x32xf32>, %y: tensor<64x7xf32>, %a: tensor<16x16xf32>)
    -> (tensor<32xf32>, tensor<64xf32>, tensor<64xf32>, tensor<16x16xf32>) {
  %z = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %e32 = tensor.empty() : tensor<32xf32>
  %f32 = linalg.fill ins(%z : f32) outs(%e32 : tensor<32xf32>) -> tensor<32xf32>
  %cols = linalg.generic {indexing_maps = [#tr, #rowb], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<64x32xf32>) outs(%f32 : tensor<32xf32>) {
  ^bb0(%in: f32, %o: f32):
    %s = arith.addf %in, %o : f32
    linalg.yield %s : f32
  } -> tensor<32xf32>
  %e64 = tensor.empty() : tensor<64xf32>
  %f64 = linalg.fill ins(%z : f32) outs(%e64 : tensor<64xf32>) -> tensor<64xf32>
  %short = linalg.generic {indexing_maps = [#id2b, #rowb], iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<64x7xf32>) outs(%f64 : tensor<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %s = arith.addf %in, %o : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %looped = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %f64) -> tensor<64xf32> {
    %r = linalg.generic {indexing_maps = [#id2b, #rowb], iterator_types = ["parallel", "reduction"]}
        ins(%x : tensor<64x32xf32>) outs(%acc : tensor<64xf32>) {
    ^bb0(%in: f32, %o: f32):
      %s = arith.addf %in, %o : f32
      linalg.yield %s : f32
    } -> tensor<64xf32>
    scf.yield %r : tensor<64xf32>
  }
  %e16 = tensor.empty() : tensor<16x16xf32>
  %f16 = linalg.fill ins(%z : f32) outs(%e16 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %mm = linalg.matmul ins(%a, %a : tensor<16x16xf32>, tensor<16x16xf32>) outs(%f16 : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %cols, %short, %looped, %mm : tensor<32xf32>, tensor<64xf32>, tensor<64xf32>, tensor<16x16xf32>
}
