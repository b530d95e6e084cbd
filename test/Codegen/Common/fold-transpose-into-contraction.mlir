// RUN: amp-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(amp-fold-transpose-into-contraction))" | FileCheck %s

// A Linear's x @ W^T: the transposed weight is read through B's map.
// CHECK-DAG: #[[$A:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$BT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @linear
// CHECK-SAME: (%[[X:.*]]: tensor<256x512xf32>, %[[W:.*]]: tensor<1024x512xf32>
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matmul indexing_maps = [#[[$A]], #[[$BT]], #[[$C]]] ins(%[[X]], %[[W]] : tensor<256x512xf32>, tensor<1024x512xf32>)
func.func @linear(%x: tensor<256x512xf32>, %w: tensor<1024x512xf32>) -> tensor<256x1024xf32> {
  %e = tensor.empty() : tensor<512x1024xf32>
  %t = linalg.transpose ins(%w : tensor<1024x512xf32>) outs(%e : tensor<512x1024xf32>) permutation = [1, 0]
  %c = tensor.empty() : tensor<256x1024xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%c : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  %m = linalg.matmul ins(%x, %t : tensor<256x512xf32>, tensor<512x1024xf32>) outs(%f : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  return %m : tensor<256x1024xf32>
}

// -----

// The weight gradient dY^T @ X (A transposed), and both operands
// transposed; the transpose with another user stays for it.
// CHECK-DAG: #[[$AT:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[$B:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[$BT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$C:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @weight_gradient
// CHECK-SAME: (%[[DY:.*]]: tensor<256x1024xf32>, %[[X:.*]]: tensor<256x512xf32>, %[[Y:.*]]: tensor<512x256xf32>
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[DY]]
// CHECK: linalg.matmul indexing_maps = [#[[$AT]], #[[$B]], #[[$C]]] ins(%[[DY]], %[[X]] : tensor<256x1024xf32>, tensor<256x512xf32>)
// CHECK: linalg.matmul indexing_maps = [#[[$AT]], #[[$BT]], #[[$C]]] ins(%[[DY]], %[[Y]] : tensor<256x1024xf32>, tensor<512x256xf32>)
// CHECK: return {{.*}}, %[[T]]
func.func @weight_gradient(%dy: tensor<256x1024xf32>, %x: tensor<256x512xf32>, %y: tensor<512x256xf32>) -> (tensor<1024x512xf32>, tensor<1024x512xf32>, tensor<1024x256xf32>) {
  %e = tensor.empty() : tensor<1024x256xf32>
  %t = linalg.transpose ins(%dy : tensor<256x1024xf32>) outs(%e : tensor<1024x256xf32>) permutation = [1, 0]
  %c = tensor.empty() : tensor<1024x512xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%c : tensor<1024x512xf32>) -> tensor<1024x512xf32>
  %m = linalg.matmul ins(%t, %x : tensor<1024x256xf32>, tensor<256x512xf32>) outs(%f : tensor<1024x512xf32>) -> tensor<1024x512xf32>
  %e2 = tensor.empty() : tensor<256x512xf32>
  %ty = linalg.transpose ins(%y : tensor<512x256xf32>) outs(%e2 : tensor<256x512xf32>) permutation = [1, 0]
  %m2 = linalg.matmul ins(%t, %ty : tensor<1024x256xf32>, tensor<256x512xf32>) outs(%f : tensor<1024x512xf32>) -> tensor<1024x512xf32>
  return %m, %m2, %t : tensor<1024x512xf32>, tensor<1024x512xf32>, tensor<1024x256xf32>
}

// -----

