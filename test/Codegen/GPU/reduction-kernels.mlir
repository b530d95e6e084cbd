// RUN: amp-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(amp-gpu-reduction-kernels))" -verify-diagnostics | FileCheck %s

// Rows: a row sum whose rows are contiguous. One block per row, 256
// threads (300 rounded up to a power of two, at most 256); thread t folds
// the row's elements t, t + 256 from -0.0, gpu.all_reduce combines the
// block and thread 0 adds the output's value.
// CHECK-LABEL: func @row_sum
// CHECK-SAME: (%[[X:.*]]: memref<64x300xf32>, %[[OUT:.*]]: memref<64xf32>)
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[C300:.*]] = arith.constant 300 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in ({{.*}} = %[[C64]], {{.*}}) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in ({{.*}} = %[[C256]], {{.*}} = %c1{{.*}}, {{.*}} = %c1{{.*}})
// CHECK:   %[[NEUTRAL:.*]] = arith.constant -0.000000e+00 : f32
// CHECK:   %[[P:.*]] = scf.for %[[J:.*]] = %[[TX]] to %[[C300]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[NEUTRAL]]) -> (f32)
// CHECK:     %[[V:.*]] = memref.load %[[X]][%[[BX]], %[[J]]]
// CHECK:     %[[S:.*]] = arith.addf %[[ACC]], %[[V]] : f32
// CHECK:     scf.yield %[[S]]
// CHECK:   %[[ALL:.*]] = gpu.all_reduce add %[[P]] uniform
// CHECK:   %[[FIRST:.*]] = arith.cmpi eq, %[[TX]], %{{.*}}
// CHECK:   scf.if %[[FIRST]]
// CHECK:     %[[OLD:.*]] = memref.load %[[OUT]][%[[BX]]]
// CHECK:     %[[NEW:.*]] = arith.addf %[[OLD]], %[[ALL]] : f32
// CHECK:     memref.store %[[NEW]], %[[OUT]][%[[BX]]]
// CHECK-NOT: linalg.
func.func @row_sum(%x: memref<64x300xf32>, %out: memref<64xf32>) {
  linalg.reduce ins(%x : memref<64x300xf32>) outs(%out : memref<64xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %a = arith.addf %acc, %in : f32
      linalg.yield %a : f32
    }
  return
}

// -----

