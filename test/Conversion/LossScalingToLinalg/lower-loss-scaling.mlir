// RUN: amp-opt %s -split-input-file --amp-lower-loss-scaling | FileCheck %s

// CHECK-LABEL: func @init
// CHECK-DAG: arith.constant dense<6.553600e+04> : tensor<f32>
// CHECK-DAG: arith.constant dense<0> : tensor<i32>
// CHECK-NOT: amp.
func.func @init() -> (tensor<f32>, tensor<i32>) {
  %s, %t = amp.init_loss_scale
  return %s, %t : tensor<f32>, tensor<i32>
}

// -----

// The product is taken in f32 and rounded once to the loss type. The scale
// stays a 0-d tensor the generic reads (broadcast), not a scalar the host
// extracts (under amp-cuda-pipeline a wait in the middle of the step).
// CHECK-LABEL: func @scale_f16
// CHECK-SAME: (%[[L:.*]]: tensor<2x?xf16>, %[[SC:.*]]: tensor<f32>)
// CHECK-NOT: tensor.extract
// CHECK: linalg.generic {indexing_maps = [#[[ID:.*]], #[[TO0D:.*]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%[[L]], %[[SC]] : tensor<2x?xf16>, tensor<f32>) outs(%{{.*}} : tensor<2x?xf16>)
// CHECK:   ^bb0(%[[X:.*]]: f16, %[[S:.*]]: f32, %{{.*}}: f16):
// CHECK:   %[[W:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK:   %[[P:.*]] = arith.mulf %[[W]], %[[S]] : f32
// CHECK:   arith.truncf %[[P]] : f32 to f16
// CHECK-NOT: tensor.extract
func.func @scale_f16(%l: tensor<2x?xf16>, %s: tensor<f32>) -> tensor<2x?xf16> {
  %0 = amp.scale_loss %l, %s : tensor<2x?xf16>
  return %0 : tensor<2x?xf16>
}

// -----

// CHECK-LABEL: func @scale_scalar
// CHECK: %[[S:.*]] = tensor.extract
// CHECK: arith.mulf %{{.*}}, %[[S]] : f32
func.func @scale_scalar(%l: f32, %s: tensor<f32>) -> f32 {
  %0 = amp.scale_loss %l, %s : f32
  return %0 : f32
}

// -----

// inv_scale in f64, a 0-d tensor (no host read of the scale); the inf/NaN
// check reads the gradient before unscaling.
// CHECK-LABEL: func @unscale
// CHECK-SAME: (%[[G:.*]]: tensor<4x8xf32>, %[[S:.*]]: tensor<f32>)
// CHECK-NOT: tensor.extract
// CHECK: %[[INV:.*]] = linalg.generic {{.*}} iterator_types = []} ins(%[[S]] : tensor<f32>) outs(%{{.*}} : tensor<f32>)
// CHECK:   ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK:   %[[W:.*]] = arith.extf %[[X]] : f32 to f64
// CHECK:   %[[R:.*]] = arith.divf %{{.*}}, %[[W]] : f64
// CHECK:   arith.truncf %[[R]] : f64 to f32
// The inf/NaN check: one flag per row (parallel over rows), then their or.
// CHECK: %[[ROWS:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[G]] : tensor<4x8xf32>) outs(%{{.*}} : tensor<4xi1>)
// CHECK:   %[[A:.*]] = math.absf
// CHECK:   %[[C:.*]] = arith.cmpf uge, %[[A]], %{{.*}} : f32
// CHECK:   arith.ori %{{.*}}, %[[C]] : i1
// CHECK: %[[ANY:.*]] = linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[ROWS]] : tensor<4xi1>) outs(%{{.*}} : tensor<i1>)
// CHECK-NOT: math.absf
// CHECK:   arith.ori %{{.*}}, %{{.*}} : i1
// The unscaled gradient: an elementwise linalg.generic (which elementwise
// fusion can fold into the optimizer update that reads it).
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[G]], %[[INV]] : tensor<4x8xf32>, tensor<f32>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK:   ^bb0(%[[GX:.*]]: f32, %[[IX:.*]]: f32, %{{.*}}: f32):
// CHECK:   arith.mulf %[[GX]], %[[IX]] : f32
// CHECK: %[[FOUND:.*]] = tensor.extract %[[ANY]][]
// CHECK: return %{{.*}}, %[[FOUND]]
func.func @unscale(%g: tensor<4x8xf32>, %s: tensor<f32>) -> (tensor<4x8xf32>, i1) {
  %u, %inf = amp.unscale %g by %s : tensor<4x8xf32>
  return %u, %inf : tensor<4x8xf32>, i1
}