// Autocast's cast of the weight, then the transpose: the cast stays (one
// pass over the weight, in its order), the transpose goes into B's map;
// bf16 operands with an f32 accumulator as autocast leaves them.
// CHECK-DAG: #[[$BT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @cast_then_transpose
// CHECK: %[[WB:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<1024x512xf32>) outs(%{{.*}} : tensor<1024x512xbf16>)
// CHECK: arith.truncf
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matmul indexing_maps = [#{{.*}}, #[[$BT]], #{{.*}}] ins(%{{.*}}, %[[WB]] : tensor<256x512xbf16>, tensor<1024x512xbf16>) outs(%{{.*}} : tensor<256x1024xf32>)
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @cast_then_transpose(%x: tensor<256x512xbf16>, %w: tensor<1024x512xf32>) -> tensor<256x1024xf32> {
  %eb = tensor.empty() : tensor<1024x512xbf16>
  %wb = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<1024x512xf32>) outs(%eb : tensor<1024x512xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<1024x512xbf16>
  %e = tensor.empty() : tensor<512x1024xbf16>
  %t = linalg.transpose ins(%wb : tensor<1024x512xbf16>) outs(%e : tensor<512x1024xbf16>) permutation = [1, 0]
  %c = tensor.empty() : tensor<256x1024xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%c : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  %m = linalg.matmul ins(%x, %t : tensor<256x512xbf16>, tensor<512x1024xbf16>) outs(%f : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  return %m : tensor<256x1024xf32>
}

// -----

// A cast and a transpose fused into one generic: split into the cast in
// the weight's order and the fold.
// CHECK-DAG: #[[$ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$BT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @cast_and_transpose_fused
// CHECK: %[[WB:.*]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]], {{.*}} ins(%{{.*}} : tensor<1024x512xf32>) outs(%{{.*}} : tensor<1024x512xbf16>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.truncf
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matmul indexing_maps = [#{{.*}}, #[[$BT]], #{{.*}}] ins(%{{.*}}, %[[WB]] : tensor<256x512xbf16>, tensor<1024x512xbf16>)
#tr = affine_map<(d0, d1) -> (d1, d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @cast_and_transpose_fused(%x: tensor<256x512xbf16>, %w: tensor<1024x512xf32>) -> tensor<256x1024xf32> {
  %e = tensor.empty() : tensor<512x1024xbf16>
  %t = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<1024x512xf32>) outs(%e : tensor<512x1024xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %c = arith.truncf %in : f32 to bf16
    linalg.yield %c : bf16
  } -> tensor<512x1024xbf16>
  %c = tensor.empty() : tensor<256x1024xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%c : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  %m = linalg.matmul ins(%x, %t : tensor<256x512xbf16>, tensor<512x1024xbf16>) outs(%f : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  return %m : tensor<256x1024xf32>
}

// -----

// A converting permutation with another user stays (splitting it would
// add a pass).
// CHECK-LABEL: func.func @cast_and_transpose_shared
// CHECK: %[[T:.*]] = linalg.generic
// CHECK: linalg.matmul ins(%{{.*}}, %[[T]] :
#tr = affine_map<(d0, d1) -> (d1, d0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @cast_and_transpose_shared(%x: tensor<256x512xbf16>, %w: tensor<1024x512xf32>) -> (tensor<256x1024xf32>, tensor<512x1024xbf16>) {
  %e = tensor.empty() : tensor<512x1024xbf16>
  %t = linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<1024x512xf32>) outs(%e : tensor<512x1024xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %c = arith.truncf %in : f32 to bf16
    linalg.yield %c : bf16
  } -> tensor<512x1024xbf16>
  %c = tensor.empty() : tensor<256x1024xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%c : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  %m = linalg.matmul ins(%x, %t : tensor<256x512xbf16>, tensor<512x1024xbf16>) outs(%f : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  return %m, %t : tensor<256x1024xf32>, tensor<512x1024xbf16>
}

// -----

// Attention's backward: batch matmuls with a transpose of the inner two
// dimensions fold; a transpose that moves the batch dimension does not
// (batch_matmul wants its batch first).
// CHECK-DAG: #[[$AT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>
// CHECK-DAG: #[[$BT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-LABEL: func.func @batch
// CHECK-SAME: (%[[P:.*]]: tensor<64x64x64xf32>, %[[V:.*]]: tensor<64x64x16xf32>, %[[Q:.*]]: tensor<64x64x16xf32>
// CHECK: linalg.batch_matmul indexing_maps = [#[[$AT]], #{{.*}}, #{{.*}}] ins(%[[P]], %[[Q]] :
// CHECK: linalg.batch_matmul indexing_maps = [#{{.*}}, #[[$BT]], #{{.*}}] ins(%[[Q]], %[[V]] :
// CHECK: %[[S:.*]] = linalg.transpose ins(%[[Q]] : tensor<64x64x16xf32>) {{.*}} permutation = [1, 0, 2]
// CHECK: linalg.batch_matmul indexing_maps = [#{{.*}}, #[[$BT]], #{{.*}}] ins(%[[S]], %[[V]] :
func.func @batch(%p: tensor<64x64x64xf32>, %v: tensor<64x64x16xf32>, %q: tensor<64x64x16xf32>) -> (tensor<64x64x16xf32>, tensor<64x64x64xf32>, tensor<64x64x64xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<64x64x64xf32>
  %pt = linalg.transpose ins(%p : tensor<64x64x64xf32>) outs(%e : tensor<64x64x64xf32>) permutation = [0, 2, 1]
  %c = tensor.empty() : tensor<64x64x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%c : tensor<64x64x16xf32>) -> tensor<64x64x16xf32>
  %m = linalg.batch_matmul ins(%pt, %q : tensor<64x64x64xf32>, tensor<64x64x16xf32>) outs(%f : tensor<64x64x16xf32>) -> tensor<64x64x16xf32>
  %e2 = tensor.empty() : tensor<64x16x64xf32>
  %vt = linalg.transpose ins(%v : tensor<64x64x16xf32>) outs(%e2 : tensor<64x16x64xf32>) permutation = [0, 2, 1]
  %c2 = tensor.empty() : tensor<64x64x64xf32>
  %f2 = linalg.fill ins(%z : f32) outs(%c2 : tensor<64x64x64xf32>) -> tensor<64x64x64xf32>
  %m2 = linalg.batch_matmul ins(%q, %vt : tensor<64x64x16xf32>, tensor<64x16x64xf32>) outs(%f2 : tensor<64x64x64xf32>) -> tensor<64x64x64xf32>
  %e3 = tensor.empty() : tensor<64x64x16xf32>
  %qs = linalg.transpose ins(%q : tensor<64x64x16xf32>) outs(%e3 : tensor<64x64x16xf32>) permutation = [1, 0, 2]
  %m3 = linalg.batch_matmul ins(%qs, %vt : tensor<64x64x16xf32>, tensor<64x16x64xf32>) outs(%f2 : tensor<64x64x64xf32>) -> tensor<64x64x64xf32>
  return %m, %m2, %m3 : tensor<64x64x16xf32>, tensor<64x64x64xf32>, tensor<64x64x64xf32>
}

