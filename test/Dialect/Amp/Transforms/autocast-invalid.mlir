// RUN: not amp-opt %s "--amp-autocast=fp32-ops=math.expo" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not amp-opt %s "--amp-autocast=mode=fast" 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: amp-opt %s "--amp-autocast=lower-ops=arith.bitcast annotate" -verify-diagnostics | FileCheck %s
// RUN: amp-opt %s "--amp-autocast=lower-ops=func.return fp32-ops=scf.for keep-ops=builtin.module promote-ops=arith.constant infer-ops=amp.cast" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NO-EFFECT
// RUN: amp-opt %s "--amp-autocast=lower-ops=linalg.fill" -o /dev/null 2>&1 | FileCheck %s --allow-empty --check-prefix=FILL

// UNKNOWN: autocast-invalid.mlir:0:0: error: amp-autocast: policy option names unknown op 'math.expo'
// UNKNOWN-NOT: func.func
// MODE: autocast-invalid.mlir:0:0: error: amp-autocast: mode must be 'graph' or 'eager', got 'fast'
// MODE-NOT: func.func
// Options naming ops the policy never decides warn (the run goes on);
// linalg.fill is decided where it is not an accumulator's zeroing.
// NO-EFFECT-DAG: autocast-invalid.mlir:0:0: warning: amp-autocast: policy option names 'func.return' (a terminator), which the cast policy never decides; the option has no effect
// NO-EFFECT-DAG: warning: amp-autocast: policy option names 'scf.for' (control flow whose body autocast processes op by op)
// NO-EFFECT-DAG: warning: amp-autocast: policy option names 'builtin.module' (a module or function)
// NO-EFFECT-DAG: warning: amp-autocast: policy option names 'arith.constant' (a constant, converted where its users need it)
// NO-EFFECT-DAG: warning: amp-autocast: policy option names 'amp.cast' (an amp op)
// FILL-NOT: policy option names

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
