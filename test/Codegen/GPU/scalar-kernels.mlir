// RUN: amp-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(amp-gpu-scalar-kernels))" -verify-diagnostics | FileCheck %s

// A full sum over a 2-D buffer: one block of 1024 threads, each folding the
// linearized elements t, t + 1024, ... from addf's neutral element -0.0
// (x + -0.0 == x, for x = -0.0 too), then gpu.all_reduce, and thread 0 adds
// the output's value.
// CHECK-LABEL: func @sum
// CHECK-SAME: (%[[X:.*]]: memref<64x48xf32>, %[[OUT:.*]]: memref<f32>)
// CHECK: %[[C1024:.*]] = arith.constant 1024 : index
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1{{(_[0-9]+)?}}, {{.*}} = %c1{{(_[0-9]+)?}}, {{.*}} = %c1{{(_[0-9]+)?}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in ({{.*}} = %[[C1024]], {{.*}} = %c1{{(_[0-9]+)?}}, {{.*}} = %c1{{(_[0-9]+)?}})
// CHECK:   %[[NEUTRAL:.*]] = arith.constant -0.000000e+00 : f32
// CHECK:   %[[P:.*]] = scf.for %[[I:.*]] = %[[TX]] to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[NEUTRAL]]) -> (f32)
// CHECK:     %[[IV:.*]]:2 = affine.delinearize_index %[[I]] into (64, 48)
// CHECK:     %[[V:.*]] = memref.load %[[X]]
// CHECK:     %[[S:.*]] = arith.addf %[[V]], %[[ACC]] : f32
// CHECK:     scf.yield %[[S]]
// CHECK:   %[[ALL:.*]] = gpu.all_reduce add %[[P]] uniform
// CHECK:   %[[FIRST:.*]] = arith.cmpi eq, %[[TX]], %{{.*}}
// CHECK:   scf.if %[[FIRST]]
// CHECK:     %[[OLD:.*]] = memref.load %[[OUT]][]
// CHECK:     %[[NEW:.*]] = arith.addf %[[ALL]], %[[OLD]] : f32
// CHECK:     memref.store %[[NEW]], %[[OUT]][]
// CHECK-NOT: linalg.
func.func @sum(%x: memref<64x48xf32>, %out: memref<f32>) {
  linalg.reduce ins(%x : memref<64x48xf32>) outs(%out : memref<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  return
}

// -----

// Arithmetic on 0-d buffers: one thread.
// CHECK-LABEL: func @scalar
// CHECK-SAME: (%[[A:.*]]: memref<f32>, %[[B:.*]]: memref<f32>)
// CHECK: gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c1{{(_[0-9]+)?}}, %{{.*}} = %c1, %{{.*}} = %c1)
// CHECK:   %[[X:.*]] = memref.load %[[A]][]
// CHECK:   %[[M:.*]] = arith.mulf %[[X]], %{{.*}} : f32
// CHECK:   memref.store %[[M]], %[[B]][]
// CHECK-NOT: linalg.
func.func @scalar(%a: memref<f32>, %b: memref<f32>) {
  %two = arith.constant 2.0 : f32
  linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%a : memref<f32>) outs(%b : memref<f32>) {
    ^bb0(%in: f32, %o: f32):
      %m = arith.mulf %in, %two : f32
      linalg.yield %m : f32
  }
  return
}

// -----

// An i1 "any" over a dynamic 1-D buffer: a dynamic size gets the grid-wide
// form. 256 blocks of 1024 threads each fold a strided share (the or goes
// through i32 in gpu.all_reduce) and thread 0 stores the block's result to
// a partial results buffer; one block of 256 threads ors those and the
// output's value; the buffer is freed.
// CHECK-LABEL: func @any_dynamic
// CHECK-SAME: (%[[X:.*]]: memref<?xf32>, %[[OUT:.*]]: memref<i1>)
// CHECK: %[[N:.*]] = memref.dim %[[X]]
// CHECK: %[[PARTIALS:.*]] = memref.alloc() : memref<256xi1>
// CHECK: gpu.launch blocks(%[[B:.*]], %{{.*}}, %{{.*}}) in ({{.*}} = %c256{{.*}}) threads(%[[T:.*]], %{{.*}}, %{{.*}}) in ({{.*}} = %c1024
// CHECK:   %[[FIRST:.*]] = affine.apply #{{.*}}(%[[B]], %[[T]])
// CHECK:   %[[FALSE:.*]] = arith.constant false
// CHECK:   %[[P:.*]] = scf.for %{{.*}} = %[[FIRST]] to %[[N]] step %c262144{{.*}} iter_args(%{{.*}} = %[[FALSE]]) -> (i1)
// CHECK:     math.absf
// CHECK:   %[[W:.*]] = arith.extui %[[P]] : i1 to i32
// CHECK:   %[[ALL:.*]] = gpu.all_reduce or %[[W]] uniform
// CHECK:   %[[BLOCK:.*]] = arith.trunci %[[ALL]] : i32 to i1
// CHECK:   scf.if
// CHECK:     memref.store %[[BLOCK]], %[[PARTIALS]][%[[B]]]
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c1{{.*}}) threads({{.*}}) in ({{.*}} = %c256
// CHECK:   scf.for {{.*}} -> (i1)
// CHECK:     memref.load %[[PARTIALS]]
// CHECK:   gpu.all_reduce or
// CHECK:   scf.if
// CHECK:     arith.ori
// CHECK:     memref.store %{{.*}}, %[[OUT]][]
// CHECK: memref.dealloc %[[PARTIALS]]
func.func @any_dynamic(%x: memref<?xf32>, %out: memref<i1>) {
  %inf = arith.constant 0x7F800000 : f32
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%x : memref<?xf32>) outs(%out : memref<i1>) {
    ^bb0(%in: f32, %acc: i1):
      %a = math.absf %in : f32
      %c = arith.cmpf uge, %a, %inf : f32
      %o = arith.ori %acc, %c : i1
      linalg.yield %o : i1
  }
  return
}