// Columns: a bias gradient (sum over the batch, rows of the input
// contiguous along the output). Blocks of 32 x TY threads over 32 output
// columns each: 4096 columns give 128 blocks, and TY doubles while the
// grid has fewer than 65536 threads: 16. Each thread folds every 16th row
// from -0.0 into a register, the 16 partial sums meet in shared memory and
// row 0 of the block adds them in order to the output's value.
// CHECK-LABEL: func @bias_gradient
// CHECK-SAME: (%[[DY:.*]]: memref<1024x4096xf32>, %[[DB:.*]]: memref<4096xf32>)
// CHECK-DAG: %[[C4096:.*]] = arith.constant 4096 : index
// CHECK-DAG: %[[C1024:.*]] = arith.constant 1024 : index
// CHECK-DAG: %[[C128:.*]] = arith.constant 128 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in ({{.*}} = %[[C128]], {{.*}}) threads(%[[TX:.*]], %[[TY:.*]], %{{.*}}) in ({{.*}} = %[[C32]], {{.*}} = %[[C16]], {{.*}}) workgroup(%[[PARTIALS:.*]] : memref<16x32xf32, #gpu.address_space<workgroup>>)
// CHECK:   %[[COL:.*]] = affine.apply #{{.*}}(%[[BX]], %[[TX]])
// CHECK:   %[[IN:.*]] = arith.cmpi ult, %[[COL]], %[[C4096]]
// CHECK:   %[[AT:.*]] = arith.select %[[IN]], %[[COL]], %{{.*}}
// CHECK:   %[[UB:.*]] = arith.select %[[IN]], %[[C1024]], %{{.*}}
// CHECK:   %[[NEUTRAL:.*]] = arith.constant -0.000000e+00 : f32
// CHECK:   %[[P:.*]] = scf.for %[[R:.*]] = %[[TY]] to %[[UB]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[NEUTRAL]]) -> (f32)
// CHECK:     %[[V:.*]] = memref.load %[[DY]][%[[R]], %[[AT]]]
// CHECK:     arith.addf %[[ACC]], %[[V]] : f32
// CHECK:   memref.store %[[P]], %[[PARTIALS]][%[[TY]], %[[TX]]]
// CHECK:   gpu.barrier
// CHECK:   %[[ROW0:.*]] = arith.cmpi eq, %[[TY]], %{{.*}}
// CHECK:   %[[WRITES:.*]] = arith.andi %[[IN]], %[[ROW0]]
// CHECK:   scf.if %[[WRITES]]
// CHECK:     %[[T:.*]] = scf.for %[[Y:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC2:.*]] = %[[P]]) -> (f32)
// CHECK:       %[[Q:.*]] = memref.load %[[PARTIALS]][%[[Y]], %[[TX]]]
// CHECK:       arith.addf %[[ACC2]], %[[Q]] : f32
// CHECK:     %[[OLD:.*]] = memref.load %[[DB]][%[[AT]]]
// CHECK:     %[[NEW:.*]] = arith.addf %[[OLD]], %[[T]] : f32
// CHECK:     memref.store %[[NEW]], %[[DB]][%[[AT]]]
// CHECK-NOT: linalg.
func.func @bias_gradient(%dy: memref<1024x4096xf32>, %db: memref<4096xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%dy : memref<1024x4096xf32>) outs(%db : memref<4096xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// The per-row inf/NaN flags of loss scaling over a gradient: rows of 4096,
// i1 or through i32 in gpu.all_reduce.
// CHECK-LABEL: func @row_flags
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c4096{{.*}}) threads({{.*}}) in ({{.*}} = %c256{{.*}})
// CHECK:   %[[FALSE:.*]] = arith.constant false
// CHECK:   %[[P:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[FALSE]]) -> (i1)
// CHECK:     math.absf
// CHECK:     arith.cmpf uge
// CHECK:     arith.ori
// CHECK:   %[[W:.*]] = arith.extui %[[P]] : i1 to i32
// CHECK:   %[[ALL:.*]] = gpu.all_reduce or %[[W]] uniform
// CHECK:   %[[B:.*]] = arith.trunci %[[ALL]] : i32 to i1
// CHECK:   scf.if
// CHECK:     arith.ori %{{.*}}, %[[B]] : i1
func.func @row_flags(%g: memref<4096x4096xf32>, %flags: memref<4096xi1>) {
  %inf = arith.constant 0x7F800000 : f32
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%g : memref<4096x4096xf32>) outs(%flags : memref<4096xi1>) {
  ^bb0(%x: f32, %acc: i1):
    %a = math.absf %x : f32
    %c = arith.cmpf uge, %a, %inf : f32
    %o = arith.ori %acc, %c : i1
    linalg.yield %o : i1
  }
  return
}

// -----

