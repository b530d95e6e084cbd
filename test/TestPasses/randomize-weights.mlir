// RUN: amp-opt %s --amp-randomize-weights | FileCheck %s
// RUN: amp-opt %s --amp-randomize-weights=seed=7 | FileCheck %s --check-prefix=SEED
// Deterministic: the same seed gives the same module.
// RUN: amp-opt %s --amp-randomize-weights > %t.a && amp-opt %s --amp-randomize-weights > %t.b && diff %t.a %t.b

// Rank >= 2 splat weights get He-uniform values in [-sqrt(6/fan_in),
// sqrt(6/fan_in)] (fan_in 4*3*3 = 36: bound 0.408); biases (rank 1) and
// non-splat constants keep theirs; both copies of a function get the same
// values.
// CHECK-LABEL: func @a
// CHECK: arith.constant dense<"0x[[HEX:[0-9A-F]+]]"> : tensor<8x4x3x3xf32>
// CHECK: arith.constant dense<1.000000e-01> : tensor<8xf32>
// CHECK: arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK: "tosa.const"() <{values = dense<{{\[\[}}{{-?[0-9]}}
// CHECK-LABEL: func @b
// CHECK: arith.constant dense<"0x[[HEX]]"> : tensor<8x4x3x3xf32>
// SEED-LABEL: func @a
// SEED-NOT: dense<1.000000e+00> : tensor<8x4x3x3xf32>
func.func @a() -> (tensor<8x4x3x3xf32>, tensor<8xf32>, tensor<2xf32>, tensor<4x4xbf16>) {
  %w = arith.constant dense<1.0> : tensor<8x4x3x3xf32>
  %b = arith.constant dense<0.1> : tensor<8xf32>
  %n = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %t = "tosa.const"() <{values = dense<0.5> : tensor<4x4xbf16>}> : () -> tensor<4x4xbf16>
  return %w, %b, %n, %t : tensor<8x4x3x3xf32>, tensor<8xf32>, tensor<2xf32>, tensor<4x4xbf16>
}

func.func @b() -> tensor<8x4x3x3xf32> {
  %w = arith.constant dense<1.0> : tensor<8x4x3x3xf32>
  return %w : tensor<8x4x3x3xf32>
}