// -----

// A contraction generic takes any permutation; a permutation generic that
// only copies folds like linalg.transpose.
// CHECK-DAG: #[[$A:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d0, d3)>
// CHECK-LABEL: func.func @generic
// CHECK-SAME: (%[[A:.*]]: tensor<8x4x16xf32>
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic {indexing_maps = [#[[$A]], {{.*}} ins(%[[A]], %{{.*}} : tensor<8x4x16xf32>, tensor<4x16x32xf32>)
#perm = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#a = affine_map<(b, m, n, k) -> (b, m, k)>
#b = affine_map<(b, m, n, k) -> (b, k, n)>
#c = affine_map<(b, m, n, k) -> (b, m, n)>
func.func @generic(%a: tensor<8x4x16xf32>, %b: tensor<4x16x32xf32>, %c: tensor<4x8x32xf32>) -> tensor<4x8x32xf32> {
  %e = tensor.empty() : tensor<4x8x16xf32>
  %at = linalg.generic {indexing_maps = [#perm, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%a : tensor<8x4x16xf32>) outs(%e : tensor<4x8x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x8x16xf32>
  %m = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%at, %b : tensor<4x8x16xf32>, tensor<4x16x32xf32>) outs(%c : tensor<4x8x32xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x8x32xf32>
  return %m : tensor<4x8x32xf32>
}

// -----

// Not a contraction: an elementwise reader keeps its transpose.
// CHECK-LABEL: func.func @not_contraction
// CHECK: linalg.transpose
// CHECK: linalg.add
func.func @not_contraction(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %e = tensor.empty() : tensor<8x4xf32>
  %t = linalg.transpose ins(%a : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>) permutation = [1, 0]
  %r = linalg.add ins(%t, %b : tensor<8x4xf32>, tensor<8x4xf32>) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  return %r : tensor<8x4xf32>
}