// -----

// A 1-D gradient is checked in one full reduction; a dynamic first dimension
// sizes the row flags. The row flags come first; then each gradient's
// flags are or-ed into the 0-d flag of the ones before (the first starts
// from false), one after another (one kernel under amp-cuda-pipeline), and
// the flag is read once, at the end.
// CHECK-LABEL: func @unscale_ranks
// CHECK-SAME: (%[[B:.*]]: tensor<8xf32>, %[[D:.*]]: tensor<?x3x5xf32>,
// CHECK-NOT: tensor.extract {{.*}} : tensor<i1>
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[N:.*]] = tensor.dim %[[D]], %[[C0]]
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?xi1>
// CHECK: %[[ROWS:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "reduction"]} ins(%[[D]] : tensor<?x3x5xf32>) outs(%{{.*}} : tensor<?xi1>)
// CHECK: %[[NO:.*]] = linalg.fill ins(%false{{.*}} : i1) outs(%{{.*}} : tensor<i1>) -> tensor<i1>
// CHECK-NEXT: %[[FB:.*]] = linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[B]] : tensor<8xf32>) outs(%[[NO]] : tensor<i1>)
// CHECK:   math.absf %{{.*}} : f32
// CHECK: linalg.yield
// CHECK-NEXT: }
// CHECK-NEXT: %[[ANY:.*]] = linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[ROWS]] : tensor<?xi1>) outs(%[[FB]] : tensor<i1>)
// CHECK-NOT: linalg.map
// CHECK-NOT: tensor.extract {{.*}} : tensor<i1>
// CHECK: %[[FOUND:.*]] = tensor.extract %[[ANY]][] : tensor<i1>
// CHECK-NEXT: return %{{.*}}, %{{.*}}, %[[FOUND]]
func.func @unscale_ranks(%b: tensor<8xf32>, %d: tensor<?x3x5xf32>, %s: tensor<f32>)
    -> (tensor<8xf32>, tensor<?x3x5xf32>, i1) {
  %ub, %ud, %inf = amp.unscale %b, %d by %s : tensor<8xf32>, tensor<?x3x5xf32>
  return %ub, %ud, %inf : tensor<8xf32>, tensor<?x3x5xf32>, i1
}

// -----

// CHECK-LABEL: func @update
// CHECK: %[[INTERVAL:.*]] = arith.constant 7 : i32
// CHECK: %[[N:.*]] = arith.addi
// CHECK: %[[REACHED:.*]] = arith.cmpi eq, %[[N]], %[[INTERVAL]]
// CHECK: %[[GF:.*]] = arith.constant 3.000000e+00 : f64
// CHECK: arith.mulf %{{.*}}, %[[GF]] : f64
// CHECK: %[[GROW:.*]] = arith.andi %[[REACHED]]
// CHECK: %[[FS:.*]] = arith.select %[[GROW]]
// CHECK: %[[FT:.*]] = arith.select %[[REACHED]]
// CHECK: %[[BF:.*]] = arith.constant 1.250000e-01 : f64
// CHECK: arith.mulf %{{.*}}, %[[BF]] : f64
// CHECK: %[[NS:.*]] = arith.select %{{.*}}, %{{.*}}, %[[FS]] : f32
// CHECK: %[[NT:.*]] = arith.select %{{.*}}, %{{.*}}, %[[FT]] : i32
// CHECK: tensor.from_elements %[[NS]] : tensor<f32>
// CHECK: tensor.from_elements %[[NT]] : tensor<i32>
func.func @update(%s: tensor<f32>, %t: tensor<i32>, %inf: i1) -> (tensor<f32>, tensor<i32>) {
  %ns, %nt = amp.update_scale %s, %t, %inf {growth_factor = 3.0, backoff_factor = 0.125, growth_interval = 7 : i32}
  return %ns, %nt : tensor<f32>, tensor<i32>
}

// -----

