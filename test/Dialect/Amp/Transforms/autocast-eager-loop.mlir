// RUN: amp-opt %s -split-input-file --amp-autocast="mode=eager" -verify-diagnostics | FileCheck %s

// Eager mode and a loop whose body turns the carried value from f32 into
// f16 (the matmul's result): PyTorch runs the second iteration on that f16
// value. The first iteration is peeled (the processed loop runs once, on
// the written f32 type), and the other three carry f16; the tanh and the
// sin after the loop run in f16, as in PyTorch.
// CHECK-LABEL: func @peeled
// CHECK: %[[NEXT:.*]] = arith.addi %c0, %c1 : index
// CHECK: %[[FIRST:.*]] = scf.for %{{.*}} = %c0 to %[[NEXT]] step %c1 iter_args(%[[A:.*]] = %arg0) -> (tensor<4x4xf32>)
// CHECK:   %[[A16:.*]] = amp.cast %[[A]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK:   linalg.matmul ins(%[[A16]], %{{.*}} : tensor<4x4xf16>, tensor<4x4xf16>)
// CHECK:   math.tanh %{{.*}} : tensor<4x4xf16>
// CHECK:   amp.cast %{{.*}} : tensor<4x4xf16> to tensor<4x4xf32>
// CHECK: %[[INIT:.*]] = amp.cast %[[FIRST]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK: %[[REST:.*]] = scf.for %{{.*}} = %[[NEXT]] to %c4 step %c1 iter_args(%[[B:.*]] = %[[INIT]]) -> (tensor<4x4xf16>)
// CHECK-NOT: amp.cast
// CHECK:   linalg.matmul ins(%[[B]], %{{.*}} : tensor<4x4xf16>, tensor<4x4xf16>)
// CHECK:   %[[T:.*]] = math.tanh %{{.*}} : tensor<4x4xf16>
// CHECK:   scf.yield %[[T]] : tensor<4x4xf16>
// CHECK: %[[S:.*]] = math.sin %[[REST]] : tensor<4x4xf16>
// CHECK: amp.cast %[[S]] : tensor<4x4xf16> to tensor<4x4xf32>
func.func @peeled(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = amp.autocast device_type(cuda) -> tensor<4x4xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4x4xf32>
    %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
    %h = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> (tensor<4x4xf32>) {
      %m = linalg.matmul ins(%acc, %w : tensor<4x4xf32>, tensor<4x4xf32>) outs(%init : tensor<4x4xf32>) -> tensor<4x4xf32>
      %t = math.tanh %m : tensor<4x4xf32>
      scf.yield %t : tensor<4x4xf32>
    }
    %s = math.sin %h : tensor<4x4xf32>
    amp.yield %s : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}

// -----

// A body that keeps the carried type (exp is on the fp32 list), a loop of
// one trip, a carried value the body passes through: nothing to peel.
// CHECK-LABEL: func @not_peeled
// CHECK-COUNT-3: scf.for
// CHECK-NOT: scf.for
func.func @not_peeled(%x: tensor<4xf32>, %w: tensor<4x4xf32>, %n: index) -> (tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32>) {
  %r:3 = amp.autocast device_type(cuda) -> (tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %a = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> (tensor<4xf32>) {
      %e = math.exp %acc : tensor<4xf32>
      scf.yield %e : tensor<4xf32>
    }
    %zero = arith.constant 0.0 : f32
    %empty = tensor.empty() : tensor<4x4xf32>
    %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4x4xf32>) -> tensor<4x4xf32>
    %b = scf.for %i = %c0 to %c1 step %c1 iter_args(%acc = %w) -> (tensor<4x4xf32>) {
      %m = linalg.matmul ins(%acc, %w : tensor<4x4xf32>, tensor<4x4xf32>) outs(%init : tensor<4x4xf32>) -> tensor<4x4xf32>
      scf.yield %m : tensor<4x4xf32>
    }
    %c = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<4xf32>) {
      scf.yield %acc : tensor<4xf32>
    }
    amp.yield %a, %b, %c : tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32>
}

// -----

// A trip count that is not a constant: the loop carries the written type,
// with a remark (PyTorch-exact in the first iteration only).
// CHECK-LABEL: func @dynamic
// CHECK: scf.for {{.*}} -> (tensor<4x4xf32>)
// CHECK-NOT: scf.for
func.func @dynamic(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>, %n: index) -> tensor<4x4xf32> {
  %r = amp.autocast device_type(cuda) -> tensor<4x4xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4x4xf32>
    %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
    // expected-remark @below {{amp-autocast: the body changes the type of a value this loop carries, and its trip count is not a constant: eager mode carries the written type, which PyTorch matches in the first iteration only}}
    %h = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<4x4xf32>) {
      %m = linalg.matmul ins(%acc, %w : tensor<4x4xf32>, tensor<4x4xf32>) outs(%init : tensor<4x4xf32>) -> tensor<4x4xf32>
      scf.yield %m : tensor<4x4xf32>
    }
    amp.yield %h : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}
