// Both modes on both devices (cuda: f16, cpu: bf16).
// RUN: sed 's/DEVICE/cuda/' %s | amp-opt -split-input-file --amp-autocast=annotate | FileCheck %s --check-prefixes=CHECK,GRAPH -DLOW=f16
// RUN: sed 's/DEVICE/cuda/' %s | amp-opt -split-input-file "--amp-autocast=annotate mode=eager" | FileCheck %s --check-prefixes=CHECK,EAGER -DLOW=f16
// RUN: sed 's/DEVICE/cpu/' %s | amp-opt -split-input-file --amp-autocast=annotate | FileCheck %s --check-prefixes=CHECK,GRAPH -DLOW=bf16
// RUN: sed 's/DEVICE/cpu/' %s | amp-opt -split-input-file "--amp-autocast=annotate mode=eager" | FileCheck %s --check-prefixes=CHECK,EAGER -DLOW=bf16

// Lower ops run low, fp32 ops f32. Values from outside are cast once at
// region entry; the region result is extended back to its declared f32.
// CHECK-LABEL: func @infer_between_lower
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[W1:.*]]: tensor<8x8xf32>, %[[W2:.*]]: tensor<8x8xf32>, %[[B:.*]]: tensor<4x8xf32>)
// The add of an f16 tensor and an f32 tensor from outside the region runs in
// f32 in both modes (PyTorch type promotion; graph mode used to paint it low
// and cast the bias, issue 29 item 3); see @infer_between_lower_inside for
// an infer op between lower ops that graph mode paints low.
// CHECK-DAG: %[[W2H:.*]] = amp.cast %[[W2]] : tensor<8x8xf32> to tensor<8x8x[[LOW]]>
// CHECK-DAG: %[[W1H:.*]] = amp.cast %[[W1]] : tensor<8x8xf32> to tensor<8x8x[[LOW]]>
// CHECK-DAG: %[[XH:.*]] = amp.cast %[[X]] : tensor<4x8xf32> to tensor<4x8x[[LOW]]>
// CHECK: %[[H:.*]] = linalg.matmul {amp.compute_type = [[LOW]]} ins(%[[XH]], %[[W1H]] : tensor<4x8x[[LOW]]>, tensor<8x8x[[LOW]]>) outs(%{{.*}} : tensor<4x8x[[LOW]]>)
// CHECK: %[[HF:.*]] = amp.cast %[[H]] : tensor<4x8x[[LOW]]> to tensor<4x8xf32>
// CHECK: %[[A:.*]] = arith.addf %[[HF]], %[[B]] {amp.compute_type = f32} : tensor<4x8xf32>
// CHECK: linalg.matmul {amp.compute_type = [[LOW]]} ins(%{{.*}}, %[[W2H]] : tensor<4x8x[[LOW]]>, tensor<8x8x[[LOW]]>)
// CHECK: %[[YF:.*]] = amp.cast %{{.*}} : tensor<4x8x[[LOW]]> to tensor<4x8xf32>
// CHECK: %[[S:.*]] = math.exp %[[YF]] {amp.compute_type = f32} : tensor<4x8xf32>
// CHECK: return %[[S]]
// CHECK-NOT: amp.autocast
func.func @infer_between_lower(%x: tensor<4x8xf32>, %w1: tensor<8x8xf32>, %w2: tensor<8x8xf32>,
                               %b: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %r = amp.autocast device_type(DEVICE) -> tensor<4x8xf32> {
    %e = tensor.empty() : tensor<4x8xf32>
    %h = linalg.matmul ins(%x, %w1 : tensor<4x8xf32>, tensor<8x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
    %a = arith.addf %h, %b : tensor<4x8xf32>
    %y = linalg.matmul ins(%a, %w2 : tensor<4x8xf32>, tensor<8x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
    %s = math.exp %y : tensor<4x8xf32>
    amp.yield %s : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}

// -----

// An infer op between two lower ops whose inputs come from inside the region
// is low in graph mode (TensorFlow's AddClearAndInferToAllowIfBetweenAllow);
// eager mode runs it at its widest input, also low here.
// CHECK-LABEL: func @infer_between_lower_inside
// CHECK: %[[H:.*]] = linalg.matmul {amp.compute_type = [[LOW]]}
// CHECK: %[[A:.*]] = arith.addf %[[H]], %[[H]] {amp.compute_type = [[LOW]]} : tensor<4x8x[[LOW]]>
// CHECK: linalg.matmul {amp.compute_type = [[LOW]]} ins(%[[A]], %{{.*}} : tensor<4x8x[[LOW]]>, tensor<8x8x[[LOW]]>)
func.func @infer_between_lower_inside(%x: tensor<4x8xf32>, %w1: tensor<8x8xf32>, %w2: tensor<8x8xf32>) -> tensor<4x8xf32> {
  %r = amp.autocast device_type(DEVICE) -> tensor<4x8xf32> {
    %e = tensor.empty() : tensor<4x8xf32>
    %h = linalg.matmul ins(%x, %w1 : tensor<4x8xf32>, tensor<8x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
    %a = arith.addf %h, %h : tensor<4x8xf32>
    %y = linalg.matmul ins(%a, %w2 : tensor<4x8xf32>, tensor<8x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
    %s = math.exp %y : tensor<4x8xf32>
    amp.yield %s : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}

// -----

// Case C09: pred * pred summed, pred from an f16 matmul. Graph mode keeps the
// mul f32 (it sits between a lower op and an fp32 op); eager mode squares in
// f16, exactly as PyTorch eager autocast runs the same ops (300^2 overflows).
// CHECK-LABEL: func @c09
// CHECK: %[[P:.*]] = linalg.matmul {amp.compute_type = [[LOW]]}
// GRAPH: %[[PF:.*]] = amp.cast %[[P]] : tensor<1x1x[[LOW]]> to tensor<1x1xf32>
// GRAPH: %[[SQ:.*]] = arith.mulf %[[PF]], %[[PF]] {amp.compute_type = f32} : tensor<1x1xf32>
// GRAPH: tosa.reduce_sum %[[SQ]] {amp.compute_type = f32
// EAGER: %[[SQ:.*]] = arith.mulf %[[P]], %[[P]] {amp.compute_type = [[LOW]]} : tensor<1x1x[[LOW]]>
// EAGER: %[[SQF:.*]] = amp.cast %[[SQ]] : tensor<1x1x[[LOW]]> to tensor<1x1xf32>
// EAGER: tosa.reduce_sum %[[SQF]] {amp.compute_type = f32
// CHECK: tensor.collapse_shape {{.*}} {amp.compute_type = f32} : tensor<1x1xf32> into tensor<1xf32>
func.func @c09(%x: tensor<1x1xf32>, %w: tensor<1x1xf32>) -> tensor<1xf32> {
  %r = amp.autocast device_type(DEVICE) -> tensor<1xf32> {
    %e = tensor.empty() : tensor<1x1xf32>
    %p = linalg.matmul ins(%x, %w : tensor<1x1xf32>, tensor<1x1xf32>) outs(%e : tensor<1x1xf32>) -> tensor<1x1xf32>
    %sq = arith.mulf %p, %p : tensor<1x1xf32>
    %sum = tosa.reduce_sum %sq {axis = 1 : i32} : (tensor<1x1xf32>) -> tensor<1x1xf32>
    %s = tensor.collapse_shape %sum [[0, 1]] : tensor<1x1xf32> into tensor<1xf32>
    amp.yield %s : tensor<1xf32>
  }
  return %r : tensor<1xf32>
}

// -----

// Graph mode: an infer op between a lower op and the region's result runs
// low (the cast back to f32 happens at the yield); fp32 spreads forward into
// an infer op that feeds an fp32 op.
// CHECK-LABEL: func @sink_and_fp32_forward
// CHECK: linalg.matmul {amp.compute_type = [[LOW]]}
// GRAPH: arith.negf %{{.*}} {amp.compute_type = [[LOW]]} : tensor<2x2x[[LOW]]>
// EAGER: arith.negf %{{.*}} {amp.compute_type = [[LOW]]} : tensor<2x2x[[LOW]]>
// CHECK: math.log %{{.*}} {amp.compute_type = f32} : tensor<2x2xf32>
// CHECK: arith.mulf %{{.*}} {amp.compute_type = f32} : tensor<2x2xf32>
// CHECK: math.exp %{{.*}} {amp.compute_type = f32} : tensor<2x2xf32>
func.func @sink_and_fp32_forward(%x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %r:2 = amp.autocast device_type(DEVICE) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
    %e = tensor.empty() : tensor<2x2xf32>
    %m = linalg.matmul ins(%x, %x : tensor<2x2xf32>, tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
    %n = arith.negf %m : tensor<2x2xf32>
    %l = math.log %x : tensor<2x2xf32>
    %k = arith.mulf %l, %l : tensor<2x2xf32>
    %q = math.exp %k : tensor<2x2xf32>
    amp.yield %n, %q : tensor<2x2xf32>, tensor<2x2xf32>
  }
  return %r#0, %r#1 : tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// f64 and integer values are never touched.
// CHECK-LABEL: func @f64_and_int
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x4xf64>, tensor<4x4xf64>) outs(%{{.*}} : tensor<4x4xf64>)
// CHECK: arith.addi %{{.*}} : tensor<4xi32>
// CHECK: linalg.matmul {amp.compute_type = [[LOW]]} ins({{.*}} : tensor<4x4x[[LOW]]>, tensor<4x4x[[LOW]]>)
func.func @f64_and_int(%x: tensor<4x4xf64>, %i: tensor<4xi32>, %f: tensor<4x4xf32>) -> (tensor<4x4xf64>, tensor<4xi32>, tensor<4x4xf32>) {
  %r:3 = amp.autocast device_type(DEVICE) -> (tensor<4x4xf64>, tensor<4xi32>, tensor<4x4xf32>) {
    %e = tensor.empty() : tensor<4x4xf64>
    %m = linalg.matmul ins(%x, %x : tensor<4x4xf64>, tensor<4x4xf64>) outs(%e : tensor<4x4xf64>) -> tensor<4x4xf64>
    %j = arith.addi %i, %i : tensor<4xi32>
    %ef = tensor.empty() : tensor<4x4xf32>
    %mf = linalg.matmul ins(%f, %f : tensor<4x4xf32>, tensor<4x4xf32>) outs(%ef : tensor<4x4xf32>) -> tensor<4x4xf32>
    amp.yield %m, %j, %mf : tensor<4x4xf64>, tensor<4xi32>, tensor<4x4xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<4x4xf64>, tensor<4xi32>, tensor<4x4xf32>
}

// -----

// A clear op before a lower op moves low data only where all its users are
// low and the region does not return it: %t (a transpose of f32 input) also
// feeds an fp32 op and is returned, so it stays f32 and is cast after it
// for the matmul (one cast; log and the result read unrounded data); %u
// feeds the matmul only and moves low data (the cast is before it).
// CHECK-LABEL: func @clear_before_lower
// CHECK-SAME: (%[[X:.*]]: tensor<8x6xf32>, %[[W:.*]]: tensor<6x8xf32>)
// GRAPH: %[[WL:.*]] = amp.cast %[[W]] : tensor<6x8xf32> to tensor<6x8x[[LOW]]>
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[X]] : tensor<8x6xf32>) {{.*}} {amp.compute_type = f32}
// CHECK: %[[TL:.*]] = amp.cast %[[T]] : tensor<6x8xf32> to tensor<6x8x[[LOW]]>
// GRAPH: %[[U:.*]] = linalg.transpose ins(%[[WL]] : tensor<6x8x[[LOW]]>) {{.*}} {amp.compute_type = [[LOW]]}
// EAGER: %[[UF:.*]] = linalg.transpose ins(%[[W]] : tensor<6x8xf32>) {{.*}} {amp.compute_type = f32}
// EAGER: %[[U:.*]] = amp.cast %[[UF]] : tensor<8x6xf32> to tensor<8x6x[[LOW]]>
// CHECK: linalg.matmul {amp.compute_type = [[LOW]]} ins(%[[TL]], %[[U]] : tensor<6x8x[[LOW]]>, tensor<8x6x[[LOW]]>)
// CHECK: %[[LOG:.*]] = linalg.log {amp.compute_type = f32} ins(%[[T]] : tensor<6x8xf32>)
// CHECK: return %{{.*}}, %[[LOG]], %[[T]]
func.func @clear_before_lower(%x: tensor<8x6xf32>, %w: tensor<6x8xf32>)
    -> (tensor<6x6xf32>, tensor<6x8xf32>, tensor<6x8xf32>)
    attributes {amp.autocast = #amp.autocast<device_type = DEVICE>} {
  %z = arith.constant 0.0 : f32
  %et = tensor.empty() : tensor<6x8xf32>
  %t = linalg.transpose ins(%x : tensor<8x6xf32>) outs(%et : tensor<6x8xf32>) permutation = [1, 0]
  %eu = tensor.empty() : tensor<8x6xf32>
  %u = linalg.transpose ins(%w : tensor<6x8xf32>) outs(%eu : tensor<8x6xf32>) permutation = [1, 0]
  %e = tensor.empty() : tensor<6x6xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<6x6xf32>) -> tensor<6x6xf32>
  %m = linalg.matmul ins(%t, %u : tensor<6x8xf32>, tensor<8x6xf32>) outs(%f : tensor<6x6xf32>) -> tensor<6x6xf32>
  %l = linalg.log ins(%t : tensor<6x8xf32>) outs(%et : tensor<6x8xf32>) -> tensor<6x8xf32>
  return %m, %l, %t : tensor<6x6xf32>, tensor<6x8xf32>, tensor<6x8xf32>
}

// -----

// The same through a branch's and a loop's results: %t, yielded by the
// scf.if and carried by the scf.for, leaves the graph, so it stays f32
// (painted low, the branch returned a rounded transpose, and the loop
// rounded the carried value every iteration).
// CHECK-LABEL: func @clear_through_branch
// CHECK: %[[T:.*]] = linalg.transpose {{.*}} {amp.compute_type = f32}
// CHECK: scf.if
// CHECK: linalg.matmul {amp.compute_type = [[LOW]]}
// CHECK: } else {
// CHECK-NEXT: scf.yield %[[T]] : tensor<2x2xf32>
// CHECK: scf.for
// CHECK: %[[C:.*]] = linalg.transpose {{.*}} {amp.compute_type = f32}
// CHECK: linalg.matmul {amp.compute_type = [[LOW]]}
// CHECK: scf.yield %[[C]], %{{.*}} : tensor<2x2xf32>, tensor<2x2x{{.*}}>
func.func @clear_through_branch(%x: tensor<2x2xf32>, %p: i1, %n: index)
    -> (tensor<2x2xf32>, tensor<2x2xf32>)
    attributes {amp.autocast = #amp.autocast<device_type = DEVICE>} {
  %z = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %et = tensor.empty() : tensor<2x2xf32>
  %t = linalg.transpose ins(%x : tensor<2x2xf32>) outs(%et : tensor<2x2xf32>) permutation = [1, 0]
  %r = scf.if %p -> tensor<2x2xf32> {
    %e = tensor.empty() : tensor<2x2xf32>
    %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
    %m = linalg.matmul ins(%t, %t : tensor<2x2xf32>, tensor<2x2xf32>) outs(%f : tensor<2x2xf32>) -> tensor<2x2xf32>
    scf.yield %m : tensor<2x2xf32>
  } else {
    scf.yield %t : tensor<2x2xf32>
  }
  %l:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x, %acc = %x) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
    %ec = tensor.empty() : tensor<2x2xf32>
    %c = linalg.transpose ins(%a : tensor<2x2xf32>) outs(%ec : tensor<2x2xf32>) permutation = [1, 0]
    %e = tensor.empty() : tensor<2x2xf32>
    %f = linalg.fill ins(%z : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
    %m = linalg.matmul ins(%c, %c : tensor<2x2xf32>, tensor<2x2xf32>) outs(%f : tensor<2x2xf32>) -> tensor<2x2xf32>
    scf.yield %c, %m : tensor<2x2xf32>, tensor<2x2xf32>
  }
  return %r, %l#0 : tensor<2x2xf32>, tensor<2x2xf32>
}