// Rows of 16 (at most 32): columns, one thread per row and TY = 2 (each
// thread folds at least 8 elements); the softmax's row max of a 1024 x 16
// logits buffer.
// CHECK-LABEL: func @short_rows
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %c32{{.*}}) threads({{.*}}) in ({{.*}} = %c32{{.*}}, {{.*}} = %c2{{.*}}, {{.*}}) workgroup({{.*}} : memref<2x32xf32, #gpu.address_space<workgroup>>)
// CHECK:   arith.constant 0xFF800000 : f32
// CHECK:   arith.maximumf
// CHECK:   gpu.barrier
// CHECK-NOT: gpu.all_reduce
func.func @short_rows(%x: memref<1024x16xf32>, %out: memref<1024xf32>) {
  linalg.reduce ins(%x : memref<1024x16xf32>) outs(%out : memref<1024xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %a = arith.maximumf %in, %acc : f32
      linalg.yield %a : f32
    }
  return
}

// -----

// Several parallel and reduction dimensions (a layer norm's statistics over
// the last two dimensions of 8 x 16 x 4 x 32, the output 8 x 16): the block
// index is delinearized into the parallel indices, each thread's reduction
// index into the reduction ones.
// CHECK-LABEL: func @multi_dim
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in ({{.*}} = %c128{{.*}}) threads({{.*}}) in ({{.*}} = %c128{{.*}},
// CHECK:   %[[P:.*]]:2 = affine.delinearize_index %[[BX]] into (8, 16)
// CHECK:   scf.for %[[J:[^ ]*]] =
// CHECK:     %[[R:.*]]:2 = affine.delinearize_index %[[J]] into (4, 32)
// CHECK:     memref.load %{{.*}}[%[[P]]#0, %[[P]]#1, %[[R]]#0, %[[R]]#1]
// CHECK:   gpu.all_reduce add
// CHECK:   scf.if
// CHECK:     memref.store %{{.*}}, %{{.*}}[%[[P]]#0, %[[P]]#1]
func.func @multi_dim(%x: memref<8x16x4x32xf32>, %out: memref<8x16xf32>) {
  linalg.reduce ins(%x : memref<8x16x4x32xf32>) outs(%out : memref<8x16xf32>) dimensions = [2, 3]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  return
}

// -----

// Dynamic sizes: rows of 256 threads (the reduction's size is not known),
// one block per row; the sizes come from the buffer.
// CHECK-LABEL: func @dynamic_rows
// CHECK-SAME: (%[[X:.*]]: memref<?x?xf32>, %[[OUT:.*]]: memref<?xf32>)
// CHECK-DAG: %[[M:.*]] = memref.dim %[[X]], %c0
// CHECK-DAG: %[[N:.*]] = memref.dim %[[X]], %c1
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %[[M]], {{.*}}) threads({{.*}}) in ({{.*}} = %c256{{.*}},
// CHECK:   scf.for %{{.*}} = %{{.*}} to %[[N]] step
func.func @dynamic_rows(%x: memref<?x?xf32>, %out: memref<?xf32>) {
  linalg.reduce ins(%x : memref<?x?xf32>) outs(%out : memref<?xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  return
}

// -----

// A combiner without a gpu.all_reduce form here (an f16 sum): columns,
// whose partial results meet in shared memory, even with contiguous rows.
// CHECK-LABEL: func @f16_rows
// CHECK: gpu.launch {{.*}} workgroup({{.*}} : memref<32x32xf16, #gpu.address_space<workgroup>>)
// CHECK-NOT: gpu.all_reduce
// CHECK: arith.addf {{.*}} : f16
func.func @f16_rows(%x: memref<16x1024xf16>, %out: memref<16xf16>) {
  linalg.reduce ins(%x : memref<16x1024xf16>) outs(%out : memref<16xf16>) dimensions = [1]
    (%in: f16, %acc: f16) {
      %a = arith.addf %in, %acc : f16
      linalg.yield %a : f16
    }
  return
}

// -----

// A matmul is a reduction whose operands are reused across output
// elements: left alone, no remark (the parallel-loop path or the
// tensor-core and cuBLAS passes take it).
// CHECK-LABEL: func @matmul_untouched
// CHECK-NOT: gpu.launch
// CHECK: linalg.matmul
func.func @matmul_untouched(%a: memref<64x32xf32>, %b: memref<32x16xf32>, %c: memref<64x16xf32>) {
  linalg.matmul ins(%a, %b : memref<64x32xf32>, memref<32x16xf32>) outs(%c : memref<64x16xf32>)
  return
}

// -----

// What stays on the parallel-loop path, with a remark.

func.func @two_outputs(%x: memref<8x64xf32>, %s: memref<8xf32>, %m: memref<8xf32>) {
  // expected-remark @below {{amp-gpu-reduction-kernels: this reduction stays on the parallel-loop path (more than one output)}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x64xf32>) outs(%s, %m : memref<8xf32>, memref<8xf32>) {
  ^bb0(%v: f32, %acc: f32, %mx: f32):
    %a = arith.addf %acc, %v : f32
    %b = arith.maximumf %mx, %v : f32
    linalg.yield %a, %b : f32, f32
  }
  return
}

func.func @output_not_per_parallel_point(%x: memref<8x4x64xf32>, %out: memref<8xf32>) {
  // expected-remark @below {{amp-gpu-reduction-kernels: this reduction stays on the parallel-loop path (the output is not indexed by the parallel dimensions, each once)}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : memref<8x4x64xf32>) outs(%out : memref<8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %a = arith.addf %acc, %v : f32
    linalg.yield %a : f32
  }
  return
}

func.func @in_place(%x: memref<8x64xf32>) {
  %col = memref.subview %x[0, 0] [8, 1] [1, 1] : memref<8x64xf32> to memref<8xf32, strided<[64]>>
  // expected-remark @below {{amp-gpu-reduction-kernels: this reduction stays on the parallel-loop path (an input on the output's buffer)}}
  linalg.reduce ins(%x : memref<8x64xf32>) outs(%col : memref<8xf32, strided<[64]>>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  return
}

// An input that may be the output's buffer through a transpose, or a
// select, and a body that loads from the output's buffer itself.
func.func @in_place_transposed(%x: memref<64x64xf32>) {
  %t = memref.transpose %x (i, j) -> (j, i) : memref<64x64xf32> to memref<64x64xf32, strided<[1, 64]>>
  %col = memref.subview %x[0, 0] [64, 1] [1, 1] : memref<64x64xf32> to memref<64xf32, strided<[64]>>
  // expected-remark @below {{amp-gpu-reduction-kernels: this reduction stays on the parallel-loop path (an input on the output's buffer)}}
  linalg.reduce ins(%t : memref<64x64xf32, strided<[1, 64]>>) outs(%col : memref<64xf32, strided<[64]>>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  return
}

func.func @selected_output(%x: memref<8x64xf32>, %y: memref<8x64xf32>, %p: i1) {
  %in = arith.select %p, %x, %y : memref<8x64xf32>
  %col = memref.subview %y[0, 0] [8, 1] [1, 1] : memref<8x64xf32> to memref<8xf32, strided<[64]>>
  // expected-remark @below {{amp-gpu-reduction-kernels: this reduction stays on the parallel-loop path (an input on the output's buffer)}}
  linalg.reduce ins(%in : memref<8x64xf32>) outs(%col : memref<8xf32, strided<[64]>>) dimensions = [1]
    (%v: f32, %acc: f32) {
      %a = arith.addf %v, %acc : f32
      linalg.yield %a : f32
    }
  return
}

func.func @body_reads_output(%x: memref<8x64xf32>, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  // expected-remark @below {{amp-gpu-reduction-kernels: this reduction stays on the parallel-loop path (an input on the output's buffer)}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x64xf32>) outs(%out : memref<8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %first = memref.load %out[%c0] : memref<8xf32>
    %m = arith.mulf %v, %first : f32
    %a = arith.addf %acc, %m : f32
    linalg.yield %a : f32
  }
  return
}

// A body that reads a stack buffer (kernels cannot reach it).
func.func @body_reads_stack(%x: memref<8x64xf32>, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %s = memref.alloca() : memref<1xf32>
  // expected-remark @below {{amp-gpu-reduction-kernels: this reduction stays on the parallel-loop path (a stack buffer operand)}}
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<8x64xf32>) outs(%out : memref<8xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %w = memref.load %s[%c0] : memref<1xf32>
    %m = arith.mulf %v, %w : f32
    %a = arith.addf %acc, %m : f32
    linalg.yield %a : f32
  }
  return
}

// Vector elements: no neutral element constant of the pass's kind.
func.func @vector_elements(%x: memref<8x64xvector<4xf32>>, %out: memref<8xvector<4xf32>>) {
  // expected-remark @below {{amp-gpu-reduction-kernels: this reduction stays on the parallel-loop path (a reduction of vector<4xf32> elements (scalars only))}}
  linalg.reduce ins(%x : memref<8x64xvector<4xf32>>) outs(%out : memref<8xvector<4xf32>>) dimensions = [1]
    (%in: vector<4xf32>, %acc: vector<4xf32>) {
      %a = arith.addf %in, %acc : vector<4xf32>
      linalg.yield %a : vector<4xf32>
    }
  return
}

func.func @two_combiners(%x: memref<8x64xf32>, %out: memref<8xf32>) {
  %two = arith.constant 2.0 : f32
  // expected-remark @below {{amp-gpu-reduction-kernels: this reduction stays on the parallel-loop path (no single combiner op)}}
  linalg.reduce ins(%x : memref<8x64xf32>) outs(%out : memref<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %m = arith.mulf %acc, %two : f32
      %a = arith.addf %m, %in : f32
      linalg.yield %a : f32
    }
  return
}

func.func @no_neutral_element(%x: memref<8x64xf32>, %out: memref<8xf32>) {
  // expected-remark @below {{amp-gpu-reduction-kernels: this reduction stays on the parallel-loop path (combiner 'arith.subf' has no neutral element)}}
  linalg.reduce ins(%x : memref<8x64xf32>) outs(%out : memref<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %a = arith.subf %acc, %in : f32
      linalg.yield %a : f32
    }
  return
}

func.func @stack_buffer(%x: memref<8x64xf32>) {
  %out = memref.alloca() : memref<8xf32>
  // expected-remark @below {{amp-gpu-reduction-kernels: this reduction stays on the parallel-loop path (a stack buffer operand)}}
  linalg.reduce ins(%x : memref<8x64xf32>) outs(%out : memref<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  return
}

func.func private @f(f32) -> f32

func.func @call_in_body(%x: memref<8x64xf32>, %out: memref<8xf32>) {
  // expected-remark @below {{amp-gpu-reduction-kernels: this reduction stays on the parallel-loop path (a call in its body)}}
  linalg.reduce ins(%x : memref<8x64xf32>) outs(%out : memref<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %c = func.call @f(%in) : (f32) -> f32
      %a = arith.addf %c, %acc : f32
      linalg.yield %a : f32
    }
  return
}

func.func @empty(%x: memref<8x0xf32>, %out: memref<8xf32>) {
  // expected-remark @below {{amp-gpu-reduction-kernels: this reduction stays on the parallel-loop path (an empty loop)}}
  linalg.reduce ins(%x : memref<8x0xf32>) outs(%out : memref<8xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  return
}

func.func @in_parallel_loop(%x: memref<4x8x64xf32>, %out: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %xi = memref.subview %x[%i, 0, 0] [1, 8, 64] [1, 1, 1] : memref<4x8x64xf32> to memref<8x64xf32, strided<[64, 1], offset: ?>>
    %oi = memref.subview %out[%i, 0] [1, 8] [1, 1] : memref<4x8xf32> to memref<8xf32, strided<[1], offset: ?>>
    // expected-remark @below {{amp-gpu-reduction-kernels: this reduction stays on the parallel-loop path (inside a parallel loop)}}
    linalg.reduce ins(%xi : memref<8x64xf32, strided<[64, 1], offset: ?>>) outs(%oi : memref<8xf32, strided<[1], offset: ?>>) dimensions = [1]
      (%in: f32, %acc: f32) {
        %a = arith.addf %in, %acc : f32
        linalg.yield %a : f32
      }
    scf.reduce
  }
  return
}

// -----

// Inside a kernel already: left alone, no remark.
// CHECK-LABEL: func @in_launch
// CHECK: gpu.launch
// CHECK: linalg.reduce
// CHECK-NOT: gpu.launch
func.func @in_launch(%x: memref<8x64xf32>, %out: memref<8xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    linalg.reduce ins(%x : memref<8x64xf32>) outs(%out : memref<8xf32>) dimensions = [1]
      (%in: f32, %acc: f32) {
        %a = arith.addf %in, %acc : f32
        linalg.yield %a : f32
      }
    gpu.terminator
  }
  return
}

// -----

// A fill of the output right before (bufferization's zeroed accumulator):
// thread 0 adds the block's sum to the fill's value, without loading the
// output, and the fill goes.
// CHECK-LABEL: func @filled_row_sum
// CHECK-SAME: (%[[X:.*]]: memref<64x300xf32>, %[[OUT:.*]]: memref<64xf32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NOT: linalg.fill
// CHECK: gpu.launch
// CHECK:   %[[ALL:.*]] = gpu.all_reduce add
// CHECK:   scf.if
// CHECK-NOT: memref.load %[[OUT]][
// CHECK:     %[[NEW:.*]] = arith.addf %[[ZERO]], %[[ALL]] : f32
// CHECK:     memref.store %[[NEW]], %[[OUT]][%{{.*}}]
// CHECK-NOT: linalg.
func.func @filled_row_sum(%x: memref<64x300xf32>, %out: memref<64xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<64xf32>)
  linalg.reduce ins(%x : memref<64x300xf32>) outs(%out : memref<64xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %a = arith.addf %acc, %in : f32
      linalg.yield %a : f32
    }
  return
}

