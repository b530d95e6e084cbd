// A policy that puts a call in low precision: the callee fixes its types, so
// the call warns and stays f32 (symbol uses are verified too).
// RUN: amp-opt %s "--amp-autocast=lower-ops=func.call" -verify-diagnostics | FileCheck %s
// RUN: not amp-opt %s "--amp-autocast=lower-ops=math.exp fp32-ops=math.exp" 2>&1 | FileCheck %s --check-prefix=CONFLICT

// RUN: not amp-opt %s "--amp-autocast=clear-ops=math.sqrt remove-clear-ops=math.sqrt" 2>&1 | FileCheck %s --check-prefix=ADD-REMOVE

// CONFLICT: autocast-call-policy.mlir:0:0: error: amp-autocast: options put op 'math.exp' in two categories (lower and fp32)
// ADD-REMOVE: autocast-call-policy.mlir:0:0: error: amp-autocast: options both add op 'math.sqrt' to the clear list and remove it from it

// CHECK-LABEL: func @call_in_lower
// CHECK: call @g(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
func.func private @g(tensor<4xf32>) -> tensor<4xf32>
func.func @call_in_lower(%x: tensor<4xf32>) -> tensor<4xf32>
    attributes {amp.autocast = #amp.autocast<device_type = cuda>} {
  // expected-warning @+1 {{'func.call' cannot be retyped to 'f16' as the cast policy asks; it stays f32}}
  %r = func.call @g(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// Retyped ops are verified once per signature (name, attributes, operand and
// result types, constant operands), and failures are not remembered: the
// second, identical call warns too.
// CHECK-LABEL: func @identical_calls
// CHECK: %[[A:.*]] = call @g(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: call @g(%[[A]]) : (tensor<4xf32>) -> tensor<4xf32>
func.func @identical_calls(%x: tensor<4xf32>) -> tensor<4xf32>
    attributes {amp.autocast = #amp.autocast<device_type = cuda>} {
  // expected-warning @+1 {{'func.call' cannot be retyped to 'f16' as the cast policy asks; it stays f32}}
  %a = func.call @g(%x) : (tensor<4xf32>) -> tensor<4xf32>
  // expected-warning @+1 {{'func.call' cannot be retyped to 'f16' as the cast policy asks; it stays f32}}
  %b = func.call @g(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %b : tensor<4xf32>
}