// -----

// Reductions gpu.all_reduce cannot take stay host loops, with a remark.
func.func @f16_sum(%x: memref<64xf16>, %out: memref<f16>) {
  // expected-remark @below {{amp-gpu-scalar-kernels: this reduction to a scalar runs on the host (combiner 'arith.addf' on 'f16' has no gpu.all_reduce form here)}}
  linalg.reduce ins(%x : memref<64xf16>) outs(%out : memref<f16>) dimensions = [0]
    (%in: f16, %acc: f16) {
      %a = arith.addf %in, %acc : f16
      linalg.yield %a : f16
    }
  return
}

func.func @two_combiners(%x: memref<64xf32>, %out: memref<f32>) {
  // expected-remark @below {{amp-gpu-scalar-kernels: this reduction to a scalar runs on the host (no single combiner op)}}
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%x : memref<64xf32>) outs(%out : memref<f32>) {
    ^bb0(%in: f32, %acc: f32):
      %a = arith.addf %acc, %in : f32
      %m = arith.mulf %a, %acc : f32
      linalg.yield %m : f32
  }
  return
}

// -----

// What must stay on the host, with a remark: an input on the output's
// buffer (the threads would read it before thread 0 writes it), a stack
// buffer (kernels cannot read it), a call (host functions cannot run in a
// kernel), an op inside a parallel loop (which becomes a kernel itself), an
// output element that depends on a reduction index, an empty loop.
func.func @output_is_input(%x: memref<64xf32>, %out: memref<4xf32>) {
  %sub = memref.subview %out[1] [1] [1] : memref<4xf32> to memref<f32, strided<[], offset: 1>>
  // expected-remark @below {{amp-gpu-scalar-kernels: this reduction to a scalar runs on the host (an input on the output's buffer)}}
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%x, %out : memref<64xf32>, memref<4xf32>) outs(%sub : memref<f32, strided<[], offset: 1>>) {
    ^bb0(%in: f32, %o: f32, %acc: f32):
      %m = arith.mulf %in, %o : f32
      %a = arith.addf %m, %acc : f32
      linalg.yield %a : f32
  }
  return
}

