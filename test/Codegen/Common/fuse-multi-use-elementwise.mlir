// RUN: amp-opt %s -split-input-file --amp-fuse-multi-use-elementwise | FileCheck %s

// SGD with momentum: the new momentum feeds the weight update and is
// returned as state. One op computes both; the return takes its results.

#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @sgd_momentum
// CHECK-SAME: (%[[W:[^:]*]]: tensor<8x16xf32>, %[[V:[^:]*]]: tensor<8x16xf32>, %[[G:[^:]*]]: tensor<8x16xf32>)
// CHECK: %[[F:.*]]:2 = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK-SAME: ins(%[[W]], %[[V]], %[[G]] : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>)
// CHECK: ^bb0(%[[IW:[^:]*]]: f32, %[[IV:[^:]*]]: f32, %[[IG:[^:]*]]: f32,
// CHECK: %[[MV:.*]] = arith.mulf %[[IV]], %{{.*}} : f32
// CHECK-NEXT: %[[NV:.*]] = arith.addf %[[MV]], %[[IG]] : f32
// CHECK-NEXT: %[[STEP:.*]] = arith.mulf %[[NV]], %{{.*}} : f32
// CHECK-NEXT: %[[NW:.*]] = arith.subf %[[IW]], %[[STEP]] : f32
// CHECK-NEXT: linalg.yield %[[NV]], %[[NW]] : f32, f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[F]]#1, %[[F]]#0
func.func @sgd_momentum(%w: tensor<8x16xf32>, %v: tensor<8x16xf32>, %g: tensor<8x16xf32>)
    -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %mu = arith.constant 0.9 : f32
  %lr = arith.constant 0.1 : f32
  %e0 = tensor.empty() : tensor<8x16xf32>
  %nv = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%v, %g : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e0 : tensor<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %mu : f32
    %s = arith.addf %m, %b : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  %e1 = tensor.empty() : tensor<8x16xf32>
  %nw = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %nv : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e1 : tensor<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %b, %lr : f32
    %s = arith.subf %a, %m : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  return %nw, %nv : tensor<8x16xf32>, tensor<8x16xf32>
}

// -----

// Another use inside a later region (the optimizer update's branch): it
// takes the fused result too. The consumer reads the producer transposed
// (a permutation): still one producer element per iteration.

