// RUN: amp-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(amp-fold-batch-broadcast))" | FileCheck %s

// torch-mlir's x @ W for a 3-D x (nn.MultiheadAttention's input
// projection): the weight copied to every batch entry, then a batch matmul.
// One matmul over the 128 x 4 rows instead; the copy goes.

#map = affine_map<(d0, d1, d2) -> (d1, d2)>
#map1 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @generic_broadcast
// CHECK-SAME: (%[[X:.*]]: tensor<128x4x256xf32>, %[[W:.*]]: tensor<256x768xf32>)
// CHECK-NOT: linalg.generic
// CHECK-NOT: linalg.batch_matmul
// CHECK: %[[FILL:.*]] = linalg.fill
// CHECK-DAG: %[[A:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<128x4x256xf32> into tensor<512x256xf32>
// CHECK-DAG: %[[C:.*]] = tensor.collapse_shape %[[FILL]] {{\[}}[0, 1], [2]] : tensor<128x4x768xf32> into tensor<512x768xf32>
// CHECK: %[[MM:.*]] = linalg.matmul ins(%[[A]], %[[W]] : tensor<512x256xf32>, tensor<256x768xf32>) outs(%[[C]] : tensor<512x768xf32>)
// CHECK: %[[R:.*]] = tensor.expand_shape %[[MM]] {{\[}}[0, 1], [2]] output_shape [128, 4, 768] : tensor<512x768xf32> into tensor<128x4x768xf32>
// CHECK: return %[[R]]
func.func @generic_broadcast(%x: tensor<128x4x256xf32>, %w: tensor<256x768xf32>) -> tensor<128x4x768xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x256x768xf32>
  %b = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w : tensor<256x768xf32>) outs(%e : tensor<128x256x768xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<128x256x768xf32>
  %e2 = tensor.empty() : tensor<128x4x768xf32>
  %f = linalg.fill ins(%cst : f32) outs(%e2 : tensor<128x4x768xf32>) -> tensor<128x4x768xf32>
  %r = linalg.batch_matmul ins(%x, %b : tensor<128x4x256xf32>, tensor<128x256x768xf32>) outs(%f : tensor<128x4x768xf32>) -> tensor<128x4x768xf32>
  return %r : tensor<128x4x768xf32>
}

// -----

// linalg.broadcast along the batch, bf16 operands with an f32 accumulator
// (what autocast leaves): the matmul keeps the element types.
// CHECK-LABEL: func.func @named_broadcast_bf16
// CHECK-NOT: linalg.broadcast
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x16xbf16>, tensor<16x32xbf16>) outs(%{{.*}} : tensor<8x32xf32>)
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [2, 4, 32]
func.func @named_broadcast_bf16(%x: tensor<2x4x16xbf16>, %w: tensor<16x32xbf16>, %c: tensor<2x4x32xf32>) -> tensor<2x4x32xf32> {
  %e = tensor.empty() : tensor<2x16x32xbf16>
  %b = linalg.broadcast ins(%w : tensor<16x32xbf16>) outs(%e : tensor<2x16x32xbf16>) dimensions = [0]
  %r = linalg.batch_matmul ins(%x, %b : tensor<2x4x16xbf16>, tensor<2x16x32xbf16>) outs(%c : tensor<2x4x32xf32>) -> tensor<2x4x32xf32>
  return %r : tensor<2x4x32xf32>
}

// -----

// The broadcast has another use: it stays for it, the matmul reads W.
// CHECK-LABEL: func.func @broadcast_other_use
// CHECK: %[[B:.*]] = linalg.broadcast
// CHECK: linalg.matmul
// CHECK: return %{{.*}}, %[[B]]
func.func @broadcast_other_use(%x: tensor<2x4x16xf32>, %w: tensor<16x32xf32>, %c: tensor<2x4x32xf32>) -> (tensor<2x4x32xf32>, tensor<2x16x32xf32>) {
  %e = tensor.empty() : tensor<2x16x32xf32>
  %b = linalg.broadcast ins(%w : tensor<16x32xf32>) outs(%e : tensor<2x16x32xf32>) dimensions = [0]
  %r = linalg.batch_matmul ins(%x, %b : tensor<2x4x16xf32>, tensor<2x16x32xf32>) outs(%c : tensor<2x4x32xf32>) -> tensor<2x4x32xf32>
  return %r, %b : tensor<2x4x32xf32>, tensor<2x16x32xf32>
}

// -----

// Not rewritten: a broadcast along another dimension, a batched B, a
// broadcast left operand, dynamic shapes.
// CHECK-LABEL: func.func @unchanged
// CHECK-COUNT-4: linalg.batch_matmul
// CHECK-NOT: linalg.matmul
func.func @unchanged(%x: tensor<2x4x16xf32>, %w: tensor<2x32xf32>, %bb: tensor<2x16x32xf32>, %a2: tensor<4x16xf32>, %c: tensor<2x4x32xf32>,
                     %xd: tensor<?x4x16xf32>, %wd: tensor<16x32xf32>, %cd: tensor<?x4x32xf32>) -> (tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<?x4x32xf32>) {
  %e = tensor.empty() : tensor<2x16x32xf32>
  %b1 = linalg.broadcast ins(%w : tensor<2x32xf32>) outs(%e : tensor<2x16x32xf32>) dimensions = [1]
  %r1 = linalg.batch_matmul ins(%x, %b1 : tensor<2x4x16xf32>, tensor<2x16x32xf32>) outs(%c : tensor<2x4x32xf32>) -> tensor<2x4x32xf32>
  %r2 = linalg.batch_matmul ins(%x, %bb : tensor<2x4x16xf32>, tensor<2x16x32xf32>) outs(%c : tensor<2x4x32xf32>) -> tensor<2x4x32xf32>
  %ea = tensor.empty() : tensor<2x4x16xf32>
  %xa = linalg.broadcast ins(%a2 : tensor<4x16xf32>) outs(%ea : tensor<2x4x16xf32>) dimensions = [0]
  %r3 = linalg.batch_matmul ins(%xa, %bb : tensor<2x4x16xf32>, tensor<2x16x32xf32>) outs(%c : tensor<2x4x32xf32>) -> tensor<2x4x32xf32>
  %c1 = arith.constant 0 : index
  %n = tensor.dim %xd, %c1 : tensor<?x4x16xf32>
  %ed = tensor.empty(%n) : tensor<?x16x32xf32>
  %bd = linalg.broadcast ins(%wd : tensor<16x32xf32>) outs(%ed : tensor<?x16x32xf32>) dimensions = [0]
  %r4 = linalg.batch_matmul ins(%xd, %bd : tensor<?x4x16xf32>, tensor<?x16x32xf32>) outs(%cd : tensor<?x4x32xf32>) -> tensor<?x4x32xf32>
  return %r1, %r2, %r3, %r4 : tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<2x4x32xf32>, tensor<?x4x32xf32>
}