func.func @stack(%x: memref<64xf32>) -> f32 {
  %s = memref.alloca() : memref<f32>
  // expected-remark @below {{amp-gpu-scalar-kernels: this op without parallel dimensions runs on the host (a stack buffer operand)}}
  linalg.reduce ins(%x : memref<64xf32>) outs(%s : memref<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  %v = memref.load %s[] : memref<f32>
  return %v : f32
}

func.func private @hook(f32) -> f32
func.func @call(%a: memref<f32>, %b: memref<f32>) {
  // expected-remark @below {{amp-gpu-scalar-kernels: this op without parallel dimensions runs on the host (a call in its body)}}
  linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>], iterator_types = []}
      ins(%a : memref<f32>) outs(%b : memref<f32>) {
    ^bb0(%in: f32, %o: f32):
      %h = func.call @hook(%in) : (f32) -> f32
      linalg.yield %h : f32
  }
  return
}

func.func @in_parallel_loop(%x: memref<8x64xf32>, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    %row = memref.subview %x[%i, 0] [1, 64] [1, 1] : memref<8x64xf32> to memref<64xf32, strided<[1], offset: ?>>
    %o = memref.subview %out[%i] [1] [1] : memref<8xf32> to memref<f32, strided<[], offset: ?>>
    // expected-remark @below {{amp-gpu-scalar-kernels: this op without parallel dimensions runs on the host (inside a parallel loop)}}
    linalg.reduce ins(%row : memref<64xf32, strided<[1], offset: ?>>) outs(%o : memref<f32, strided<[], offset: ?>>) dimensions = [0]
      (%in: f32, %acc: f32) {
        %a = arith.addf %in, %acc : f32
        linalg.yield %a : f32
      }
    scf.reduce
  }
  return
}

func.func @output_on_reduction_index(%x: memref<4xf32>, %out: memref<4xf32>) {
  // expected-remark @below {{amp-gpu-scalar-kernels: this op without parallel dimensions runs on the host (an output element depends on a reduction index)}}
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["reduction"]}
      ins(%x : memref<4xf32>) outs(%out : memref<4xf32>) {
    ^bb0(%in: f32, %acc: f32):
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
  }
  return
}

