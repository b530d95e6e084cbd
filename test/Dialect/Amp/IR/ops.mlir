// RUN: amp-opt %s -split-input-file -allow-unregistered-dialect | FileCheck %s
// Round trip through the generic form: the op comes back the same.
// RUN: amp-opt %s -split-input-file -allow-unregistered-dialect -mlir-print-op-generic | amp-opt -split-input-file -allow-unregistered-dialect | FileCheck %s
// The custom form re-parses to itself.
// RUN: amp-opt %s -split-input-file -allow-unregistered-dialect | amp-opt -split-input-file -allow-unregistered-dialect | FileCheck %s

// CHECK-LABEL: func @autocast_defaults
// CHECK: %[[R:.*]] = amp.autocast device_type(cuda) -> tensor<8x16xf32> {
// CHECK-NEXT: linalg.matmul
// CHECK-NEXT: amp.yield %{{.*}} : tensor<8x16xf32>
// CHECK-NEXT: }
// CHECK: return %[[R]]
func.func @autocast_defaults(%x: tensor<8x32xf32>, %w: tensor<32x16xf32>,
                             %acc: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %r = amp.autocast device_type(cuda) -> tensor<8x16xf32> {
    %y = linalg.matmul ins(%x, %w : tensor<8x32xf32>, tensor<32x16xf32>)
                       outs(%acc : tensor<8x16xf32>) -> tensor<8x16xf32>
    amp.yield %y : tensor<8x16xf32>
  }
  return %r : tensor<8x16xf32>
}

// -----

// The device default dtype is not printed; other values are, in a fixed order.
// CHECK-LABEL: func @autocast_keywords
// CHECK: amp.autocast device_type(cuda) {
// CHECK: amp.autocast device_type(cpu) {
// CHECK: amp.autocast device_type(cuda) dtype(bf16) enabled(false) cache_enabled(false) {
// CHECK: amp.autocast device_type(cpu) dtype(f16) {
// CHECK: amp.autocast device_type(cpu) cache_enabled(false) {
func.func @autocast_keywords() {
  amp.autocast device_type(cuda) dtype(f16) enabled(true) cache_enabled(true) {
    "test.use"() : () -> ()
  }
  amp.autocast device_type(cpu) dtype(bf16) {
    "test.use"() : () -> ()
  }
  amp.autocast cache_enabled(false) enabled(false) dtype(bf16) device_type(cuda) {
    "test.use"() : () -> ()
  }
  amp.autocast device_type(cpu) dtype(f16) {
    "test.use"() : () -> ()
  }
  amp.autocast device_type(cpu) cache_enabled(false) {
    "test.use"() : () -> ()
  }
  return
}

// -----

// Several results, nesting, and a policy attribute.
// CHECK-LABEL: func @autocast_nested
// CHECK: %{{.*}}:2 = amp.autocast device_type(cuda) -> (f32, tensor<4xf32>) attributes {amp.policy = #amp.policy<lower = ["math.exp"], fp32 = ["linalg.matmul"]>} {
// CHECK: amp.autocast device_type(cuda) enabled(false) -> f32 {
// CHECK: amp.yield %{{.*}} : f32
// CHECK: amp.yield %{{.*}}, %{{.*}} : f32, tensor<4xf32>
func.func @autocast_nested(%a: f32, %t: tensor<4xf32>) -> (f32, tensor<4xf32>) {
  %r:2 = amp.autocast device_type(cuda) -> (f32, tensor<4xf32>) attributes {
      amp.policy = #amp.policy<fp32 = ["linalg.matmul"], lower = ["math.exp"]>} {
    %in = amp.autocast device_type(cuda) enabled(false) -> f32 {
      %e = math.exp %a : f32
      amp.yield %e : f32
    }
    amp.yield %in, %t : f32, tensor<4xf32>
  }
  return %r#0, %r#1 : f32, tensor<4xf32>
}

// -----

// The decorator form and the policy attribute on a module and a function.
// CHECK: module attributes {amp.policy = #amp.policy<keep = ["tosa.custom"]>}
// CHECK-LABEL: func @decorated
// CHECK-SAME: amp.autocast = #amp.autocast<device_type = cuda>
// CHECK-LABEL: func @decorated_full
// CHECK-SAME: amp.autocast = #amp.autocast<device_type = cpu, dtype = f16, enabled = false, cache_enabled = false>
// CHECK-SAME: amp.policy = #amp.policy<promote = ["tensor.concat"], infer = ["math.tanh"], clear = ["tensor.pad"]>
module attributes {amp.policy = #amp.policy<keep = ["tosa.custom"]>} {
  func.func @decorated(%x: tensor<4xf32>) -> tensor<4xf32>
      attributes {amp.autocast = #amp.autocast<device_type = cuda>} {
    return %x : tensor<4xf32>
  }
  func.func @decorated_full(%x: tensor<4xf32>) -> tensor<4xf32>
      attributes {amp.autocast = #amp.autocast<device_type = cpu, dtype = f16, enabled = false, cache_enabled = false>,
                  amp.policy = #amp.policy<infer = ["math.tanh"], promote = ["tensor.concat"], clear = ["tensor.pad"]>} {
    return %x : tensor<4xf32>
  }
}

// -----

// CHECK-LABEL: func @casts
// CHECK: amp.cast %{{.*}} : tensor<2x?xf32> to tensor<2x?xf16>
// CHECK: amp.cast %{{.*}} : f32 to bf16
// CHECK: amp.cast %{{.*}} : tensor<3xbf16> to tensor<3xf64>
func.func @casts(%t: tensor<2x?xf32>, %s: f32, %b: tensor<3xbf16>) {
  %0 = amp.cast %t : tensor<2x?xf32> to tensor<2x?xf16>
  %1 = amp.cast %s : f32 to bf16
  %2 = amp.cast %b : tensor<3xbf16> to tensor<3xf64>
  "test.use"(%0, %1, %2) : (tensor<2x?xf16>, bf16, tensor<3xf64>) -> ()
  return
}
