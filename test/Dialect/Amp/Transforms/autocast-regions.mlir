// RUN: amp-opt %s -split-input-file --amp-autocast=annotate | FileCheck %s
// RUN: amp-opt %s -split-input-file "--amp-autocast=annotate mode=eager" | FileCheck %s

// Nested regions: the innermost rules. enabled(false) turns the policy off:
// ops run at their input types (values from the outer region arrive f16, as
// in PyTorch), and an inner region may pick another dtype.
// CHECK-LABEL: func @nested
// CHECK-SAME: (%[[X:.*]]: tensor<2x2xf32>)
// CHECK: %[[XH:.*]] = amp.cast %[[X]] : tensor<2x2xf32> to tensor<2x2xf16>
// CHECK: %[[M:.*]] = linalg.matmul {amp.compute_type = f16} ins(%[[XH]], %[[XH]] :
// The disabled region: f16 + f32 promotes to f32, f16 + f16 stays f16, and a
// matmul of f16 inputs runs in f16 (not cast, not widened).
// CHECK: %[[MF:.*]] = amp.cast %[[M]] : tensor<2x2xf16> to tensor<2x2xf32>
// CHECK: %[[A:.*]] = arith.addf %[[MF]], %[[X]] {amp.compute_type = f32} : tensor<2x2xf32>
// CHECK: %[[H:.*]] = arith.addf %[[M]], %[[M]] {amp.compute_type = f16} : tensor<2x2xf16>
// CHECK: %[[HM:.*]] = linalg.matmul {amp.compute_type = f16} ins(%[[H]], %[[H]] : tensor<2x2xf16>, tensor<2x2xf16>)
// CHECK: %[[HMF:.*]] = amp.cast %[[HM]] : tensor<2x2xf16> to tensor<2x2xf32>
// CHECK: %[[B:.*]] = arith.addf %[[A]], %[[HMF]] {amp.compute_type = f32} : tensor<2x2xf32>
// The bf16 region inside the f16 one.
// CHECK-DAG: %[[XB:.*]] = amp.cast %[[X]] : tensor<2x2xf32> to tensor<2x2xbf16>
// CHECK-DAG: %[[BB:.*]] = amp.cast %[[B]] : tensor<2x2xf32> to tensor<2x2xbf16>
// CHECK: %[[MM:.*]] = linalg.matmul {amp.compute_type = bf16} ins(%[[BB]], %[[XB]] : tensor<2x2xbf16>, tensor<2x2xbf16>)
// CHECK: %[[R:.*]] = amp.cast %[[MM]] : tensor<2x2xbf16> to tensor<2x2xf32>
// CHECK: return %[[R]]
// CHECK-NOT: amp.autocast
func.func @nested(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %r = amp.autocast device_type(cuda) -> tensor<2x2xf32> {
    %e = tensor.empty() : tensor<2x2xf32>
    %m = linalg.matmul ins(%x, %x : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
    %in = amp.autocast device_type(cuda) enabled(false) -> tensor<2x2xf32> {
      %a = arith.addf %m, %x : tensor<2x2xf32>
      %h = arith.addf %m, %m : tensor<2x2xf32>
      %hm = linalg.matmul ins(%h, %h : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
      %b = arith.addf %a, %hm : tensor<2x2xf32>
      amp.yield %b : tensor<2x2xf32>
    }
    %bf = amp.autocast device_type(cuda) dtype(bf16) -> tensor<2x2xf32> {
      %mm = linalg.matmul ins(%in, %x : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
      amp.yield %mm : tensor<2x2xf32>
    }
    amp.yield %bf : tensor<2x2xf32>
  }
  return %r : tensor<2x2xf32>
}

// -----

// The decorator form: the whole body is the region and the signature stays.
// cpu defaults to bf16. With cache_enabled = false every use casts on its own.
// CHECK-LABEL: func @decorated_no_cache
// CHECK-SAME: (%[[X:.*]]: tensor<2x2xf32>) -> tensor<2x2xf32> {
// CHECK: %[[C1:.*]] = amp.cast %[[X]] : tensor<2x2xf32> to tensor<2x2xbf16>
// CHECK: %[[C2:.*]] = amp.cast %[[X]] : tensor<2x2xf32> to tensor<2x2xbf16>
// CHECK: %[[M:.*]] = linalg.matmul {amp.compute_type = bf16} ins(%[[C1]], %[[C2]] :
// CHECK: %[[C3:.*]] = amp.cast %[[X]] : tensor<2x2xf32> to tensor<2x2xbf16>
// CHECK: linalg.matmul {amp.compute_type = bf16} ins(%[[M]], %[[C3]] :
func.func @decorated_no_cache(%x: tensor<2x2xf32>) -> tensor<2x2xf32>
    attributes {amp.autocast = #amp.autocast<device_type = cpu, cache_enabled = false>} {
  %e = tensor.empty() : tensor<2x2xf32>
  %m = linalg.matmul ins(%x, %x : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %n = linalg.matmul ins(%m, %x : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %n : tensor<2x2xf32>
}

// -----

// With the cache (the default) the weight is cast once, at region entry, and
// the cast of a loop-invariant value is hoisted out of the loop
// (autocast-statistics.mlir counts the casts).
// CHECK-LABEL: func @decorated_cache_hoist
// CHECK-SAME: (%[[X:.*]]: tensor<2x2xf32>, %[[W:.*]]: tensor<2x2xf32>
// CHECK: %[[WH:.*]] = amp.cast %[[W]] : tensor<2x2xf32> to tensor<2x2xbf16>
// CHECK: scf.for
// CHECK-NOT: amp.cast %[[W]]
// CHECK: linalg.matmul {amp.compute_type = bf16} ins(%{{.*}}, %[[WH]] :
// CHECK: linalg.matmul {amp.compute_type = bf16} ins(%{{.*}}, %[[WH]] :
// CHECK: scf.yield
func.func @decorated_cache_hoist(%x: tensor<2x2xf32>, %w: tensor<2x2xf32>, %n: index) -> tensor<2x2xf32>
    attributes {amp.autocast = #amp.autocast<device_type = cpu>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<2x2xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> tensor<2x2xf32> {
    %a = linalg.matmul ins(%acc, %w : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
    %b = linalg.matmul ins(%a, %w : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
    scf.yield %b : tensor<2x2xf32>
  }
  return %r : tensor<2x2xf32>
}

// -----

// Case C13: two SGD steps in an scf.for inside one autocast region. W is
// loop-carried (updated in the region): its cast is made from the current W
// in every iteration, never served from a stale cached cast of the initial W.
// The loop-carried value keeps its f32 type.
// CHECK-LABEL: func @c13_sgd_in_loop
// CHECK-SAME: (%[[W0:.*]]: tensor<1x1xf32>, %[[X:.*]]: tensor<1x1xf32>)
// CHECK: %[[XH:.*]] = amp.cast %[[X]] : tensor<1x1xf32> to tensor<1x1xbf16>
// CHECK: scf.for {{.*}} iter_args(%[[W:.*]] = %[[W0]]) -> (tensor<1x1xf32>)
// CHECK: %[[WH:.*]] = amp.cast %[[W]] : tensor<1x1xf32> to tensor<1x1xbf16>
// CHECK: %[[Y:.*]] = linalg.matmul {amp.compute_type = bf16} ins(%[[XH]], %[[WH]] :
// CHECK: %[[G:.*]] = linalg.matmul {amp.compute_type = bf16} ins(%[[XH]], %[[Y]] :
// CHECK: %[[GF:.*]] = amp.cast %[[G]] : tensor<1x1xbf16> to tensor<1x1xf32>
// CHECK: %[[S:.*]] = arith.mulf %[[GF]], %{{.*}} {amp.compute_type = f32} : tensor<1x1xf32>
// CHECK: %[[WN:.*]] = arith.subf %[[W]], %[[S]] {amp.compute_type = f32} : tensor<1x1xf32>
// CHECK: scf.yield %[[WN]] : tensor<1x1xf32>
func.func @c13_sgd_in_loop(%w0: tensor<1x1xf32>, %x: tensor<1x1xf32>) -> tensor<1x1xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %lr = arith.constant dense<0.5> : tensor<1x1xf32>
  %zero = arith.constant 0.0 : f32
  %r = amp.autocast device_type(cpu) -> tensor<1x1xf32> {
    %w = scf.for %i = %c0 to %c2 step %c1 iter_args(%wi = %w0) -> tensor<1x1xf32> {
      %e = tensor.empty() : tensor<1x1xf32>
      %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1xf32>) -> tensor<1x1xf32>
      %y = linalg.matmul ins(%x, %wi : tensor<1x1xf32>, tensor<1x1xf32>) outs(%f : tensor<1x1xf32>) -> tensor<1x1xf32>
      %g = linalg.matmul ins(%x, %y : tensor<1x1xf32>, tensor<1x1xf32>) outs(%f : tensor<1x1xf32>) -> tensor<1x1xf32>
      %s = arith.mulf %g, %lr : tensor<1x1xf32>
      %wn = arith.subf %wi, %s : tensor<1x1xf32>
      scf.yield %wn : tensor<1x1xf32>
    }
    amp.yield %w : tensor<1x1xf32>
  }
  return %r : tensor<1x1xf32>
}

// -----

// scf.if and scf.while inside a region: region arguments and results keep
// their types, the values flowing into them are cast back.
// CHECK-LABEL: func @scf_if_while
// CHECK: %[[IF:.*]] = scf.if %{{.*}} -> (tensor<2x2xf32>) {
// CHECK: %[[T:.*]] = linalg.matmul {amp.compute_type = f16}
// CHECK: %[[TF:.*]] = amp.cast %[[T]] : tensor<2x2xf16> to tensor<2x2xf32>
// CHECK: scf.yield %[[TF]] : tensor<2x2xf32>
// CHECK: } else {
// CHECK: scf.yield %{{.*}} : tensor<2x2xf32>
// CHECK: scf.while (%[[ARG:.*]] = %[[IF]]) : (tensor<2x2xf32>) -> tensor<2x2xf32>
// CHECK: scf.condition(%{{.*}}) %[[ARG]] : tensor<2x2xf32>
// CHECK: ^bb0(%[[B:.*]]: tensor<2x2xf32>):
// CHECK: %[[BH:.*]] = amp.cast %[[B]] : tensor<2x2xf32> to tensor<2x2xf16>
// CHECK: %[[N:.*]] = linalg.matmul {amp.compute_type = f16} ins(%[[BH]], %[[BH]] :
// CHECK: %[[NF:.*]] = amp.cast %[[N]] : tensor<2x2xf16> to tensor<2x2xf32>
// CHECK: scf.yield %[[NF]] : tensor<2x2xf32>
func.func @scf_if_while(%x: tensor<2x2xf32>, %c: i1) -> tensor<2x2xf32> {
  %r = amp.autocast device_type(cuda) -> tensor<2x2xf32> {
    %e = tensor.empty() : tensor<2x2xf32>
    %i = scf.if %c -> tensor<2x2xf32> {
      %t = linalg.matmul ins(%x, %x : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
      scf.yield %t : tensor<2x2xf32>
    } else {
      scf.yield %x : tensor<2x2xf32>
    }
    %w = scf.while (%a = %i) : (tensor<2x2xf32>) -> tensor<2x2xf32> {
      scf.condition(%c) %a : tensor<2x2xf32>
    } do {
    ^bb0(%b: tensor<2x2xf32>):
      %n = linalg.matmul ins(%b, %b : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
      scf.yield %n : tensor<2x2xf32>
    }
    amp.yield %w : tensor<2x2xf32>
  }
  return %r : tensor<2x2xf32>
}

// -----

// keep-regions leaves the autocast op (now computing inside) in place.
// RUN: amp-opt %s -split-input-file --amp-autocast=keep-regions | FileCheck %s --check-prefix=KEEP
// KEEP-LABEL: func @keep_regions
// KEEP: amp.autocast device_type(cuda) -> tensor<2x2xf32> {
// KEEP: linalg.matmul ins(%{{.*}} : tensor<2x2xf16>, tensor<2x2xf16>)
// KEEP: amp.yield %{{.*}} : tensor<2x2xf32>
func.func @keep_regions(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %r = amp.autocast device_type(cuda) -> tensor<2x2xf32> {
    %e = tensor.empty() : tensor<2x2xf32>
    %m = linalg.matmul ins(%x, %x : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
    amp.yield %m : tensor<2x2xf32>
  }
  return %r : tensor<2x2xf32>
}

// -----

// Scopes nested in a loop body and in a region the pass does not walk op by
// op (tensor.generate) are found once the outer scope is rewritten, and
// follow their own configuration.
// CHECK-LABEL: func @scopes_in_loop_and_generate
// CHECK: scf.for
// CHECK: %[[A:.*]] = amp.cast %{{.*}} : tensor<4x4xf32> to tensor<4x4xbf16>
// CHECK: linalg.matmul {amp.compute_type = bf16} ins(%[[A]], %[[A]] : tensor<4x4xbf16>, tensor<4x4xbf16>)
// CHECK: tensor.generate
// CHECK: math.exp %{{.*}} {amp.compute_type = f32} : f32
// CHECK-NOT: amp.autocast
func.func @scopes_in_loop_and_generate(%x: tensor<4x4xf32>, %n: index) -> (tensor<4x4xf32>, tensor<4xf32>)
    attributes {amp.autocast = #amp.autocast<device_type = cuda>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %l = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<4x4xf32>) {
    %in = amp.autocast device_type(cuda) dtype(bf16) -> tensor<4x4xf32> {
      %m = linalg.matmul ins(%acc, %acc : tensor<4x4xf32>, tensor<4x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
      amp.yield %m : tensor<4x4xf32>
    }
    scf.yield %in : tensor<4x4xf32>
  }
  %g = tensor.generate {
  ^bb0(%i: index):
    %s = amp.autocast device_type(cuda) enabled(false) -> f32 {
      %v = tensor.extract %x[%i, %i] : tensor<4x4xf32>
      %e = math.exp %v : f32
      amp.yield %e : f32
    }
    tensor.yield %s : f32
  } : tensor<4xf32>
  return %l, %g : tensor<4x4xf32>, tensor<4xf32>
}
