// Graph mode: a value that an scf.for carries or an scf.if returns takes the
// low type when it is low on every path and the same values reach every use
// (no casts at the loop edge or in the branches). Eager mode keeps the
// written types and casts around them (EAGER), which computes the same
// values with more casts.
// RUN: amp-opt %s -split-input-file --amp-autocast | FileCheck %s
// RUN: amp-opt %s -split-input-file "--amp-autocast=mode=eager" | FileCheck %s --check-prefix=EAGER

// A matmul accumulating into the carried value: the init is cast once before
// the loop, the loop carries f16, and its result is cast back for the f32
// region result (the loop runs 4 times, so the result is always a yielded
// f16 value).
// CHECK-LABEL: func @accumulate
// CHECK-SAME: (%{{.*}}: tensor<3x3xf32>, %{{.*}}: tensor<3x3xf32>, %[[INIT:.*]]: tensor<3x3xf32>)
// CHECK: %[[INITH:.*]] = amp.cast %[[INIT]] : tensor<3x3xf32> to tensor<3x3xf16>
// CHECK: %[[L:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[INITH]]) -> (tensor<3x3xf16>) {
// CHECK-NOT: amp.cast
// CHECK:   %[[M:.*]] = linalg.matmul ins({{.*}}) outs(%[[ACC]] : tensor<3x3xf16>) -> tensor<3x3xf16>
// CHECK:   scf.yield %[[M]] : tensor<3x3xf16>
// CHECK: %[[R:.*]] = amp.cast %[[L]] : tensor<3x3xf16> to tensor<3x3xf32>
// CHECK: return %[[R]]
// EAGER-LABEL: func @accumulate
// EAGER: scf.for {{.*}} -> (tensor<3x3xf32>) {
// EAGER:   amp.cast %{{.*}} : tensor<3x3xf32> to tensor<3x3xf16>
// EAGER:   amp.cast %{{.*}} : tensor<3x3xf16> to tensor<3x3xf32>
func.func @accumulate(%a: tensor<3x3xf32>, %b: tensor<3x3xf32>, %init: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = amp.autocast device_type(cuda) -> tensor<3x3xf32> {
    %loop = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> tensor<3x3xf32> {
      %m = linalg.matmul ins(%a, %b : tensor<3x3xf32>, tensor<3x3xf32>) outs(%acc : tensor<3x3xf32>) -> tensor<3x3xf32>
      scf.yield %m : tensor<3x3xf32>
    }
    amp.yield %loop : tensor<3x3xf32>
  }
  return %r : tensor<3x3xf32>
}

// -----

// A loop that may not run returns its init unrounded, and the f32 exp reads
// it: the carried value stays f32.
// CHECK-LABEL: func @maybe_zero_trips
// CHECK: scf.for {{.*}} -> (tensor<3x3xf32>) {
// CHECK:   amp.cast %{{.*}} : tensor<3x3xf32> to tensor<3x3xf16>
// CHECK:   amp.cast %{{.*}} : tensor<3x3xf16> to tensor<3x3xf32>
// CHECK: math.exp %{{.*}} : tensor<3x3xf32>
func.func @maybe_zero_trips(%a: tensor<3x3xf32>, %init: tensor<3x3xf32>, %n: index) -> tensor<3x3xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = amp.autocast device_type(cuda) -> tensor<3x3xf32> {
    %loop = scf.for %i = %c0 to %n step %c1 iter_args(%h = %init) -> tensor<3x3xf32> {
      %e = tensor.empty() : tensor<3x3xf32>
      %m = linalg.matmul ins(%h, %a : tensor<3x3xf32>, tensor<3x3xf32>) outs(%e : tensor<3x3xf32>) -> tensor<3x3xf32>
      scf.yield %m : tensor<3x3xf32>
    }
    %s = math.exp %loop : tensor<3x3xf32>
    amp.yield %s : tensor<3x3xf32>
  }
  return %r : tensor<3x3xf32>
}

// -----

// An f32 op reads the carried value in the body (the first iteration reads
// the unrounded init): both carried values stay f32.
// CHECK-LABEL: func @f32_reader
// CHECK: scf.for {{.*}} -> (tensor<3x3xf32>, tensor<3x3xf32>) {
// CHECK:   amp.cast %{{.*}} : tensor<3x3xf32> to tensor<3x3xf16>
// CHECK:   math.exp %{{.*}} : tensor<3x3xf32>
func.func @f32_reader(%a: tensor<3x3xf32>, %init: tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3x3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r:2 = amp.autocast device_type(cuda) -> (tensor<3x3xf32>, tensor<3x3xf32>) {
    %loop:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %init, %s = %init) -> (tensor<3x3xf32>, tensor<3x3xf32>) {
      %x = math.exp %h : tensor<3x3xf32>
      %e = tensor.empty() : tensor<3x3xf32>
      %m = linalg.matmul ins(%h, %a : tensor<3x3xf32>, tensor<3x3xf32>) outs(%e : tensor<3x3xf32>) -> tensor<3x3xf32>
      scf.yield %m, %x : tensor<3x3xf32>, tensor<3x3xf32>
    }
    amp.yield %loop#0, %loop#1 : tensor<3x3xf32>, tensor<3x3xf32>
  }
  return %r#0, %r#1 : tensor<3x3xf32>, tensor<3x3xf32>
}

// -----

// Both branches return a matmul result and the matmul after the if reads it:
// the if returns f16.
// CHECK-LABEL: func @branches
// CHECK: %[[V:.*]] = scf.if %{{.*}} -> (tensor<3x3xf16>) {
// CHECK:   %[[T:.*]] = linalg.matmul {{.*}} -> tensor<3x3xf16>
// CHECK:   scf.yield %[[T]] : tensor<3x3xf16>
// CHECK: } else {
// CHECK:   %[[F:.*]] = linalg.matmul {{.*}} -> tensor<3x3xf16>
// CHECK:   scf.yield %[[F]] : tensor<3x3xf16>
// CHECK: }
// CHECK: linalg.matmul ins(%[[V]], %{{.*}} : tensor<3x3xf16>, tensor<3x3xf16>)
// EAGER-LABEL: func @branches
// EAGER: scf.if %{{.*}} -> (tensor<3x3xf32>) {
func.func @branches(%a: tensor<3x3xf32>, %b: tensor<3x3xf32>, %p: i1) -> tensor<3x3xf32> {
  %r = amp.autocast device_type(cuda) -> tensor<3x3xf32> {
    %e = tensor.empty() : tensor<3x3xf32>
    %v = scf.if %p -> tensor<3x3xf32> {
      %m = linalg.matmul ins(%a, %b : tensor<3x3xf32>, tensor<3x3xf32>) outs(%e : tensor<3x3xf32>) -> tensor<3x3xf32>
      scf.yield %m : tensor<3x3xf32>
    } else {
      %m = linalg.matmul ins(%b, %a : tensor<3x3xf32>, tensor<3x3xf32>) outs(%e : tensor<3x3xf32>) -> tensor<3x3xf32>
      scf.yield %m : tensor<3x3xf32>
    }
    %w = linalg.matmul ins(%v, %a : tensor<3x3xf32>, tensor<3x3xf32>) outs(%e : tensor<3x3xf32>) -> tensor<3x3xf32>
    amp.yield %w : tensor<3x3xf32>
  }
  return %r : tensor<3x3xf32>
}
