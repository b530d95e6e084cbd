// RUN: amp-opt %s -split-input-file -inline | FileCheck %s

// The amp dialect's inliner interface: a call inside an amp.autocast region
// is inlined into the region (its ops then fall under the region's policy;
// this is how the PyTorch front end imports a `with torch.autocast(...)`
// block), and functions holding amp ops are inlined into their callers.

// CHECK-LABEL: func @call_in_region
// CHECK-NOT: call @body
// CHECK: %[[R:.*]] = amp.autocast device_type(cpu) dtype(f16) -> tensor<4x4xf32> {
// CHECK:   %[[M:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8x4xf32>)
// CHECK:   %[[E:.*]] = math.exp %[[M]] : tensor<4x4xf32>
// CHECK:   amp.yield %[[E]] : tensor<4x4xf32>
// CHECK: }
// CHECK: return %[[R]]
// CHECK-NOT: func.func private @body
func.func private @body(%x: tensor<4x8xf32>, %w: tensor<8x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %m = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x4xf32>)
                     outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  %r = math.exp %m : tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

func.func @call_in_region(%x: tensor<4x8xf32>, %w: tensor<8x4xf32>) -> tensor<4x4xf32> {
  %r = amp.autocast device_type(cpu) dtype(f16) -> tensor<4x4xf32> {
    %y = func.call @body(%x, %w) : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
    amp.yield %y : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}

// -----

// Nested regions, as nested `with torch.autocast(...)` blocks import: the
// outer body holds an enabled(false) region around a call of the inner body.
// Both calls are inlined, each into its own region.

// CHECK-LABEL: func @nested_regions
// CHECK-NOT: call
// CHECK: amp.autocast device_type(cpu) dtype(f16) -> tensor<8xf32> {
// CHECK:   arith.addf
// CHECK:   amp.autocast device_type(cpu) dtype(f16) enabled(false) -> tensor<8xf32> {
// CHECK:     math.exp
// CHECK:     amp.yield
// CHECK:   }
// CHECK:   arith.mulf
// CHECK:   amp.yield
// CHECK: }
func.func private @inner(%x: tensor<8xf32>) -> tensor<8xf32> {
  %e = math.exp %x : tensor<8xf32>
  return %e : tensor<8xf32>
}

func.func private @outer(%x: tensor<8xf32>) -> tensor<8xf32> {
  %a = arith.addf %x, %x : tensor<8xf32>
  %b = amp.autocast device_type(cpu) dtype(f16) enabled(false) -> tensor<8xf32> {
    %c = func.call @inner(%a) : (tensor<8xf32>) -> tensor<8xf32>
    amp.yield %c : tensor<8xf32>
  }
  %d = arith.mulf %b, %a : tensor<8xf32>
  return %d : tensor<8xf32>
}

func.func @nested_regions(%x: tensor<8xf32>) -> tensor<8xf32> {
  %r = amp.autocast device_type(cpu) dtype(f16) -> tensor<8xf32> {
    %y = func.call @outer(%x) : (tensor<8xf32>) -> tensor<8xf32>
    amp.yield %y : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----

// A function whose body holds amp ops (a cast and an autocast region) is
// inlined into its caller.

// CHECK-LABEL: func @amp_ops_inlined
// CHECK-NOT: call
// CHECK: %[[H:.*]] = amp.cast %{{.*}} : tensor<4xf32> to tensor<4xf16>
// CHECK: amp.autocast device_type(cuda) -> tensor<4xf16> {
// CHECK:   arith.addf %[[H]], %[[H]] : tensor<4xf16>
func.func private @with_amp_ops(%x: tensor<4xf32>) -> tensor<4xf16> {
  %h = amp.cast %x : tensor<4xf32> to tensor<4xf16>
  %r = amp.autocast device_type(cuda) -> tensor<4xf16> {
    %s = arith.addf %h, %h : tensor<4xf16>
    amp.yield %s : tensor<4xf16>
  }
  return %r : tensor<4xf16>
}

func.func @amp_ops_inlined(%x: tensor<4xf32>) -> tensor<4xf16> {
  %r = func.call @with_amp_ops(%x) : (tensor<4xf32>) -> tensor<4xf16>
  return %r : tensor<4xf16>
}
