// RUN: amp-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(amp-duplicate-fills))" | FileCheck %s
// RUN: amp-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(amp-duplicate-fills),one-shot-bufferize{bufferize-function-boundaries})" | FileCheck %s --check-prefix=BUF

// One zero fill, the destination of three matmuls (as CSE leaves a training
// step's): each matmul gets its own fill of its own tensor.empty, right
// before it; after bufferization, three fills and no copy.
// CHECK-LABEL: func @shared_zero
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[E0:.*]] = tensor.empty() : tensor<8x8xf32>
// CHECK: %[[F0:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E0]] : tensor<8x8xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<8x4xf32>, tensor<4x8xf32>) outs(%[[F0]] : tensor<8x8xf32>)
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<8x8xf32>
// CHECK: %[[F1:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E1]] : tensor<8x8xf32>)
// CHECK: linalg.matmul {{.*}} outs(%[[F1]] : tensor<8x8xf32>)
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<8x8xf32>
// CHECK: %[[F2:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E2]] : tensor<8x8xf32>)
// CHECK: linalg.matmul {{.*}} outs(%[[F2]] : tensor<8x8xf32>)
// BUF-LABEL: func @shared_zero
// BUF-COUNT-3: linalg.fill
// BUF-NOT: memref.copy
// BUF: return
func.func @shared_zero(%a: tensor<8x4xf32>, %b: tensor<4x8xf32>, %c: tensor<4x8xf32>, %d: tensor<4x8xf32>)
    -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m0 = linalg.matmul ins(%a, %b : tensor<8x4xf32>, tensor<4x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m1 = linalg.matmul ins(%a, %c : tensor<8x4xf32>, tensor<4x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  %m2 = linalg.matmul ins(%a, %d : tensor<8x4xf32>, tensor<4x8xf32>) outs(%f : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %m0, %m1, %m2 : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>
}

// -----

// A fill that is also read as an input (by the linalg.add) stays for that
// read, and both reductions get copies: written in place, it would be read
// after it changed. A fill of a dynamic tensor.empty gets a clone of the
// empty with the same size. No copy after bufferization.
// CHECK-LABEL: func @input_and_dynamic
// CHECK-SAME: (%[[N:[^:]*]]: index
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<?xf32>)
// CHECK: %[[E1:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK: %[[F1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<?xf32>)
// CHECK: linalg.reduce ins(%{{.*}} : tensor<?x16xf32>) outs(%[[F1]] : tensor<?xf32>)
// CHECK: %[[E2:.*]] = tensor.empty(%[[N]]) : tensor<?xf32>
// CHECK: %[[F2:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E2]] : tensor<?xf32>)
// CHECK: linalg.reduce ins(%{{.*}} : tensor<?x16xf32>) outs(%[[F2]] : tensor<?xf32>)
// CHECK: linalg.add ins(%[[F]], %{{.*}} : tensor<?xf32>, tensor<?xf32>)
// CHECK-NOT: linalg.fill
// BUF-LABEL: func @input_and_dynamic
// BUF-NOT: memref.copy
// BUF: return
func.func @input_and_dynamic(%n: index, %x: tensor<?x16xf32>, %y: tensor<?x16xf32>)
    -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r0 = linalg.reduce ins(%x : tensor<?x16xf32>) outs(%f : tensor<?xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %r1 = linalg.reduce ins(%y : tensor<?x16xf32>) outs(%f : tensor<?xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %e2 = tensor.empty(%n) : tensor<?xf32>
  %a = linalg.add ins(%f, %r0 : tensor<?xf32>, tensor<?xf32>) outs(%e2 : tensor<?xf32>) -> tensor<?xf32>
  return %r0, %r1, %a : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}

// -----

// A fill whose destination is not a tensor.empty (a function argument):
// the copies fill the same destination tensor, as the original did.
// CHECK-LABEL: func @argument_destination
// CHECK-SAME: (%[[D:[^:]*]]: tensor<4xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[D]] : tensor<4xf32>)
// CHECK: linalg.add
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[D]] : tensor<4xf32>)
// CHECK: linalg.add
func.func @argument_destination(%d: tensor<4xf32>, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %one = arith.constant 1.0 : f32
  %f = linalg.fill ins(%one : f32) outs(%d : tensor<4xf32>) -> tensor<4xf32>
  %a = linalg.add ins(%x, %x : tensor<4xf32>, tensor<4xf32>) outs(%f : tensor<4xf32>) -> tensor<4xf32>
  %b = linalg.add ins(%x, %a : tensor<4xf32>, tensor<4xf32>) outs(%f : tensor<4xf32>) -> tensor<4xf32>
  return %a, %b : tensor<4xf32>, tensor<4xf32>
}

// -----

