// RUN: amp-opt %s -split-input-file --amp-autocast=annotate | FileCheck %s
// RUN: amp-opt %s -split-input-file "--amp-autocast=annotate fp32-ops=linalg.matmul lower-ops=math.exp" | FileCheck %s --check-prefix=OPT
// RUN: amp-opt %s -split-input-file "--amp-autocast=annotate remove-lower-ops=linalg.matmul" | FileCheck %s --check-prefix=REMOVE

// The default policy: matmul lower, exp fp32 (PyTorch CUDA lists).
// Pass options override it: fp32-ops / lower-ops move ops between lists;
// remove-lower-ops makes matmul an unlisted (infer) op, which runs at its
// input type.
// CHECK-LABEL: func @options
// CHECK: linalg.matmul {amp.compute_type = f16}
// CHECK: math.exp %{{.*}} {amp.compute_type = f32}
// OPT-LABEL: func @options
// OPT: linalg.matmul {amp.compute_type = f32}
// OPT: math.exp %{{.*}} {amp.compute_type = f16}
// REMOVE-LABEL: func @options
// REMOVE: linalg.matmul {amp.compute_type = f32}
// REMOVE: math.exp %{{.*}} {amp.compute_type = f32}
func.func @options(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %r = amp.autocast device_type(cuda) -> tensor<2x2xf32> {
    %e = tensor.empty() : tensor<2x2xf32>
    %m = linalg.matmul ins(%x, %x : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
    %s = math.exp %m : tensor<2x2xf32>
    amp.yield %s : tensor<2x2xf32>
  }
  return %r : tensor<2x2xf32>
}

// -----

// #amp.policy in the IR: on the module, the function and the autocast op;
// the innermost wins. Pass options win over attributes.
// CHECK-LABEL: func @attributes
// CHECK: math.exp %{{.*}} {amp.compute_type = f16} : tensor<2x2xf16>
// CHECK: math.log %{{.*}} {amp.compute_type = f16} : tensor<2x2xf16>
// CHECK: math.tanh %{{.*}} {amp.compute_type = f32} : tensor<2x2xf32>
// OPT-LABEL: func @attributes
// OPT: math.exp %{{.*}} {amp.compute_type = f16}
module attributes {amp.policy = #amp.policy<lower = ["math.exp", "math.log"]>} {
  func.func @attributes(%x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>)
      attributes {amp.policy = #amp.policy<fp32 = ["math.tanh"]>} {
    %r:3 = amp.autocast device_type(cuda) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>)
        attributes {amp.policy = #amp.policy<lower = ["math.log"]>} {
      %a = math.exp %x : tensor<2x2xf32>
      %b = math.log %x : tensor<2x2xf32>
      %c = math.tanh %x : tensor<2x2xf32>
      amp.yield %a, %b, %c : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
    }
    return %r#0, %r#1, %r#2 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
  }
}

// -----

// keep: an op that cannot be retyped reads its operands at the types it was
// written with (here func.call, which no policy lists).
// CHECK-LABEL: func @keep_call
// CHECK: %[[M:.*]] = linalg.matmul {amp.compute_type = f16}
// CHECK: %[[MF:.*]] = amp.cast %[[M]] : tensor<2x2xf16> to tensor<2x2xf32>
// CHECK: call @opaque(%[[MF]]) : (tensor<2x2xf32>) -> tensor<2x2xf32>
func.func private @opaque(tensor<2x2xf32>) -> tensor<2x2xf32>
func.func @keep_call(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %r = amp.autocast device_type(cuda) -> tensor<2x2xf32> {
    %e = tensor.empty() : tensor<2x2xf32>
    %m = linalg.matmul ins(%x, %x : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
    %c = func.call @opaque(%m) : (tensor<2x2xf32>) -> tensor<2x2xf32>
    amp.yield %c : tensor<2x2xf32>
  }
  return %r : tensor<2x2xf32>
}
