// C06 and C07: f32 -> bf16 and f32 -> f16 rounding at run time (the inputs
// are function arguments, so nothing is folded at compile time): round to
// nearest, ties to even, subnormals kept. The bit patterns are printed as
// unsigned integers.
// C06: 0x3FFFFFFF, 0x3F808000, 0x3F818000 -> 0x4000, 0x3F80, 0x3F82.
// C07: 0x33400000, 2^-25, 1e-5 -> 0x0001, 0x0000, 0x00A8.
// RUN: amp-opt %s --amp-cpu-pipeline | amp-runner -e main --entry-point-result=void | FileCheck %s
// CHECK: ( 16384, 16256, 16258 )
// CHECK-NEXT: ( 1, 0, 168 )

func.func @to_bf16(%x: tensor<3xf32>) -> tensor<3xi16> {
  %b = amp.cast %x : tensor<3xf32> to tensor<3xbf16>
  %i = arith.bitcast %b : tensor<3xbf16> to tensor<3xi16>
  return %i : tensor<3xi16>
}

func.func @to_f16(%x: tensor<3xf32>) -> tensor<3xi16> {
  %h = amp.cast %x : tensor<3xf32> to tensor<3xf16>
  %i = arith.bitcast %h : tensor<3xf16> to tensor<3xi16>
  return %i : tensor<3xi16>
}

func.func @main() {
  %bits6 = arith.constant dense<[0x3FFFFFFF, 0x3F808000, 0x3F818000]> : tensor<3xi32>
  %bits7 = arith.constant dense<[0x33400000, 0x33000000, 0x3727C5AC]> : tensor<3xi32>
  %x6 = arith.bitcast %bits6 : tensor<3xi32> to tensor<3xf32>
  %x7 = arith.bitcast %bits7 : tensor<3xi32> to tensor<3xf32>
  %r6 = call @to_bf16(%x6) : (tensor<3xf32>) -> tensor<3xi16>
  %r7 = call @to_f16(%x7) : (tensor<3xf32>) -> tensor<3xi16>
  %c0 = arith.constant 0 : index
  %p = arith.constant 0 : i16
  %v6 = vector.transfer_read %r6[%c0], %p : tensor<3xi16>, vector<3xi16>
  %v7 = vector.transfer_read %r7[%c0], %p : tensor<3xi16>, vector<3xi16>
  %w6 = arith.extui %v6 : vector<3xi16> to vector<3xi32>
  %w7 = arith.extui %v7 : vector<3xi16> to vector<3xi32>
  vector.print %w6 : vector<3xi32>
  vector.print %w7 : vector<3xi32>
  return
}
