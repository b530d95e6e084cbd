// The front end of both pipelines (here amp-cpu-pipeline's, printed after
// its elementwise fusion): amp.unscale's gradient multiply is used only by
// the optimizer update inside amp.step_if_finite's branch, so
// amp-lower-loss-scaling puts it in that branch and elementwise fusion
// folds it into the momentum update that reads it: no separate pass over the
// gradient that writes the unscaled copy (under amp-cuda-pipeline: one
// kernel and 8 bytes per gradient element fewer). The inf/NaN check still
// reads the gradient as it was before unscaling, outside the branch. The
// scale stays a 0-d tensor (no host read before the flag's); its reciprocal
// is a 0-d op of its own that the update reads (amp-fuse-elementwise does
// not fuse a producer into a consumer that broadcasts it: it would be
// computed once per element).
// Then amp-fuse-multi-use-elementwise folds the momentum update, which is
// also returned as state, into the weight update: the whole update is one
// op that reads the weight, momentum and gradient once and writes the new
// weight and momentum (one kernel per parameter, no read of the new
// momentum back).
//
// RUN: amp-opt %s --amp-cpu-pipeline --mlir-print-ir-after=amp-fuse-elementwise -o /dev/null 2>&1 | FileCheck %s
// RUN: amp-opt %s --amp-cpu-pipeline --mlir-print-ir-after=amp-fuse-multi-use-elementwise -o /dev/null 2>&1 | FileCheck %s --check-prefix=UPDATE

// CHECK-LABEL: func.func @step
// CHECK-SAME: (%[[W:[^:]*]]: tensor<64x32xf32>, %[[M:[^:]*]]: tensor<64x32xf32>, %[[G:[^:]*]]: tensor<64x32xf32>, %[[S:[^:]*]]: tensor<f32>,
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[G]] : tensor<64x32xf32>)
// CHECK-NOT: ins(%[[G]]
// CHECK-NOT: tensor.extract %[[S]]
// CHECK: scf.if
// CHECK: } else {
// CHECK-NEXT: tensor.empty
// CHECK-NEXT: %[[MOMENTUM:.*]] = linalg.generic {{.*}} ins(%[[M]], %[[G]], %{{.*}} : tensor<64x32xf32>, tensor<64x32xf32>, tensor<f32>)
// CHECK-NEXT: ^bb0(%{{.*}}: f32, %[[GI:.*]]: f32, %[[INV:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[MU_M:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: %[[UNSCALED:.*]] = arith.mulf %[[GI]], %[[INV]] : f32
// CHECK-NEXT: arith.addf %[[MU_M]], %[[UNSCALED]] : f32
// CHECK: %[[NEW_W:.*]] = linalg.generic {{.*}} ins(%[[W]], %[[MOMENTUM]] :
// CHECK: scf.yield %[[NEW_W]], %[[MOMENTUM]]
// UPDATE-LABEL: func.func @step
// UPDATE-SAME: (%[[W:[^:]*]]: tensor<64x32xf32>, %[[M:[^:]*]]: tensor<64x32xf32>, %[[G:[^:]*]]: tensor<64x32xf32>, %[[S:[^:]*]]: tensor<f32>,
// UPDATE: scf.if
// UPDATE: } else {
// UPDATE-NOT: linalg.generic
// UPDATE: %[[UPD:.*]]:2 = linalg.generic {{.*}} ins(%[[W]], %[[M]], %[[G]], %{{.*}} : tensor<64x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<f32>)
// UPDATE-NEXT: ^bb0(%[[IW:[^:]*]]: f32, %[[IM:[^:]*]]: f32, %[[IG:[^:]*]]: f32, %[[INV:[^:]*]]: f32,
// UPDATE-NEXT: %[[MU_M:.*]] = arith.mulf %[[IM]], %{{.*}} : f32
// UPDATE-NEXT: %[[UNSCALED:.*]] = arith.mulf %[[IG]], %[[INV]] : f32
// UPDATE-NEXT: %[[NEW_M:.*]] = arith.addf %[[MU_M]], %[[UNSCALED]] : f32
// UPDATE-NEXT: %[[STEP:.*]] = arith.mulf %[[NEW_M]], %{{.*}} : f32
// UPDATE-NEXT: %[[NEW_W:.*]] = arith.subf %[[IW]], %[[STEP]] : f32
// UPDATE-NEXT: linalg.yield %[[NEW_M]], %[[NEW_W]] : f32, f32
// UPDATE-NOT: linalg.generic
// UPDATE: scf.yield %[[UPD]]#1, %[[UPD]]#0
func.func @step(%w: tensor<64x32xf32>, %m: tensor<64x32xf32>, %g: tensor<64x32xf32>,
                %scale: tensor<f32>, %tracker: tensor<i32>)
    -> (tensor<64x32xf32>, tensor<64x32xf32>, tensor<f32>, tensor<i32>) {
  %ug, %found_inf = amp.unscale %g by %scale : tensor<64x32xf32>
  %nw, %nm = amp.step_if_finite %found_inf keep(%w, %m : tensor<64x32xf32>, tensor<64x32xf32>) {
    %mu = arith.constant dense<0.9> : tensor<64x32xf32>
    %lr = arith.constant dense<0.5> : tensor<64x32xf32>
    %mm = arith.mulf %m, %mu : tensor<64x32xf32>
    %m1 = arith.addf %mm, %ug : tensor<64x32xf32>
    %d = arith.mulf %m1, %lr : tensor<64x32xf32>
    %w1 = arith.subf %w, %d : tensor<64x32xf32>
    amp.yield %w1, %m1 : tensor<64x32xf32>, tensor<64x32xf32>
  }
  %ns, %nt = amp.update_scale %scale, %tracker, %found_inf
  return %nw, %nm, %ns, %nt : tensor<64x32xf32>, tensor<64x32xf32>, tensor<f32>, tensor<i32>
}