// -----

// The same for a column kernel (a bias gradient's -inf-started max here):
// row 0 starts from the fill's value.
// CHECK-LABEL: func @filled_column_max
// CHECK-SAME: (%[[DY:.*]]: memref<1024x4096xf32>, %[[DB:.*]]: memref<4096xf32>)
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NOT: linalg.fill
// CHECK: gpu.launch
// CHECK:   gpu.barrier
// CHECK-NOT: memref.load %[[DB]][
// CHECK:   arith.maxnumf %[[NINF]], %{{.*}} : f32
// CHECK:   memref.store %{{.*}}, %[[DB]][%{{.*}}]
// CHECK-NOT: linalg.
func.func @filled_column_max(%dy: memref<1024x4096xf32>, %db: memref<4096xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  linalg.fill ins(%ninf : f32) outs(%db : memref<4096xf32>)
  linalg.reduce ins(%dy : memref<1024x4096xf32>) outs(%db : memref<4096xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %a = arith.maxnumf %acc, %in : f32
      linalg.yield %a : f32
    }
  return
}

// -----

// Fills that stay: one with an op between it and the reduction, one of
// another buffer, one of a buffer the reduction writes only part of (a
// subview, through another value). The kernels load the output.
// CHECK-LABEL: func @fills_that_stay
// CHECK-SAME: (%[[X:.*]]: memref<64x300xf32>, %[[OUT:.*]]: memref<64xf32>, %[[OTHER:.*]]: memref<64xf32>, %[[WIDE:.*]]: memref<128xf32>)
// CHECK: linalg.fill {{.*}} outs(%[[OUT]] :
// CHECK: memref.store {{.*}}, %[[OTHER]]
// CHECK: gpu.launch
// CHECK:     memref.load %[[OUT]][
// CHECK: linalg.fill {{.*}} outs(%[[OTHER]] :
// CHECK: gpu.launch
// CHECK:     memref.load %[[OUT]][
// CHECK: linalg.fill {{.*}} outs(%[[WIDE]] :
// CHECK: %[[HALF:.*]] = memref.subview %[[WIDE]]
// CHECK: gpu.launch
// CHECK:     memref.load %[[HALF]][
func.func @fills_that_stay(%x: memref<64x300xf32>, %out: memref<64xf32>,
                           %other: memref<64xf32>, %wide: memref<128xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  linalg.fill ins(%zero : f32) outs(%out : memref<64xf32>)
  memref.store %zero, %other[%c0] : memref<64xf32>
  linalg.reduce ins(%x : memref<64x300xf32>) outs(%out : memref<64xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %a = arith.addf %acc, %in : f32
      linalg.yield %a : f32
    }
  linalg.fill ins(%zero : f32) outs(%other : memref<64xf32>)
  linalg.reduce ins(%x : memref<64x300xf32>) outs(%out : memref<64xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %a = arith.addf %acc, %in : f32
      linalg.yield %a : f32
    }
  linalg.fill ins(%zero : f32) outs(%wide : memref<128xf32>)
  %half = memref.subview %wide[0] [64] [1] : memref<128xf32> to memref<64xf32, strided<[1]>>
  linalg.reduce ins(%x : memref<64x300xf32>) outs(%half : memref<64xf32, strided<[1]>>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %a = arith.addf %acc, %in : f32
      linalg.yield %a : f32
    }
  return
}
