// RUN: amp-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(amp-sink-argument-casts))" | FileCheck %s

// The casts of two weights that autocast put at the start of the region
// (its cast cache) move down to right before their first users: the
// second weight's bf16 copy is made after the first matmul (the input, an
// argument too, is cast right before the first). A cast of an internal
// value stays where it is; a cast first used inside a loop stays before
// the loop.
// CHECK-LABEL: func @weights
// CHECK-SAME: (%[[W0:[^:]*]]: tensor<8x8xf32>, %[[W1:[^:]*]]: tensor<8x8xf32>, %[[X:[^:]*]]: tensor<8x8xf32>
// CHECK: %[[C0:.*]] = amp.cast %[[W0]]
// CHECK-NEXT: %[[X16:.*]] = amp.cast %[[X]]
// CHECK-NEXT: %[[M0:.*]] = linalg.matmul ins(%[[X16]], %[[C0]]
// CHECK: %[[C1:.*]] = amp.cast %[[W1]]
// CHECK-NEXT: linalg.matmul ins(%[[M0]], %[[C1]]
// CHECK: %[[T:.*]] = amp.cast %{{.*}} : tensor<8x8xbf16> to tensor<8x8xf32>
func.func @weights(%w0: tensor<8x8xf32>, %w1: tensor<8x8xf32>, %x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %c0 = amp.cast %w0 : tensor<8x8xf32> to tensor<8x8xbf16>
  %c1 = amp.cast %w1 : tensor<8x8xf32> to tensor<8x8xbf16>
  %x16 = amp.cast %x : tensor<8x8xf32> to tensor<8x8xbf16>
  %e = tensor.empty() : tensor<8x8xbf16>
  %m0 = linalg.matmul ins(%x16, %c0 : tensor<8x8xbf16>, tensor<8x8xbf16>) outs(%e : tensor<8x8xbf16>) -> tensor<8x8xbf16>
  %m1 = linalg.matmul ins(%m0, %c1 : tensor<8x8xbf16>, tensor<8x8xbf16>) outs(%e : tensor<8x8xbf16>) -> tensor<8x8xbf16>
  %r = amp.cast %m1 : tensor<8x8xbf16> to tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}

// -----

// CHECK-LABEL: func @loop
// CHECK: %[[C:.*]] = amp.cast %arg0
// CHECK-NEXT: scf.for
func.func @loop(%w: tensor<8xf32>, %n: index) -> tensor<8xbf16> {
  %c = amp.cast %w : tensor<8xf32> to tensor<8xbf16>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = tensor.empty() : tensor<8xbf16>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> tensor<8xbf16> {
    %s = arith.addf %acc, %c : tensor<8xbf16>
    scf.yield %s : tensor<8xbf16>
  }
  return %r : tensor<8xbf16>
}