func.func @empty(%x: memref<0x5xf32>, %out: memref<f32>) {
  // expected-remark @below {{amp-gpu-scalar-kernels: this op without parallel dimensions runs on the host (an empty loop)}}
  linalg.reduce ins(%x : memref<0x5xf32>) outs(%out : memref<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  return
}

// -----

// A fill of the output right before (a loss's zeroed sum, the `false` an
// inf/NaN check starts from): thread 0 combines the block's result with the
// fill's value without loading the output, and the fill, a one-thread
// kernel otherwise, goes. In the grid-wide form the last block does.
// CHECK-LABEL: func @filled
// CHECK-SAME: (%[[X:.*]]: memref<64x48xf32>, %[[OUT:.*]]: memref<f32>, %[[BIG:.*]]: memref<?xf32>, %[[ANY:.*]]: memref<i1>)
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[NO:.*]] = arith.constant false
// CHECK-NOT: linalg.fill
// CHECK: gpu.launch
// CHECK:   %[[ALL:.*]] = gpu.all_reduce add
// CHECK:   scf.if
// CHECK-NOT: memref.load %[[OUT]][
// CHECK:     %[[NEW:.*]] = arith.addf %[[ALL]], %[[ZERO]] : f32
// CHECK:     memref.store %[[NEW]], %[[OUT]][]
// CHECK: %[[PARTIALS:.*]] = memref.alloc() : memref<256xi1>
// CHECK: gpu.launch
// CHECK:   memref.store %{{.*}}, %[[PARTIALS]]
// CHECK: gpu.launch
// CHECK:   scf.if
// CHECK-NOT: memref.load %[[ANY]][
// CHECK:     %[[ANYNEW:.*]] = arith.ori %[[NO]], %{{.*}} : i1
// CHECK:     memref.store %[[ANYNEW]], %[[ANY]][]
// CHECK: memref.dealloc %[[PARTIALS]]
// CHECK-NOT: linalg.
func.func @filled(%x: memref<64x48xf32>, %out: memref<f32>, %big: memref<?xf32>,
                  %any: memref<i1>) {
  %zero = arith.constant 0.0 : f32
  %no = arith.constant false
  linalg.fill ins(%zero : f32) outs(%out : memref<f32>)
  linalg.reduce ins(%x : memref<64x48xf32>) outs(%out : memref<f32>) dimensions = [0, 1]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  linalg.fill ins(%no : i1) outs(%any : memref<i1>)
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%big : memref<?xf32>) outs(%any : memref<i1>) {
    ^bb0(%in: f32, %acc: i1):
      %inf = arith.constant 0x7F800000 : f32
      %abs = math.absf %in : f32
      %bad = arith.cmpf uge, %abs, %inf : f32
      %o = arith.ori %acc, %bad : i1
      linalg.yield %o : i1
  }
  return
}

// -----

// A fill before a reduction that stays on the host stays too (a one-thread
// kernel).
// CHECK-LABEL: func @fill_before_host_reduction
// CHECK: gpu.launch
// CHECK:   memref.store %{{.*}}, %{{.*}}[] : memref<f16>
// CHECK: linalg.reduce
func.func @fill_before_host_reduction(%x: memref<64xf16>, %out: memref<f16>) {
  %zero = arith.constant 0.0 : f16
  linalg.fill ins(%zero : f16) outs(%out : memref<f16>)
  // expected-remark @below {{amp-gpu-scalar-kernels: this reduction to a scalar runs on the host (combiner 'arith.addf' on 'f16' has no gpu.all_reduce form here)}}
  linalg.reduce ins(%x : memref<64xf16>) outs(%out : memref<f16>) dimensions = [0]
    (%in: f16, %acc: f16) {
      %a = arith.addf %in, %acc : f16
      linalg.yield %a : f16
    }
  return
}

// -----

