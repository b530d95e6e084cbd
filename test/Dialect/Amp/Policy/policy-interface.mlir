// REQUIRES: amp-test-dialect
// RUN: amp-opt %s -split-input-file --amp-autocast -verify-diagnostics | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-autocast="mode=eager" -verify-diagnostics | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-autocast="lower-ops=amp_test.opaque" -verify-diagnostics | FileCheck %s --check-prefix=OPTION

// Ops of another dialect (amp_test, test/lib) declare their category by
// implementing CastPolicyOpInterface, as a user's dialect would:
// amp_test.scaled_matmul answers lower on CUDA and fp32 on the CPU,
// amp_test.opaque keep; amp_test.unlisted does not implement the interface
// and is kept as written.

// CHECK-LABEL: func @cuda
// CHECK-DAG: %[[A:.*]] = amp.cast %arg0 : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-DAG: %[[B:.*]] = amp.cast %arg1 : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK: %[[M:.*]] = amp_test.scaled_matmul %[[A]], %[[B]] : tensor<4x4xf16>, tensor<4x4xf16> -> tensor<4x4xf16>
// CHECK: %[[W:.*]] = amp.cast %[[M]] : tensor<4x4xf16> to tensor<4x4xf32>
// CHECK: %[[O:.*]] = amp_test.opaque %[[W]] : tensor<4x4xf32> -> tensor<4x4xf32>
// CHECK: %[[U:.*]] = amp_test.unlisted %[[O]] : tensor<4x4xf32>
// CHECK: return %[[U]]
// With lower-ops=amp_test.opaque the option overrides the interface's keep.
// OPTION-LABEL: func @cuda
// OPTION: %[[M:.*]] = amp_test.scaled_matmul {{.*}} -> tensor<4x4xf16>
// OPTION: %[[O:.*]] = amp_test.opaque %[[M]] : tensor<4x4xf16> -> tensor<4x4xf16>
// OPTION: %[[W:.*]] = amp.cast %[[O]] : tensor<4x4xf16> to tensor<4x4xf32>
// OPTION: amp_test.unlisted %[[W]] : tensor<4x4xf32>
func.func @cuda(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = amp.autocast device_type(cuda) -> tensor<4x4xf32> {
    %m = amp_test.scaled_matmul %a, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    %o = amp_test.opaque %m : tensor<4x4xf32> -> tensor<4x4xf32>
    %u = amp_test.unlisted %o : tensor<4x4xf32>
    amp.yield %u : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}

// -----

// On the CPU the same op answers fp32: a bf16 input (from a lower matmul)
// is cast up and the op runs in f32.
// CHECK-LABEL: func @cpu
// CHECK: %[[MM:.*]] = linalg.matmul {{.*}} -> tensor<4x4xbf16>
// CHECK: %[[UP:.*]] = amp.cast %[[MM]] : tensor<4x4xbf16> to tensor<4x4xf32>
// CHECK: amp_test.scaled_matmul %[[UP]], %arg1 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
func.func @cpu(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = amp.autocast device_type(cpu) -> tensor<4x4xf32> {
    %e = tensor.empty() : tensor<4x4xf32>
    %z = arith.constant 0.0 : f32
    %init = linalg.fill ins(%z : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
    %mm = linalg.matmul ins(%a, %a : tensor<4x4xf32>, tensor<4x4xf32>) outs(%init : tensor<4x4xf32>) -> tensor<4x4xf32>
    %m = amp_test.scaled_matmul %mm, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    amp.yield %m : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}

// -----

// An #amp.policy attribute overrides what the interface answers.
// CHECK-LABEL: func @policy_attr
// CHECK-NOT: amp.cast
// CHECK: amp_test.scaled_matmul %arg0, %arg1 : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
func.func @policy_attr(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32>
    attributes {amp.policy = #amp.policy<fp32 = ["amp_test.scaled_matmul"]>} {
  %r = amp.autocast device_type(cuda) -> tensor<4x4xf32> {
    %m = amp_test.scaled_matmul %a, %b : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
    amp.yield %m : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}

// -----

// A lower op whose verifier rejects f16 results stays f32, with a warning.
// CHECK-LABEL: func @cannot_retype
// CHECK: amp_test.f32_result %arg0 : tensor<4x4xf32> -> tensor<4x4xf32>
func.func @cannot_retype(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = amp.autocast device_type(cuda) -> tensor<4x4xf32> {
    // expected-warning @below {{'amp_test.f32_result' cannot be retyped to 'f16' as the cast policy asks; it stays f32}}
    %m = amp_test.f32_result %a : tensor<4x4xf32> -> tensor<4x4xf32>
    amp.yield %m : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}