// CHECK-LABEL: func @step
// CHECK-SAME: (%[[W:.*]]: tensor<4xf32>, %[[G:.*]]: tensor<4xf32>, %[[INF:.*]]: i1)
// CHECK: %[[R:.*]] = scf.if %[[INF]] -> (tensor<4xf32>) {
// CHECK:   scf.yield %[[W]] : tensor<4xf32>
// CHECK: } else {
// CHECK:   %[[N:.*]] = arith.subf %[[W]], %[[G]]
// CHECK:   scf.yield %[[N]] : tensor<4xf32>
// CHECK: return %[[R]]
func.func @step(%w: tensor<4xf32>, %g: tensor<4xf32>, %inf: i1) -> tensor<4xf32> {
  %r = amp.step_if_finite %inf keep(%w : tensor<4xf32>) {
    %n = arith.subf %w, %g : tensor<4xf32>
    amp.yield %n : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// Without kept values (an update with side effects only) the scf.if has no
// results and the update is its else branch.
// CHECK-LABEL: func @step_side_effects
// CHECK-SAME: (%[[M:.*]]: memref<4xf32>, %[[V:.*]]: f32, %[[INF:.*]]: i1)
// CHECK: scf.if %[[INF]] {
// CHECK-NEXT: } else {
// CHECK-NEXT:   %[[C:.*]] = arith.constant 0 : index
// CHECK-NEXT:   memref.store %[[V]], %[[M]][%[[C]]]
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @step_side_effects(%m: memref<4xf32>, %v: f32, %inf: i1) {
  amp.step_if_finite %inf keep() {
    %c0 = arith.constant 0 : index
    memref.store %v, %m[%c0] : memref<4xf32>
    amp.yield
  }
  return
}

// -----

// An unscaled gradient used only by the update is unscaled in the update's
// branch (only when the step runs; there elementwise fusion folds the
// multiply into the update); one also used outside it (here returned, as
// for gradient clipping) is unscaled before the branch.
// CHECK-LABEL: func @unscale_in_update
// CHECK-SAME: (%[[W:[^:]*]]: tensor<4xf32>, %[[G:[^:]*]]: tensor<4xf32>, %[[H:[^:]*]]: tensor<4xf32>,
// CHECK: %[[INV:.*]] = linalg.generic {{.*}} iterator_types = []}
// CHECK: %[[UH:.*]] = linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%[[H]], %[[INV]] : tensor<4xf32>, tensor<f32>)
// CHECK: scf.if
// CHECK: } else {
// CHECK-NEXT: tensor.empty() : tensor<4xf32>
// CHECK-NEXT: %[[UG:.*]] = linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%[[G]], %[[INV]] : tensor<4xf32>, tensor<f32>)
// CHECK: arith.subf %[[W]], %[[UG]]
// CHECK: arith.subf {{.*}}, %[[UH]]
// CHECK: return {{.*}}, %[[UH]]
func.func @unscale_in_update(%w: tensor<4xf32>, %g: tensor<4xf32>, %h: tensor<4xf32>,
                             %s: tensor<f32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %ug, %uh, %inf = amp.unscale %g, %h by %s : tensor<4xf32>, tensor<4xf32>
  %r = amp.step_if_finite %inf keep(%w : tensor<4xf32>) {
    %n = arith.subf %w, %ug : tensor<4xf32>
    %m = arith.subf %n, %uh : tensor<4xf32>
    amp.yield %m : tensor<4xf32>
  }
  return %r, %uh : tensor<4xf32>, tensor<4xf32>
}

// -----

// A 0-d gradient's check (no loops) comes after the reductions of the
// others, so that those stay one run into the flag.
// CHECK-LABEL: func @unscale_rank0_last
// CHECK-SAME: (%[[Z:[^:]*]]: tensor<f32>, %[[B:[^:]*]]: tensor<8xf32>, %[[C:[^:]*]]: tensor<4xf32>,
// CHECK: %[[F1:.*]] = linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[B]] : tensor<8xf32>)
// CHECK: %[[F2:.*]] = linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[C]] : tensor<4xf32>) outs(%[[F1]] : tensor<i1>)
// CHECK: %[[F3:.*]] = linalg.generic {{.*}} iterator_types = []} ins(%[[Z]] : tensor<f32>) outs(%[[F2]] : tensor<i1>)
// CHECK: tensor.extract %[[F3]][] : tensor<i1>
func.func @unscale_rank0_last(%z: tensor<f32>, %b: tensor<8xf32>, %c: tensor<4xf32>, %s: tensor<f32>)
    -> (tensor<f32>, tensor<8xf32>, tensor<4xf32>, i1) {
  %uz, %ub, %uc, %inf = amp.unscale %z, %b, %c by %s : tensor<f32>, tensor<8xf32>, tensor<4xf32>
  return %uz, %ub, %uc, %inf : tensor<f32>, tensor<8xf32>, tensor<4xf32>, i1
}