// The accumulators of a forward and a backward matmul, tiled into
// scf.forall loops that share one zero fill (shared_outs are destinations):
// each loop gets its own fill right before it, the first one moved down
// from where CSE left it, so that bufferization does not allocate the
// backward's buffer in the forward. An empty shared by two generics is
// split into one empty per user, right before it (one buffer each, held
// only from that user on).
// CHECK-LABEL: func @forall_destinations
// CHECK: linalg.transpose
// CHECK: %[[E0:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK: %[[F0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E0]] : tensor<4x4xf32>)
// CHECK: scf.forall {{.*}} shared_outs(%{{.*}} = %[[F0]])
// CHECK: %[[G0:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK: linalg.generic {{.*}} outs(%[[G0]] : tensor<4x4xf32>)
// CHECK: linalg.transpose
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK: %[[F1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E1]] : tensor<4x4xf32>)
// CHECK: scf.forall {{.*}} shared_outs(%{{.*}} = %[[F1]])
// CHECK: %[[G1:.*]] = tensor.empty() : tensor<4x4xf32>
// CHECK: linalg.generic {{.*}} outs(%[[G1]] : tensor<4x4xf32>)
// BUF-LABEL: func @forall_destinations
// BUF-COUNT-2: linalg.fill
// BUF: return
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @forall_destinations(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %t = tensor.empty() : tensor<4x4xf32>
  %at = linalg.transpose ins(%a : tensor<4x4xf32>) outs(%t : tensor<4x4xf32>) permutation = [1, 0]
  %m0 = scf.forall (%i) in (2) shared_outs(%o = %f) -> (tensor<4x4xf32>) {
    %off = arith.muli %i, %i : index
    %s = tensor.extract_slice %at[%off, 0] [2, 4] [1, 1] : tensor<4x4xf32> to tensor<2x4xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %s into %o[%off, 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<4x4xf32>
    }
  }
  %g0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m0 : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %n = arith.negf %in : f32
      linalg.yield %n : f32
  } -> tensor<4x4xf32>
  %bt = linalg.transpose ins(%b : tensor<4x4xf32>) outs(%t : tensor<4x4xf32>) permutation = [1, 0]
  %m1 = scf.forall (%i) in (2) shared_outs(%o = %f) -> (tensor<4x4xf32>) {
    %off = arith.muli %i, %i : index
    %s = tensor.extract_slice %bt[%off, 0] [2, 4] [1, 1] : tensor<4x4xf32> to tensor<2x4xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %s into %o[%off, 0] [2, 4] [1, 1] : tensor<2x4xf32> into tensor<4x4xf32>
    }
  }
  %g1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%m1 : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %n = arith.negf %in : f32
      linalg.yield %n : f32
  } -> tensor<4x4xf32>
  return %g0, %g1 : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// A fill of a reshaped tensor.empty (amp-cpu-tile-and-vectorize's packed
// accumulator view) shared by two loops: the reshape of the empty becomes an
// empty of its own type, so each loop gets its own empty and fill (before,
// both wrote one buffer, held from the first loop to the last).
// CHECK-LABEL: func @reshaped_empty
// CHECK-NOT: tensor.expand_shape
// CHECK: %[[E0:.*]] = tensor.empty() : tensor<4x2x2xf32>
// CHECK: %[[F0:.*]] = linalg.fill {{.*}} outs(%[[E0]] : tensor<4x2x2xf32>)
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[F0]])
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<4x2x2xf32>
// CHECK: %[[F1:.*]] = linalg.fill {{.*}} outs(%[[E1]] : tensor<4x2x2xf32>)
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %[[F1]])
// BUF-LABEL: func @reshaped_empty
// BUF-COUNT-2: memref.alloc() {{.*}} : memref<4x2x2xf32>
// BUF-NOT: memref.alloc
// BUF: return
func.func @reshaped_empty(%a: tensor<4x2x2xf32>, %b: tensor<4x2x2xf32>) -> (tensor<4x2x2xf32>, tensor<4x2x2xf32>) {
  %z = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %e = tensor.empty() : tensor<4x4xf32>
  %x = tensor.expand_shape %e [[0], [1, 2]] output_shape [4, 2, 2] : tensor<4x4xf32> into tensor<4x2x2xf32>
  %f = linalg.fill ins(%z : f32) outs(%x : tensor<4x2x2xf32>) -> tensor<4x2x2xf32>
  %r0 = scf.for %i = %c0 to %c4 step %c1 iter_args(%o = %f) -> (tensor<4x2x2xf32>) {
    %s = tensor.extract_slice %a[%i, 0, 0] [1, 2, 2] [1, 1, 1] : tensor<4x2x2xf32> to tensor<1x2x2xf32>
    %u = tensor.insert_slice %s into %o[%i, 0, 0] [1, 2, 2] [1, 1, 1] : tensor<1x2x2xf32> into tensor<4x2x2xf32>
    scf.yield %u : tensor<4x2x2xf32>
  }
  %r1 = scf.for %i = %c0 to %c4 step %c1 iter_args(%o = %f) -> (tensor<4x2x2xf32>) {
    %s = tensor.extract_slice %b[%i, 0, 0] [1, 2, 2] [1, 1, 1] : tensor<4x2x2xf32> to tensor<1x2x2xf32>
    %u = tensor.insert_slice %s into %o[%i, 0, 0] [1, 2, 2] [1, 1, 1] : tensor<1x2x2xf32> into tensor<4x2x2xf32>
    scf.yield %u : tensor<4x2x2xf32>
  }
  return %r0, %r1 : tensor<4x2x2xf32>, tensor<4x2x2xf32>
}
