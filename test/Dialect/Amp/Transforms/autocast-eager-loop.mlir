// RUN: amp-opt %s -split-input-file --amp-autocast="mode=eager" -verify-diagnostics | FileCheck %s

// Eager mode and a loop whose body turns the carried value from f32 into
// f16 (the matmul's result): PyTorch runs the second iteration on that f16
// value. The first iteration is peeled (inlined before the loop, on the
// written f32 input), and the other three iterations carry f16; the sin
// after the loop runs in f16, as in PyTorch.
// CHECK-LABEL: func @peeled
// CHECK: %[[X16:.*]] = amp.cast %arg0 : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK: %[[M1:.*]] = linalg.matmul ins(%[[X16]], %{{.*}} : tensor<4x4xf16>, tensor<4x4xf16>)
// CHECK: %[[T1:.*]] = math.tanh %[[M1]] : tensor<4x4xf16>
// CHECK: %[[NEXT:.*]] = arith.addi %c0, %c1 : index
// CHECK: %[[REST:.*]] = scf.for %{{.*}} = %[[NEXT]] to %c4 step %c1 iter_args(%[[B:.*]] = %[[T1]]) -> (tensor<4x4xf16>)
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

// One trip: the iteration is inlined and its f16 result is what the ops
// after the loop read (PyTorch's tensor after one iteration is f16).
// CHECK-LABEL: func @one_trip
// CHECK-NOT: scf.for
// CHECK: %[[M:.*]] = linalg.matmul {{.*}} -> tensor<4x4xf16>
// CHECK: %[[S:.*]] = math.sin %[[M]] : tensor<4x4xf16>
// CHECK: amp.cast %[[S]] : tensor<4x4xf16> to tensor<4x4xf32>
func.func @one_trip(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = amp.autocast device_type(cuda) -> tensor<4x4xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4x4xf32>
    %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
    %h = scf.for %i = %c0 to %c1 step %c1 iter_args(%acc = %x) -> (tensor<4x4xf32>) {
      %m = linalg.matmul ins(%acc, %w : tensor<4x4xf32>, tensor<4x4xf32>) outs(%init : tensor<4x4xf32>) -> tensor<4x4xf32>
      scf.yield %m : tensor<4x4xf32>
    }
    %s = math.sin %h : tensor<4x4xf32>
    amp.yield %s : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}

// -----

// An initial value that arrives in f16 (a matmul's result): the first
// iteration already runs on f16, as in PyTorch; the body keeps the type,
// so the loop carries f16 with no casts and is not peeled.
// CHECK-LABEL: func @low_init
// CHECK: %[[M:.*]] = linalg.matmul {{.*}} -> tensor<4x4xf16>
// CHECK: %[[L:.*]] = scf.for {{.*}} iter_args(%[[A:.*]] = %[[M]]) -> (tensor<4x4xf16>)
// CHECK-NOT: amp.cast
// CHECK:   %[[SQ:.*]] = arith.mulf %[[A]], %[[A]] : tensor<4x4xf16>
// CHECK:   %[[AD:.*]] = arith.addf %[[SQ]], %[[A]] : tensor<4x4xf16>
// CHECK:   scf.yield %[[AD]] : tensor<4x4xf16>
// CHECK: amp.cast %[[L]] : tensor<4x4xf16> to tensor<4x4xf32>
func.func @low_init(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = amp.autocast device_type(cuda) -> tensor<4x4xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4x4xf32>
    %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
    %m = linalg.matmul ins(%x, %w : tensor<4x4xf32>, tensor<4x4xf32>) outs(%init : tensor<4x4xf32>) -> tensor<4x4xf32>
    %h = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %m) -> (tensor<4x4xf32>) {
      %sq = arith.mulf %acc, %acc : tensor<4x4xf32>
      %ad = arith.addf %sq, %acc : tensor<4x4xf32>
      scf.yield %ad : tensor<4x4xf32>
    }
    amp.yield %h : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}

// -----

// A body that keeps the carried type (exp is on the fp32 list), and a
// carried value the body passes through: nothing to peel.
// CHECK-LABEL: func @not_peeled
// CHECK: scf.for {{.*}} -> (tensor<4xf32>)
// CHECK:   math.exp %{{.*}} : tensor<4xf32>
// CHECK: scf.for {{.*}} -> (tensor<4xf32>)
// CHECK-NOT: scf.for
func.func @not_peeled(%x: tensor<4xf32>, %n: index) -> (tensor<4xf32>, tensor<4xf32>) {
  %r:2 = amp.autocast device_type(cuda) -> (tensor<4xf32>, tensor<4xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %a = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> (tensor<4xf32>) {
      %e = math.exp %acc : tensor<4xf32>
      scf.yield %e : tensor<4xf32>
    }
    %c = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<4xf32>) {
      scf.yield %acc : tensor<4xf32>
    }
    amp.yield %a, %c : tensor<4xf32>, tensor<4xf32>
  }
  return %r#0, %r#1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// A trip count that is not a constant: the loop carries the types of its
// first iteration, with a remark (PyTorch-exact in that iteration only).
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
    // expected-remark @below {{amp-autocast: the body changes the type of a value this loop carries, and its trip count is not a constant: eager mode carries the types of the first iteration, which PyTorch matches in that iteration only}}
    %h = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<4x4xf32>) {
      %m = linalg.matmul ins(%acc, %w : tensor<4x4xf32>, tensor<4x4xf32>) outs(%init : tensor<4x4xf32>) -> tensor<4x4xf32>
      scf.yield %m : tensor<4x4xf32>
    }
    amp.yield %h : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}

// -----

// Two carried values of different types that trade places every iteration
// (the second starts as a matmul's f16 result): the types change again in
// the second iteration; the copy carries the first iteration's types, with a
// remark.
// CHECK-LABEL: func @swapped
// CHECK: scf.for {{.*}} -> (tensor<4x4xf16>, tensor<4x4xf32>)
func.func @swapped(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = amp.autocast device_type(cuda) -> tensor<4x4xf32> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4x4xf32>
    %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
    %m = linalg.matmul ins(%x, %w : tensor<4x4xf32>, tensor<4x4xf32>) outs(%init : tensor<4x4xf32>) -> tensor<4x4xf32>
    // expected-remark @below {{amp-autocast: the body changes the type of a value this loop carries again in its second iteration: eager mode carries the type of the first, which PyTorch matches in the first two iterations only}}
    %h:2 = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %x, %b = %m) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
      scf.yield %b, %a : tensor<4x4xf32>, tensor<4x4xf32>
    }
    amp.yield %h#0 : tensor<4x4xf32>
  }
  return %r : tensor<4x4xf32>
}