#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func.func @later_region_and_permutation
// CHECK: %[[F:.*]]:2 = linalg.generic
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.negf
// CHECK-NEXT: arith.addf
// CHECK-NEXT: linalg.yield
// CHECK-NOT: linalg.generic
// CHECK: scf.if
// CHECK-NEXT: scf.yield %[[F]]#0
// CHECK: return %[[F]]#1,
func.func @later_region_and_permutation(%x: tensor<4x8xf32>, %y: tensor<8x4xf32>, %c: i1)
    -> (tensor<8x4xf32>, tensor<4x8xf32>) {
  %e0 = tensor.empty() : tensor<4x8xf32>
  %n = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e0 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.negf %a : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %e1 = tensor.empty() : tensor<8x4xf32>
  %s = linalg.generic {indexing_maps = [#tr, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%n, %y : tensor<4x8xf32>, tensor<8x4xf32>) outs(%e1 : tensor<8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<8x4xf32>
  %k = scf.if %c -> tensor<4x8xf32> {
    scf.yield %n : tensor<4x8xf32>
  } else {
    scf.yield %x : tensor<4x8xf32>
  }
  return %s, %k : tensor<8x4xf32>, tensor<4x8xf32>
}

// -----

// A producer with two elementwise consumers: the first fuses, then the
// second fuses with that op. One op, three results.

#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @two_consumers
// CHECK: %[[F:.*]]:3 = linalg.generic
// CHECK: linalg.yield %{{.*}}, %{{.*}}, %{{.*}} : f32, f32, f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[F]]#0, %[[F]]#1, %[[F]]#2
func.func @two_consumers(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>, tensor<64xf32>) {
  %e = tensor.empty() : tensor<64xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %c1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%p : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %a : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %c2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%p : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.negf %a : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  return %p, %c1, %c2 : tensor<64xf32>, tensor<64xf32>, tensor<64xf32>
}

// -----

// Left alone: the other use comes before the consumer (the fused op,
// built at the consumer, would not dominate it).

#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @use_before_consumer
// CHECK: %[[P:.*]] = linalg.generic
// CHECK: call @sink(%[[P]])
// CHECK: linalg.generic {{.*}} ins(%[[P]] :
func.func private @sink(tensor<64xf32>)
func.func @use_before_consumer(%x: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  func.call @sink(%p) : (tensor<64xf32>) -> ()
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%p : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.negf %a : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  return %c : tensor<64xf32>
}

// -----

// Left alone: the consumer broadcasts the producer's result (each element
// would be computed and written 8 times).

#row = affine_map<(d0, d1) -> (d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#id1 = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @broadcast_consumer
// CHECK: %[[P:.*]] = linalg.generic
// CHECK: linalg.generic {{.*}} ins(%[[P]] :
// CHECK: return %[[P]],
func.func @broadcast_consumer(%x: tensor<16xf32>) -> (tensor<16xf32>, tensor<8x16xf32>) {
  %e = tensor.empty() : tensor<16xf32>
  %p = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%x : tensor<16xf32>) outs(%e : tensor<16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<16xf32>
  %e2 = tensor.empty() : tensor<8x16xf32>
  %c = linalg.generic {indexing_maps = [#row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<16xf32>) outs(%e2 : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.negf %a : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  return %p, %c : tensor<16xf32>, tensor<8x16xf32>
}

// -----

// Left alone: a reduction consumer (the row-reduction kernels match
// single-result reductions), and a consumer that reads the producer
// through two operands.

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @reduction_and_two_operands
// CHECK: %[[P:.*]] = linalg.generic
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[P]] :
// CHECK: linalg.generic {{.*}} ins(%[[P]], %[[P]] :
func.func @reduction_and_two_operands(%x: tensor<8x16xf32>, %acc: tensor<8xf32>)
    -> (tensor<8xf32>, tensor<8x16xf32>) {
  %e = tensor.empty() : tensor<8x16xf32>
  %p = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  %sum = linalg.generic {indexing_maps = [#id2, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%p : tensor<8x16xf32>) outs(%acc : tensor<8xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %sq = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%p, %p : tensor<8x16xf32>, tensor<8x16xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.mulf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<8x16xf32>
  return %sum, %sq : tensor<8xf32>, tensor<8x16xf32>
}

// -----

// Left alone: a single-use producer (upstream's linalg-fuse-elementwise-ops
// fuses those).

#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @single_use
// CHECK: linalg.generic
// CHECK: linalg.generic
func.func @single_use(%x: tensor<64xf32>) -> tensor<64xf32> {
  %e = tensor.empty() : tensor<64xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%p : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.negf %a : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  return %c : tensor<64xf32>
}

// -----

// Left alone: a producer outside a loop around the consumer (fusing would
// recompute the f16 weight every iteration), and a producer whose body
// reads memory that is written between it and the consumer.

#id2 = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @loop_invariant_producer
// CHECK: %[[W16:.*]] = linalg.generic
// CHECK: scf.for
// CHECK: linalg.generic {{.*}} ins(%[[W16]], %{{.*}} :
// CHECK: linalg.matmul ins(%{{.*}}, %[[W16]] :
func.func @loop_invariant_producer(%w: tensor<64x64xf32>, %x: tensor<64x64xf16>,
                                   %n: index) -> tensor<64x64xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %e = tensor.empty() : tensor<64x64xf16>
  %w16 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%w : tensor<64x64xf32>) outs(%e : tensor<64x64xf16>) {
  ^bb0(%a: f32, %o: f16):
    %r = arith.truncf %a : f32 to f16
    linalg.yield %r : f16
  } -> tensor<64x64xf16>
  %res = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> tensor<64x64xf16> {
    %s = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%w16, %acc : tensor<64x64xf16>, tensor<64x64xf16>) outs(%e : tensor<64x64xf16>) {
    ^bb0(%a: f16, %b: f16, %o: f16):
      %r = arith.addf %a, %b : f16
      linalg.yield %r : f16
    } -> tensor<64x64xf16>
    %mm = linalg.matmul ins(%s, %w16 : tensor<64x64xf16>, tensor<64x64xf16>)
                        outs(%acc : tensor<64x64xf16>) -> tensor<64x64xf16>
    scf.yield %mm : tensor<64x64xf16>
  }
  return %res : tensor<64x64xf16>
}

// -----

#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @producer_reads_memory
// CHECK: %[[P:.*]] = linalg.generic
// CHECK: memref.load
// CHECK: memref.store
// CHECK: linalg.generic {{.*}} ins(%[[P]] :
func.func @producer_reads_memory(%x: tensor<64xf32>, %buf: memref<64xf32>)
    -> (tensor<64xf32>, tensor<64xf32>) {
  %e = tensor.empty() : tensor<64xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 0 : index
    %v = memref.load %buf[%i] : memref<64xf32>
    %r = arith.addf %a, %v : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  %c0 = arith.constant 0 : index
  %z = arith.constant 100.0 : f32
  memref.store %z, %buf[%c0] : memref<64xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%p : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.negf %a : f32
    linalg.yield %r : f32
  } -> tensor<64xf32>
  return %c, %p : tensor<64xf32>, tensor<64xf32>
}
