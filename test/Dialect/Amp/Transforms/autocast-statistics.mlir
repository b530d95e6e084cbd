// The pass statistics: ops per compute type and the weight-cast cache.
// RUN: amp-opt %s --amp-autocast -mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s

// CHECK: amp pass statistics report
// CHECK: 'amp-autocast'
// CHECK-NEXT: (S) {{ *}}0 ops-f16
// CHECK-NEXT: (S) {{ *}}4 ops-bf16
// CHECK-NEXT: (S) {{ *}}0 ops-f32
// CHECK-NEXT: (S) {{ *}}7 casts-inserted
// CHECK-NEXT: (S) {{ *}}1 casts-cached
// CHECK-NEXT: (S) {{ *}}1 casts-hoisted
// CHECK-NEXT: (S) {{ *}}0 constants-narrowed
// CHECK-NEXT: (S) {{ *}}0 kept-f32

// Cached: %w cast once at region entry (hoisted out of the loop), served
// from the cache for its second use; the loop-carried %acc is cast in the
// loop and the yielded bf16 value back to f32 (3 casts).
func.func @cache_hoist(%x: tensor<2x2xf32>, %w: tensor<2x2xf32>, %n: index) -> tensor<2x2xf32>
    attributes {amp.autocast = #amp.autocast<device_type = cpu>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<2x2xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> tensor<2x2xf32> {
    %a = linalg.matmul ins(%acc, %w : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
    %b = linalg.matmul ins(%a, %w : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
    scf.yield %b : tensor<2x2xf32>
  }
  return %r : tensor<2x2xf32>
}

// Without the cache: three casts of %x for three uses, one for the result.
func.func @no_cache(%x: tensor<2x2xf32>) -> tensor<2x2xf32>
    attributes {amp.autocast = #amp.autocast<device_type = cpu, cache_enabled = false>} {
  %e = tensor.empty() : tensor<2x2xf32>
  %m = linalg.matmul ins(%x, %x : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %n = linalg.matmul ins(%m, %x : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %n : tensor<2x2xf32>
}
