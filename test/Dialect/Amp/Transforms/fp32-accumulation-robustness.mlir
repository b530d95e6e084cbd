// Inputs amp-fp32-accumulation leaves alone, or cannot rebuild: no crash, no
// invalid IR.
// RUN: amp-opt %s -split-input-file --amp-fp32-accumulation -verify-diagnostics | amp-opt -split-input-file | FileCheck %s

// softmax on memrefs (no result to round): untouched.
// CHECK-LABEL: func @softmax_memref
// CHECK-NEXT: linalg.softmax dimension(1) ins(%{{.*}} : memref<4x4xf16>) outs(%{{.*}} : memref<4x4xf16>)
func.func @softmax_memref(%a: memref<4x4xf16>, %b: memref<4x4xf16>) {
  linalg.softmax dimension(1) ins(%a : memref<4x4xf16>) outs(%b : memref<4x4xf16>)
  return
}

// -----

// An unranked reduction: amp.cast cannot widen it, so it is untouched.
// CHECK-LABEL: func @reduce_unranked
// CHECK-NEXT: tosa.reduce_sum %{{.*}} {axis = 0 : i32} : (tensor<*xf16>) -> tensor<*xf16>
func.func @reduce_unranked(%a: tensor<*xf16>) -> tensor<*xf16> {
  %r = tosa.reduce_sum %a {axis = 0 : i32} : (tensor<*xf16>) -> tensor<*xf16>
  return %r : tensor<*xf16>
}

// -----

// A payload that bitcasts the accumulator cannot be widened: it keeps its
// f16 accumulator, with a warning.
// CHECK-LABEL: func @bitcast_payload
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<f16>)
#m0 = affine_map<(d0) -> (d0)>
#m1 = affine_map<(d0) -> ()>
func.func @bitcast_payload(%x: tensor<8xf16>, %i: tensor<f16>) -> tensor<f16> {
  // expected-warning @+1 {{amp-fp32-accumulation: cannot rebuild this op with an f32 accumulator; it keeps its 'f16' accumulator}}
  %r = linalg.generic {indexing_maps = [#m0, #m1], iterator_types = ["reduction"]} ins(%x : tensor<8xf16>) outs(%i : tensor<f16>) {
  ^bb0(%a: f16, %acc: f16):
    %s = arith.addf %a, %acc : f16
    %b = arith.bitcast %s : f16 to i16
    %c = arith.bitcast %b : i16 to f16
    linalg.yield %c : f16
  } -> tensor<f16>
  return %r : tensor<f16>
}
