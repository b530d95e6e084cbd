// amp-specialize-calls: callees of calls inside autocast regions fall under
// the region's cast policy (issue 29 item 2; PyTorch's autocast covers
// everything a region calls).
// RUN: amp-opt %s -split-input-file --amp-specialize-calls -verify-diagnostics | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-specialize-calls --amp-autocast=annotate -verify-diagnostics | FileCheck %s --check-prefix=AUTOCAST

// A callee also called from outside the region is cloned for the region's
// configuration; the outside caller keeps the original, the clone's own
// callee is specialised in turn.
// CHECK-LABEL: func.func private @mm(
// CHECK-NOT: amp.autocast =
// CHECK: call @scale(
// CHECK-LABEL: func.func private @mm__autocast_cuda_f16(
// CHECK-SAME: attributes {amp.autocast = #amp.autocast<device_type = cuda>}
// CHECK: call @scale__autocast_cuda_f16(
// CHECK-LABEL: func.func private @scale(
// CHECK-LABEL: func.func private @scale__autocast_cuda_f16(
// CHECK-SAME: attributes {amp.autocast = #amp.autocast<device_type = cuda>}
// CHECK-LABEL: func.func @region
// CHECK: amp.autocast device_type(cuda)
// CHECK: call @mm__autocast_cuda_f16(
// CHECK-LABEL: func.func @outside
// CHECK: call @mm(
// After amp-autocast the clone's matmul is f16, the original's f32.
// AUTOCAST-LABEL: func.func private @mm(
// AUTOCAST: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x4xf32>, tensor<4x4xf32>)
// AUTOCAST-LABEL: func.func private @mm__autocast_cuda_f16(
// AUTOCAST: linalg.matmul {amp.compute_type = f16}
func.func private @mm(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %e = tensor.empty() : tensor<4x4xf32>
  %m = linalg.matmul ins(%a, %a : tensor<4x4xf32>, tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %s = func.call @scale(%m) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %s : tensor<4x4xf32>
}
func.func private @scale(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = math.exp %a : tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
func.func @region(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = amp.autocast device_type(cuda) -> tensor<4x4xf32> {
    %m = func.call @mm(%a) : (tensor<4x4xf32>) -> tensor<4x4xf32>
    amp.yield %m : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}
func.func @outside(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %m = func.call @mm(%a) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %m : tensor<4x4xf32>
}

// -----

// A private callee called only from regions of one configuration takes the
// decorator itself (no clone); recursion keeps calling it.
// CHECK-LABEL: func.func private @only_here(
// CHECK-SAME: attributes {amp.autocast = #amp.autocast<device_type = cpu>}
// CHECK: call @only_here(
// CHECK-NOT: __autocast_
// CHECK-LABEL: func.func @decorated
func.func private @only_here(%a: tensor<4x4xf32>, %n: i1) -> tensor<4x4xf32> {
  %r = scf.if %n -> tensor<4x4xf32> {
    %f = arith.constant false
    %c = func.call @only_here(%a, %f) : (tensor<4x4xf32>, i1) -> tensor<4x4xf32>
    scf.yield %c : tensor<4x4xf32>
  } else {
    scf.yield %a : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}
func.func @decorated(%a: tensor<4x4xf32>, %n: i1) -> tensor<4x4xf32>
    attributes {amp.autocast = #amp.autocast<device_type = cpu>} {
  %r = func.call @only_here(%a, %n) : (tensor<4x4xf32>, i1) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

// Two configurations, a public callee (cloned for each), a callee decorated
// already (left under its own configuration), a disabled region (left
// alone) and an external declaration (a warning at the call).
// CHECK-LABEL: func.func @pub(
// CHECK-LABEL: func.func private @pub__autocast_cpu_bf16_nocache(
// CHECK-SAME: attributes {amp.autocast = #amp.autocast<device_type = cpu, cache_enabled = false>}
// CHECK-LABEL: func.func private @pub__autocast_cuda_f16(
// CHECK-SAME: attributes {amp.autocast = #amp.autocast<device_type = cuda>}
// CHECK-LABEL: func.func @two_configs
// CHECK: call @pub__autocast_cuda_f16(
// CHECK: call @own(
// CHECK: call @pub__autocast_cpu_bf16_nocache(
// CHECK: amp.autocast device_type(cuda) enabled(false)
// CHECK: call @pub(
func.func @pub(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = math.exp %a : tensor<4xf32>
  return %r : tensor<4xf32>
}
func.func private @own(%a: tensor<4xf32>) -> tensor<4xf32>
    attributes {amp.autocast = #amp.autocast<device_type = cpu, dtype = f16>} {
  return %a : tensor<4xf32>
}
func.func private @ext(tensor<4xf32>) -> tensor<4xf32>
func.func @two_configs(%a: tensor<4xf32>) -> tensor<4xf32> {
  %r = amp.autocast device_type(cuda) -> tensor<4xf32> {
    %x = func.call @pub(%a) : (tensor<4xf32>) -> tensor<4xf32>
    %y = func.call @own(%x) : (tensor<4xf32>) -> tensor<4xf32>
    // expected-warning @+1 {{callee '@ext' is an external declaration: the autocast region's cast policy cannot be applied to it; it runs as it was compiled}}
    %z = func.call @ext(%y) : (tensor<4xf32>) -> tensor<4xf32>
    amp.yield %z : tensor<4xf32>
  }
  %s = amp.autocast device_type(cpu) cache_enabled(false) -> tensor<4xf32> {
    %x = func.call @pub(%r) : (tensor<4xf32>) -> tensor<4xf32>
    amp.yield %x : tensor<4xf32>
  }
  %t = amp.autocast device_type(cuda) enabled(false) -> tensor<4xf32> {
    %x = func.call @pub(%s) : (tensor<4xf32>) -> tensor<4xf32>
    amp.yield %x : tensor<4xf32>
  }
  return %t : tensor<4xf32>
}
