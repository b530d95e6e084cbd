// RUN: not amp-opt %s "--amp-autocast=fp32-ops=math.expo" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not amp-opt %s "--amp-autocast=mode=fast" 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: amp-opt %s "--amp-autocast=lower-ops=arith.bitcast annotate" -verify-diagnostics | FileCheck %s

// UNKNOWN: autocast-invalid.mlir:0:0: error: amp-autocast: policy option names unknown op 'math.expo'
// UNKNOWN-NOT: func.func
// MODE: autocast-invalid.mlir:0:0: error: amp-autocast: mode must be 'graph' or 'eager', got 'fast'
// MODE-NOT: func.func

// An op the policy puts in low precision that cannot be retyped (a bitcast
// from i32 cannot produce f16) warns and stays f32.
// CHECK-LABEL: func @not_retypable
// CHECK: arith.bitcast %{{.*}} {amp.compute_type = f32} : tensor<2xi32> to tensor<2xf32>
func.func @not_retypable(%a: tensor<2xi32>) -> tensor<2xf32> {
  %r = amp.autocast device_type(cuda) -> tensor<2xf32> {
    // expected-warning @+1 {{cannot be retyped to 'f16' as the cast policy asks; it stays f32}}
    %c = arith.bitcast %a : tensor<2xi32> to tensor<2xf32>
    amp.yield %c : tensor<2xf32>
  }
  return %r : tensor<2xf32>
}
