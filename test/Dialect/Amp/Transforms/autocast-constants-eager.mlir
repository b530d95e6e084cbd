// Eager mode: a lower op whose constant weight does not fit in the low type
// stays f32 with a remark (70000 overflows f16, 1e-10 underflows it; bf16
// holds both), on both devices; an input that fits is cast at compile time.
// RUN: amp-opt %s -split-input-file "--amp-autocast=annotate mode=eager" -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func @matmul_weights
// CHECK: linalg.matmul {amp.compute_type = f32} ins(%{{.*}}, %{{.*}} : tensor<2x2xf32>, tensor<2x2xf32>)
// CHECK: %[[W:.*]] = arith.constant dense<5.000000e-01> : tensor<2x2xf16>
// CHECK: linalg.matmul {amp.compute_type = f16} ins(%{{.*}}, %[[W]] : tensor<2x2xf16>, tensor<2x2xf16>)
func.func @matmul_weights(%x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %r:2 = amp.autocast device_type(cuda) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
    %e = tensor.empty() : tensor<2x2xf32>
    %big = arith.constant dense<70000.0> : tensor<2x2xf32>
    // expected-remark @+1 {{stays f32: constant dense<7.000000e+04> : tensor<2x2xf32> does not fit in 'f16'}}
    %m = linalg.matmul ins(%x, %big : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
    %half = arith.constant dense<0.5> : tensor<2x2xf32>
    %n = linalg.matmul ins(%x, %half : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
    amp.yield %m, %n : tensor<2x2xf32>, tensor<2x2xf32>
  }
  return %r#0, %r#1 : tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// CHECK-LABEL: func @underflow
// CHECK: tosa.matmul {{.*}} {amp.compute_type = f32}
// CHECK: tosa.matmul {{.*}} {amp.compute_type = bf16}
func.func @underflow(%x: tensor<1x2x2xf32>) -> (tensor<1x2x2xf32>, tensor<1x2x2xf32>) {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %tiny = "tosa.const"() <{values = dense<1.0e-10> : tensor<1x2x2xf32>}> : () -> tensor<1x2x2xf32>
  %a = amp.autocast device_type(cuda) -> tensor<1x2x2xf32> {
    // expected-remark @+1 {{stays f32: constant dense<1.000000e-10> : tensor<1x2x2xf32> does not fit in 'f16'}}
    %m = tosa.matmul %x, %tiny, %z, %z : (tensor<1x2x2xf32>, tensor<1x2x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2xf32>
    amp.yield %m : tensor<1x2x2xf32>
  }
  %b = amp.autocast device_type(cpu) -> tensor<1x2x2xf32> {
    %m = tosa.matmul %x, %tiny, %z, %z : (tensor<1x2x2xf32>, tensor<1x2x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2xf32>
    amp.yield %m : tensor<1x2x2xf32>
  }
  return %a, %b : tensor<1x2x2xf32>, tensor<1x2x2xf32>
}
