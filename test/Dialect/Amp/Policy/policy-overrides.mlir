// RUN: amp-opt %s -split-input-file --amp-autocast=annotate | FileCheck %s
// RUN: amp-opt %s -split-input-file "--amp-autocast=annotate fp32-ops=linalg.matmul lower-ops=math.exp" | FileCheck %s --check-prefix=OPT
// RUN: amp-opt %s -split-input-file "--amp-autocast=annotate remove-lower-ops=linalg.matmul" | FileCheck %s --check-prefix=REMOVE
// RUN: amp-opt %s -split-input-file "--amp-autocast=annotate clear-ops=math.sqrt" | FileCheck %s --check-prefix=CLEAR
// RUN: amp-opt %s -split-input-file "--amp-autocast=annotate keep-ops=math.tanh" | FileCheck %s --check-prefix=KEEP
// RUN: amp-opt %s -split-input-file "--amp-autocast=annotate promote-ops=arith.addf" | FileCheck %s --check-prefix=PROMOTE
// RUN: amp-opt %s -split-input-file "--amp-autocast=annotate infer-ops=linalg.matmul" | FileCheck %s --check-prefix=INFER
// RUN: amp-opt %s -split-input-file "--amp-autocast=annotate remove-fp32-ops=math.exp" | FileCheck %s --check-prefix=RM-FP32
// RUN: amp-opt %s -split-input-file "--amp-autocast=annotate remove-lower-ops=math.exp remove-keep-ops=math.tanh" | FileCheck %s --check-prefix=RM-OTHER
// RUN: amp-opt %s -split-input-file "--amp-autocast=annotate remove-fp32-ops=math.exp lower-ops=math.exp" | FileCheck %s --check-prefix=MOVE

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
// remove-lower-ops takes exp off the lower list the module attribute put it
// on: an infer op, f32 here.
// RM-OTHER-LABEL: func @attributes
// RM-OTHER: math.exp %{{.*}} {amp.compute_type = f32} : tensor<2x2xf32>
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

// -----

// Every list option on one graph-mode region (the default: sqrt of a weight
// infer, f32 (not between low ops); matmul lower; tanh infer, low
// between the matmul and the region results; addf infer, f32 since it adds
// the f32 %b from outside the region (PyTorch type promotion, issue 29 item 3); exp fp32). A remove option only
// acts on an op on that list: remove-lower-ops=math.exp and
// remove-keep-ops=math.tanh change nothing here (RM-OTHER), remove-fp32-ops=math.exp
// makes exp infer, and removing it from fp32 while adding it to lower moves
// it (MOVE).
// CHECK-LABEL: func @lists
// CHECK: math.sqrt %{{.*}} {amp.compute_type = f32} : tensor<2x2xf32>
// CHECK: linalg.matmul {amp.compute_type = f16}
// CHECK: math.tanh %{{.*}} {amp.compute_type = f16} : tensor<2x2xf16>
// CHECK: arith.addf %{{.*}} {amp.compute_type = f32} : tensor<2x2xf32>
// CHECK: math.exp %{{.*}} {amp.compute_type = f32} : tensor<2x2xf32>
// RM-OTHER-LABEL: func @lists
// RM-OTHER: linalg.matmul {amp.compute_type = f16}
// RM-OTHER: math.tanh %{{.*}} {amp.compute_type = f16} : tensor<2x2xf16>
// RM-OTHER: math.exp %{{.*}} {amp.compute_type = f32} : tensor<2x2xf32>
// A clear op next to a low op is low: the weight is cast before the sqrt.
// CLEAR-LABEL: func @lists
// CLEAR-SAME: (%{{.*}}: tensor<2x2xf32>, %[[W:.*]]: tensor<2x2xf32>,
// CLEAR: %[[WH:.*]] = amp.cast %[[W]] : tensor<2x2xf32> to tensor<2x2xf16>
// CLEAR: math.sqrt %[[WH]] {amp.compute_type = f16} : tensor<2x2xf16>
// A keep op reads its operands at their written types.
// KEEP-LABEL: func @lists
// KEEP: %[[M:.*]] = linalg.matmul {amp.compute_type = f16}
// KEEP: %[[MF:.*]] = amp.cast %[[M]] : tensor<2x2xf16> to tensor<2x2xf32>
// KEEP: math.tanh %[[MF]] : tensor<2x2xf32>
// A promote op runs at its widest input: f16 + f32 is f32.
// PROMOTE-LABEL: func @lists
// PROMOTE: arith.addf %{{.*}}, %{{.*}} {amp.compute_type = f32} : tensor<2x2xf32>
// INFER-LABEL: func @lists
// INFER: linalg.matmul {amp.compute_type = f32} ins(%{{.*}}, %{{.*}} : tensor<2x2xf32>, tensor<2x2xf32>)
// INFER: math.tanh %{{.*}} {amp.compute_type = f32}
// RM-FP32-LABEL: func @lists
// RM-FP32: math.exp %{{.*}} {amp.compute_type = f16} : tensor<2x2xf16>
// MOVE-LABEL: func @lists
// MOVE: math.exp %{{.*}} {amp.compute_type = f16} : tensor<2x2xf16>
func.func @lists(%x: tensor<2x2xf32>, %w: tensor<2x2xf32>, %b: tensor<2x2xf32>)
    -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
  %r:4 = amp.autocast device_type(cuda) -> (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>) {
    %e = tensor.empty() : tensor<2x2xf32>
    %wt = math.sqrt %w : tensor<2x2xf32>
    %m = linalg.matmul ins(%x, %wt : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
    %k = math.tanh %m : tensor<2x2xf32>
    %s = arith.addf %m, %b : tensor<2x2xf32>
    %x2 = math.exp %m : tensor<2x2xf32>
    amp.yield %k, %s, %x2, %m : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
  }
  return %r#0, %r#1, %r#2, %r#3 : tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>
}
