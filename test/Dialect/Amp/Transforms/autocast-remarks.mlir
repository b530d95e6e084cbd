// What amp-autocast leaves in f32 where the policy asks for low precision
// gets a remark naming the op and why (issue 29 item 4): structured ops on
// memrefs (both modes; eager mode in autocast-robustness.mlir), and, in graph mode, scf.for-carried values that
// cannot be carried low without changing a value.
// RUN: amp-opt %s -split-input-file --amp-autocast=annotate -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func @memref_ops
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : memref<4x4xf32>, memref<4x4xf32>)
// CHECK: linalg.generic
func.func @memref_ops(%a: memref<4x4xf32>, %c: memref<4x4xf32>)
    attributes {amp.autocast = #amp.autocast<device_type = cuda>} {
  // expected-remark @+1 {{'linalg.matmul' stays as written: it works on memrefs (buffers), which amp-autocast does not retype; run amp-autocast on tensors, before bufferization}}
  linalg.matmul ins(%a, %a : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  // expected-remark @+1 {{'linalg.generic' stays as written: it works on memrefs}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x4xf32>) outs(%c : memref<4x4xf32>) {
  ^bb0(%x: f32, %y: f32):
    %e = math.exp %x : f32
    linalg.yield %e : f32
  }
  return
}

// -----

// The body yields a matmul's f16 result, but the loop may run zero times
// (its trip count is not a constant) and then returns its f32 initial value
// to the function's result: the carried value stays f32.
// CHECK-LABEL: func @zero_trips
// CHECK: scf.for {{.*}} -> (tensor<4x4xf32>)
func.func @zero_trips(%x: tensor<4x4xf32>, %n: index) -> tensor<4x4xf32>
    attributes {amp.autocast = #amp.autocast<device_type = cuda>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<4x4xf32>
  // expected-remark @+1 {{'scf.for' carried value #0 stays f32 (cast to 'f16' and back in every iteration): the body yields a 'f16' value, but the loop may run zero times and return its f32 initial value to users that read it in f32}}
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<4x4xf32>) {
    %m = linalg.matmul ins(%acc, %acc : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
    scf.yield %m : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}

// -----

// The iteration argument also feeds an f32 op (exp): carried low, its first
// iteration would read the f32 initial value rounded.
// CHECK-LABEL: func @f32_reader
// CHECK: scf.for {{.*}} -> (tensor<4x4xf32>, tensor<4x4xf32>)
func.func @f32_reader(%x: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>)
    attributes {amp.autocast = #amp.autocast<device_type = cuda>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %e = tensor.empty() : tensor<4x4xf32>
  // expected-remark @+1 {{'scf.for' carried value #0 stays f32 (cast to 'f16' and back in every iteration): the body yields a 'f16' value, but the iteration argument has users that read it in f32, which would see the f32 initial value rounded}}
  %r:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x, %s = %x) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
    %m = linalg.matmul ins(%acc, %acc : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
    %x2 = math.exp %acc : tensor<4x4xf32>
    scf.yield %m, %x2 : tensor<4x4xf32>, tensor<4x4xf32>
  }
  return %r#0, %r#1 : tensor<4x4xf32>, tensor<4x4xf32>
}
