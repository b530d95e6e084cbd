// RUN: amp-opt %s -split-input-file -canonicalize | FileCheck %s

// CHECK-LABEL: func @fold_identity
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @fold_identity(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = amp.cast %x : tensor<4xf32> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// f16 -> f32 is exact, so f16 -> f32 -> f16 is the input itself.
// CHECK-LABEL: func @fold_exact_round_trip
// CHECK-SAME: (%[[X:.*]]: tensor<4xf16>)
// CHECK-NEXT: return %[[X]]
func.func @fold_exact_round_trip(%x: tensor<4xf16>) -> tensor<4xf16> {
  %0 = amp.cast %x : tensor<4xf16> to tensor<4xf32>
  %1 = amp.cast %0 : tensor<4xf32> to tensor<4xf16>
  return %1 : tensor<4xf16>
}

// -----

// f32 -> f16 rounds, so f32 -> f16 -> f32 must stay.
// CHECK-LABEL: func @no_fold_rounding_round_trip
// CHECK: %[[A:.*]] = amp.cast %{{.*}} : tensor<4xf32> to tensor<4xf16>
// CHECK: %[[B:.*]] = amp.cast %[[A]] : tensor<4xf16> to tensor<4xf32>
// CHECK: return %[[B]]
func.func @no_fold_rounding_round_trip(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = amp.cast %x : tensor<4xf32> to tensor<4xf16>
  %1 = amp.cast %0 : tensor<4xf16> to tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// An exact inner cast merges into the outer one: bf16 -> f32 -> f16 is one
// bf16 -> f16 cast (the value is rounded once either way).
// CHECK-LABEL: func @fold_exact_inner
// CHECK-SAME: (%[[X:.*]]: tensor<4xbf16>)
// CHECK-NEXT: %[[C:.*]] = amp.cast %[[X]] : tensor<4xbf16> to tensor<4xf16>
// CHECK-NEXT: return %[[C]]
func.func @fold_exact_inner(%x: tensor<4xbf16>) -> tensor<4xf16> {
  %0 = amp.cast %x : tensor<4xbf16> to tensor<4xf32>
  %1 = amp.cast %0 : tensor<4xf32> to tensor<4xf16>
  return %1 : tensor<4xf16>
}

// -----

// f16 -> bf16 is not exact (either way): no fold.
// CHECK-LABEL: func @no_fold_f16_bf16
// CHECK: amp.cast %{{.*}} : f16 to bf16
// CHECK: amp.cast %{{.*}} : bf16 to f32
func.func @no_fold_f16_bf16(%x: f16) -> f32 {
  %0 = amp.cast %x : f16 to bf16
  %1 = amp.cast %0 : bf16 to f32
  return %1 : f32
}

// -----

// Case C06: f32 -> bf16 rounds to nearest, ties to even.
// 0x3FFFFFFF -> 0x4000 (carry into the exponent), 0x3F808000 -> 0x3F80 (tie,
// even is down), 0x3F818000 -> 0x3F82 (tie, even is up).
// CHECK-LABEL: func @c06_bf16_rne
// CHECK-NEXT: arith.constant dense<[2.000000e+00, 1.000000e+00, 1.015630e+00]> : tensor<3xbf16>
func.func @c06_bf16_rne() -> tensor<3xbf16> {
  %f = arith.constant dense<[0x3FFFFFFF, 0x3F808000, 0x3F818000]> : tensor<3xf32>
  %h = amp.cast %f : tensor<3xf32> to tensor<3xbf16>
  return %h : tensor<3xbf16>
}

// -----

// C06 bit-exact: the folded constant's bits (0x4000, 0x3F80, 0x3F82).
// CHECK-LABEL: func @c06_bits
// CHECK-NEXT: arith.constant dense<[16384, 16256, 16258]> : tensor<3xi16>
func.func @c06_bits() -> tensor<3xi16> {
  %f = arith.constant dense<[0x3FFFFFFF, 0x3F808000, 0x3F818000]> : tensor<3xf32>
  %h = amp.cast %f : tensor<3xf32> to tensor<3xbf16>
  %r = arith.bitcast %h : tensor<3xbf16> to tensor<3xi16>
  return %r : tensor<3xi16>
}

// -----

// Case C07: f32 -> f16 keeps subnormals. 0x33400000 (1.5 * 2^-25) -> 0x0001,
// 2^-25 (a tie between 0 and 2^-24) -> 0x0000, 1e-5 -> 0x00A8 (= 168).
// CHECK-LABEL: func @c07_f16_subnormals
// CHECK-NEXT: arith.constant dense<[1, 0, 168]> : tensor<3xi16>
func.func @c07_f16_subnormals() -> tensor<3xi16> {
  %f = arith.constant dense<[0x33400000, 0x33000000, 1.0e-05]> : tensor<3xf32>
  %h = amp.cast %f : tensor<3xf32> to tensor<3xf16>
  %r = arith.bitcast %h : tensor<3xf16> to tensor<3xi16>
  return %r : tensor<3xi16>
}

// -----

// Scalars and splats fold too; overflow gives inf as at run time.
// CHECK-LABEL: func @fold_scalar_and_splat
// CHECK-DAG: arith.constant 0x7C00 : f16
// CHECK-DAG: arith.constant dense<3.000000e+00> : tensor<2x2xbf16>
func.func @fold_scalar_and_splat() -> (f16, tensor<2x2xbf16>) {
  %s = arith.constant 70000.0 : f32
  %h = amp.cast %s : f32 to f16
  %t = arith.constant dense<3.0> : tensor<2x2xf64>
  %b = amp.cast %t : tensor<2x2xf64> to tensor<2x2xbf16>
  return %h, %b : f16, tensor<2x2xbf16>
}