// Ops with a parallel dimension, tensors, or inside a kernel are not this
// pass's.
// CHECK-LABEL: func @untouched
// CHECK-NOT: gpu.launch
// CHECK: linalg.reduce
// CHECK: linalg.reduce
func.func @untouched(%x: memref<8x4xf32>, %rows: memref<8xf32>, %t: tensor<8xf32>) -> tensor<f32> {
  linalg.reduce ins(%x : memref<8x4xf32>) outs(%rows : memref<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %s = linalg.reduce ins(%t : tensor<8xf32>) outs(%e : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  return %s : tensor<f32>
}

// -----

// A full reduction of vector elements stays on the host.
// CHECK-LABEL: func @vector_elements
// CHECK-NOT: gpu.launch
// CHECK: linalg.reduce
func.func @vector_elements(%x: memref<64xvector<4xf32>>, %out: memref<vector<4xf32>>) {
  // expected-remark @below {{amp-gpu-scalar-kernels: this reduction to a scalar runs on the host (a reduction of vector<4xf32> elements (scalars only))}}
  linalg.reduce ins(%x : memref<64xvector<4xf32>>) outs(%out : memref<vector<4xf32>>) dimensions = [0]
    (%in: vector<4xf32>, %acc: vector<4xf32>) {
      %a = arith.addf %in, %acc : vector<4xf32>
      linalg.yield %a : vector<4xf32>
    }
  return
}

// -----

// An output whose buffer is not known (an scf.if's result) or a view of
// the global an input reads may be the input's buffer: the reduction stays
// on the host and its fill stays, a one-thread kernel of its own (absorbing
// it would sum the input's elements as they were before the fill).
// CHECK-LABEL: func @output_maybe_input
// CHECK: scf.if
// CHECK: gpu.launch
// CHECK: gpu.terminator
// CHECK-NEXT: }
// CHECK-NEXT: linalg.reduce
// CHECK: gpu.launch
// CHECK: gpu.terminator
// CHECK-NEXT: }
// CHECK-NEXT: linalg.reduce
func.func @output_maybe_input(%x: memref<4096xf32>, %other: memref<f32>, %c: i1) {
  %zero = arith.constant 0.0 : f32
  %o = scf.if %c -> memref<f32, strided<[], offset: ?>> {
    %v = memref.subview %x[7] [1] [1] : memref<4096xf32> to memref<f32, strided<[], offset: 7>>
    %w = memref.cast %v : memref<f32, strided<[], offset: 7>> to memref<f32, strided<[], offset: ?>>
    scf.yield %w : memref<f32, strided<[], offset: ?>>
  } else {
    %w = memref.cast %other : memref<f32> to memref<f32, strided<[], offset: ?>>
    scf.yield %w : memref<f32, strided<[], offset: ?>>
  }
  linalg.fill ins(%zero : f32) outs(%o : memref<f32, strided<[], offset: ?>>)
  // expected-remark @below {{amp-gpu-scalar-kernels: this reduction to a scalar runs on the host (an input on the output's buffer)}}
  linalg.reduce ins(%x : memref<4096xf32>) outs(%o : memref<f32, strided<[], offset: ?>>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %a = memref.get_global @g : memref<4xf32>
  %b = memref.get_global @g : memref<4xf32>
  %ob = memref.subview %b[2] [1] [1] : memref<4xf32> to memref<f32, strided<[], offset: 2>>
  linalg.fill ins(%zero : f32) outs(%ob : memref<f32, strided<[], offset: 2>>)
  // expected-remark @below {{amp-gpu-scalar-kernels: this reduction to a scalar runs on the host (an input on the output's buffer)}}
  linalg.reduce ins(%a : memref<4xf32>) outs(%ob : memref<f32, strided<[], offset: 2>>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return
}
memref.global "private" @g : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>

// -----

// Distinct globals, allocations and function arguments are distinct
// buffers: the reductions become kernels that absorb their fills.
// CHECK-LABEL: func @distinct_buffers
// CHECK-NOT: linalg.fill
// CHECK: gpu.launch
// CHECK-NOT: linalg.fill
// CHECK: gpu.launch
// CHECK-NOT: linalg.
func.func @distinct_buffers(%x: memref<4096xf32>) {
  %zero = arith.constant 0.0 : f32
  %a = memref.get_global @g1 : memref<4xf32>
  %b = memref.get_global @g2 : memref<f32>
  linalg.fill ins(%zero : f32) outs(%b : memref<f32>)
  linalg.reduce ins(%a : memref<4xf32>) outs(%b : memref<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  %o = memref.alloc() : memref<f32>
  linalg.fill ins(%zero : f32) outs(%o : memref<f32>)
  linalg.reduce ins(%x : memref<4096xf32>) outs(%o : memref<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  memref.dealloc %o : memref<f32>
  return
}
memref.global "private" @g1 : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
memref.global "private" @g2 : memref<f32> = dense<0.0>

// -----

// A run of one-block full reductions into one output with one combiner is
// one kernel, built where the last was: one loop per op, then one
// gpu.all_reduce. A run ends at another output, another combiner, an op
// with memory effects, or a reduction too large for one block.
// CHECK-LABEL: func @runs
// CHECK: gpu.launch
// CHECK-COUNT-2: scf.for
// CHECK-NOT: scf.for
// CHECK: gpu.all_reduce or
// CHECK: memref.store {{.*}}, %arg2[]
// CHECK: gpu.launch
// CHECK: gpu.all_reduce or
// CHECK: memref.store {{.*}}, %arg3[]
// CHECK: gpu.launch
// CHECK: gpu.all_reduce and
// CHECK: memref.store {{.*}}, %arg3[]
// CHECK: memref.store {{.*}}, %arg4[
// CHECK: gpu.launch
// CHECK: gpu.all_reduce or
// CHECK: gpu.launch
// CHECK: gpu.all_reduce or
// CHECK: gpu.launch
// CHECK: gpu.all_reduce or
// CHECK-NOT: gpu.launch
// CHECK-NOT: linalg.generic
#id1r = affine_map<(d0) -> (d0)>
#to0d1r = affine_map<(d0) -> ()>
func.func @runs(%a: memref<4096xi1>, %b: memref<1024xi1>, %flag: memref<i1>,
                %other: memref<i1>, %big: memref<100000xi1>) {
  // One kernel: two ors into %flag.
  linalg.generic {indexing_maps = [#id1r, #to0d1r], iterator_types = ["reduction"]}
      ins(%a : memref<4096xi1>) outs(%flag : memref<i1>) {
  ^bb0(%x: i1, %acc: i1):
    %r = arith.ori %acc, %x : i1
    linalg.yield %r : i1
  }
  %unused = arith.constant 1 : index
  linalg.generic {indexing_maps = [#id1r, #to0d1r], iterator_types = ["reduction"]}
      ins(%b : memref<1024xi1>) outs(%flag : memref<i1>) {
  ^bb0(%x: i1, %acc: i1):
    %r = arith.ori %x, %acc : i1
    linalg.yield %r : i1
  }
  // Another output, then another combiner on it.
  linalg.generic {indexing_maps = [#id1r, #to0d1r], iterator_types = ["reduction"]}
      ins(%b : memref<1024xi1>) outs(%other : memref<i1>) {
  ^bb0(%x: i1, %acc: i1):
    %r = arith.ori %acc, %x : i1
    linalg.yield %r : i1
  }
  linalg.generic {indexing_maps = [#id1r, #to0d1r], iterator_types = ["reduction"]}
      ins(%b : memref<1024xi1>) outs(%other : memref<i1>) {
  ^bb0(%x: i1, %acc: i1):
    %r = arith.andi %acc, %x : i1
    linalg.yield %r : i1
  }
  // A store in between.
  %c0 = arith.constant 0 : index
  %true = arith.constant true
  memref.store %true, %big[%c0] : memref<100000xi1>
  linalg.generic {indexing_maps = [#id1r, #to0d1r], iterator_types = ["reduction"]}
      ins(%b : memref<1024xi1>) outs(%flag : memref<i1>) {
  ^bb0(%x: i1, %acc: i1):
    %r = arith.ori %acc, %x : i1
    linalg.yield %r : i1
  }
  // Too large for one block: a grid-wide reduction of its own (two
  // launches).
  linalg.generic {indexing_maps = [#id1r, #to0d1r], iterator_types = ["reduction"]}
      ins(%big : memref<100000xi1>) outs(%flag : memref<i1>) {
  ^bb0(%x: i1, %acc: i1):
    %r = arith.ori %acc, %x : i1
    linalg.yield %r : i1
  }
  return
}

// -----

// Reductions into different elements of one buffer are not one run: each
// is a kernel of its own that combines into its element.
// CHECK-LABEL: func @two_elements
// CHECK: gpu.launch
// CHECK: gpu.all_reduce add
// CHECK: scf.if
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: memref.load %arg2[%[[C0]]]
// CHECK: memref.store {{.*}}, %arg2[%[[C0]]]
// CHECK: gpu.launch
// CHECK: gpu.all_reduce add
// CHECK: scf.if
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: memref.load %arg2[%[[C1]]]
// CHECK: memref.store {{.*}}, %arg2[%[[C1]]]
// CHECK-NOT: gpu.launch
func.func @two_elements(%x: memref<64xf32>, %y: memref<32xf32>, %out: memref<2xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (0)>], iterator_types = ["reduction"]}
      ins(%x : memref<64xf32>) outs(%out : memref<2xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %acc, %in : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (1)>], iterator_types = ["reduction"]}
      ins(%y : memref<32xf32>) outs(%out : memref<2xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %acc, %in : f32
    linalg.yield %a : f32
  }
  return
}

// -----

// Ops without loops right after a kernel (only ops without memory effects
// or allocations between) run at its end on thread 0: a loss's mean and
// its gradient's seed join the kernel of the loss's sum, after the block's
// gpu.all_reduce and the combine into the sum; after a grid-wide
// reduction, the second launch's thread 0 runs them. A store ends the
// tail; the ops without loops after it share a one-thread kernel, which
// does not take a fill that a later reduction absorbs.
// CHECK-LABEL: func @tails
// CHECK-SAME: (%[[X:.*]]: memref<1024x16xf32>, %[[SCALE:.*]]: memref<f32>, %[[SUM:.*]]: memref<f32>, %[[SEED:.*]]: memref<f32>, %[[BIG:.*]]: memref<100000xf32>, %[[BIGSUM:.*]]: memref<f32>, %[[FLAG:.*]]: memref<i1>, %[[Y:.*]]: memref<64xi1>)
// CHECK: %[[MEAN:.*]] = memref.alloc() : memref<f32>
// CHECK: gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c1024
// CHECK:   gpu.all_reduce add
// CHECK:   scf.if
// CHECK:     memref.store {{.*}}, %[[SUM]][]
// CHECK:     %[[S:.*]] = memref.load %[[SUM]][]
// CHECK:     %[[M:.*]] = arith.mulf %[[S]]
// CHECK:     memref.store %[[M]], %[[MEAN]][]
// CHECK:     %[[SC:.*]] = memref.load %[[SCALE]][]
// CHECK:     %[[SD:.*]] = arith.mulf %[[SC]]
// CHECK:     memref.store %[[SD]], %[[SEED]][]
// CHECK:   }
// CHECK:   gpu.terminator
// CHECK: memref.store %{{.*}}, %[[BIG]]
// CHECK: gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c1{{(_[0-9]+)?}}, %{{.*}} = %c1{{(_[0-9]+)?}}, %{{.*}} = %c1{{(_[0-9]+)?}})
// CHECK:   memref.store {{.*}}, %[[SEED]][]
// CHECK:   memref.store {{.*}}, %[[SEED]][]
// CHECK:   gpu.terminator
// CHECK: gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c1024
// CHECK:   gpu.all_reduce add
// CHECK: gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c256
// CHECK:   gpu.all_reduce add
// CHECK:   scf.if
// CHECK:     memref.store {{.*}}, %[[BIGSUM]][]
// CHECK:     memref.load %[[BIGSUM]][]
// CHECK:     memref.store {{.*}}, %[[MEAN]][]
// CHECK:   }
// CHECK:   gpu.terminator
// CHECK: memref.dealloc
// CHECK: gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c1024
// CHECK:   gpu.all_reduce or
// CHECK:   scf.if
// CHECK-NEXT: %[[F:.*]] = arith.ori %false
// CHECK-NEXT: memref.store %[[F]], %[[FLAG]][]
// CHECK-NEXT: }
// CHECK-NOT: gpu.launch
// CHECK-NOT: linalg.
#id2t = affine_map<(d0, d1) -> (d0, d1)>
#to0d2t = affine_map<(d0, d1) -> ()>
#id1t = affine_map<(d0) -> (d0)>
#to0d1t = affine_map<(d0) -> ()>
#s = affine_map<() -> ()>
func.func @tails(%x: memref<1024x16xf32>, %scale: memref<f32>, %sum: memref<f32>,
                 %seed: memref<f32>, %big: memref<100000xf32>, %bigsum: memref<f32>,
                 %flag: memref<i1>, %y: memref<64xi1>) {
  %zero = arith.constant 0.0 : f32
  %inv = arith.constant 9.765625e-04 : f32
  linalg.fill ins(%zero : f32) outs(%sum : memref<f32>)
  linalg.generic {indexing_maps = [#id2t, #to0d2t], iterator_types = ["reduction", "reduction"]}
      ins(%x : memref<1024x16xf32>) outs(%sum : memref<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %acc, %in : f32
    linalg.yield %a : f32
  }
  %mean = memref.alloc() : memref<f32>
  linalg.generic {indexing_maps = [#s, #s], iterator_types = []}
      ins(%sum : memref<f32>) outs(%mean : memref<f32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %inv : f32
    linalg.yield %m : f32
  }
  linalg.generic {indexing_maps = [#s, #s], iterator_types = []}
      ins(%scale : memref<f32>) outs(%seed : memref<f32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %inv : f32
    linalg.yield %m : f32
  }
  // A store ends the tail.
  %c0 = arith.constant 0 : index
  memref.store %zero, %big[%c0] : memref<100000xf32>
  linalg.generic {indexing_maps = [#s, #s], iterator_types = []}
      ins(%scale : memref<f32>) outs(%seed : memref<f32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.addf %in, %out : f32
    linalg.yield %m : f32
  }
  linalg.generic {indexing_maps = [#s, #s], iterator_types = []}
      ins(%scale : memref<f32>) outs(%seed : memref<f32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %out : f32
    linalg.yield %m : f32
  }
  // Grid-wide, then a tail in its second launch.
  linalg.generic {indexing_maps = [#id1t, #to0d1t], iterator_types = ["reduction"]}
      ins(%big : memref<100000xf32>) outs(%bigsum : memref<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %acc, %in : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#s, #s], iterator_types = []}
      ins(%bigsum : memref<f32>) outs(%mean : memref<f32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %inv : f32
    linalg.yield %m : f32
  }
  // A 0-d fill the next reduction absorbs: not the tail's.
  %false = arith.constant false
  linalg.fill ins(%false : i1) outs(%flag : memref<i1>)
  linalg.generic {indexing_maps = [#id1t, #to0d1t], iterator_types = ["reduction"]}
      ins(%y : memref<64xi1>) outs(%flag : memref<i1>) {
  ^bb0(%in: i1, %acc: i1):
    %o = arith.ori %acc, %in : i1
    linalg.yield %o : i1
  }
  memref.dealloc %mean : memref<f32>
  return
}

// -----

// Bodies that yield a value from outside them (a 0-d fill written as a
// linalg.generic): the kernel stores that value.
// CHECK-LABEL: func @yield_from_above
// CHECK-SAME: (%[[A:.*]]: memref<f32>, %[[B:.*]]: memref<f32>)
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: gpu.launch
// CHECK:   memref.store %[[ZERO]], %[[A]][]
// CHECK:   memref.store %[[ONE]], %[[B]][]
// CHECK:   gpu.terminator
// CHECK-NOT: gpu.launch
func.func @yield_from_above(%a: memref<f32>, %b: memref<f32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  linalg.generic {indexing_maps = [affine_map<() -> ()>], iterator_types = []} outs(%a : memref<f32>) {
  ^bb0(%out: f32):
    linalg.yield %zero : f32
  }
  linalg.generic {indexing_maps = [affine_map<() -> ()>], iterator_types = []} outs(%b : memref<f32>) {
  ^bb0(%out: f32):
    linalg.yield %one : f32
  }
  return
}
