// The full-reduction kernels of amp-gpu-scalar-kernels (one block of 1024
// threads: each folds a strided share in a loop whose trip count differs
// between threads, gpu.all_reduce combines the block, thread 0 combines
// that with the output), run on the CPU by utils/simt_emulator.py: threads
// in lockstep with per-thread activity for the divergent loop and the
// scf.if, gpu.all_reduce as the block's reduction. OUT must be its first
// value combined with every element of IN, as numpy computes it (small
// integers: exact in every order).
//
// RUN: amp-opt %s --pass-pipeline="builtin.module(func.func(amp-gpu-scalar-kernels))" --mlir-print-op-generic -o %t.mlir
// RUN: %amp_build_root/venv/bin/python %amp_src_root/utils/simt_emulator.py %t.mlir --func sum_f32 --func sum_i32 --reduction sum | FileCheck %s --check-prefix=SUM
// RUN: %amp_build_root/venv/bin/python %amp_src_root/utils/simt_emulator.py %t.mlir --func max_f32 --reduction max | FileCheck %s --check-prefix=MAX
// RUN: %amp_build_root/venv/bin/python %amp_src_root/utils/simt_emulator.py %t.mlir --func or_i1 --reduction or | FileCheck %s --check-prefix=OR
// RUN: %amp_build_root/venv/bin/python %amp_src_root/utils/simt_emulator.py %t.mlir --func min_i32 --reduction min | FileCheck %s --check-prefix=MIN
// RUN: %amp_build_root/venv/bin/python %amp_src_root/utils/simt_emulator.py %t.mlir --func xor_i32 --reduction xor | FileCheck %s --check-prefix=XOR
// RUN: %amp_build_root/venv/bin/python %amp_src_root/utils/simt_emulator.py %t.mlir --func prod_f64 --reduction prod | FileCheck %s --check-prefix=PROD
// RUN: %amp_build_root/venv/bin/python %amp_src_root/utils/simt_emulator.py %t.mlir --func sum_0d --reduction sum | FileCheck %s --check-prefix=SUM0D
// RUN: %amp_build_root/venv/bin/python %amp_src_root/utils/simt_emulator.py %t.mlir --func grid_sum_f32 --reduction sum | FileCheck %s --check-prefix=GRIDSUM
// RUN: %amp_build_root/venv/bin/python %amp_src_root/utils/simt_emulator.py %t.mlir --func grid_max_f32 --reduction max | FileCheck %s --check-prefix=GRIDMAX
// RUN: %amp_build_root/venv/bin/python %amp_src_root/utils/simt_emulator.py %t.mlir --func filled_sum_f32 --filled 0 --reduction sum | FileCheck %s --check-prefix=FILLEDSUM
// RUN: %amp_build_root/venv/bin/python %amp_src_root/utils/simt_emulator.py %t.mlir --func filled_grid_max_f32 --filled 5 --reduction max | FileCheck %s --check-prefix=FILLEDGRIDMAX
// RUN: %amp_build_root/venv/bin/python %amp_src_root/utils/simt_emulator.py %t.mlir --func grouped_sum_f32 --filled 0 --reduction sum | FileCheck %s --check-prefix=GROUPED
// SUM: sum_f32: 1 launch(es), 1 blocks of 1024 threads, 0 mma.sync per warp, max |OUT - numpy| = 0
// SUM: sum_i32: 1 launch(es), 1 blocks of 1024 threads, 0 mma.sync per warp, max |OUT - numpy| = 0
// MAX: max_f32: 1 launch(es), 1 blocks of 1024 threads, 0 mma.sync per warp, max |OUT - numpy| = 0
// OR: or_i1: 1 launch(es), 1 blocks of 1024 threads, 0 mma.sync per warp, max |OUT - numpy| = 0
// MIN: min_i32: 1 launch(es), 1 blocks of 1024 threads, 0 mma.sync per warp, max |OUT - numpy| = 0
// XOR: xor_i32: 1 launch(es), 1 blocks of 1024 threads, 0 mma.sync per warp, max |OUT - numpy| = 0
// PROD: prod_f64: 1 launch(es), 1 blocks of 1024 threads, 0 mma.sync per warp, max |OUT - numpy| = 0
// SUM0D: sum_0d: 1 launch(es), 1 blocks of 1 threads, 0 mma.sync per warp, max |OUT - numpy| = 0
// GRIDSUM: grid_sum_f32: 2 launch(es), 22 blocks of 256,1024 threads, 0 mma.sync per warp, max |OUT - numpy| = 0
// GRIDMAX: grid_max_f32: 2 launch(es), 9 blocks of 256,1024 threads, 0 mma.sync per warp, max |OUT - numpy| = 0
// FILLEDSUM: filled_sum_f32: 1 launch(es), 1 blocks of 1024 threads, 0 mma.sync per warp, max |OUT - numpy| = 0
// FILLEDGRIDMAX: filled_grid_max_f32: 2 launch(es), 9 blocks of 256,1024 threads, 0 mma.sync per warp, max |OUT - numpy| = 0
// GROUPED: grouped_sum_f32: 1 launch(es), 1 blocks of 1024 threads, 0 mma.sync per warp, max |OUT - numpy| = 0
//
// The inputs make a wrong start value or a doubly folded element show: no
// zeros, max over negative values, min over positive ones, products of
// +-1 (simt_emulator.py, reduction_inputs).

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#to0d2 = affine_map<(d0, d1) -> ()>
#id1 = affine_map<(d0) -> (d0)>
#to0d1 = affine_map<(d0) -> ()>

// A loss-style sum over a 2-D buffer (3 threads' shares longer than the
// rest: 37 * 129 = 4773 elements).
func.func @sum_f32(%a: memref<37x129xf32>, %o: memref<f32>) {
  linalg.generic {indexing_maps = [#id2, #to0d2], iterator_types = ["reduction", "reduction"]}
      ins(%a : memref<37x129xf32>) outs(%o : memref<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  }
  return
}

func.func @sum_i32(%a: memref<2000xi32>, %o: memref<i32>) {
  linalg.generic {indexing_maps = [#id1, #to0d1], iterator_types = ["reduction"]}
      ins(%a : memref<2000xi32>) outs(%o : memref<i32>) {
  ^bb0(%x: i32, %acc: i32):
    %s = arith.addi %acc, %x : i32
    linalg.yield %s : i32
  }
  return
}

// Fewer elements than threads: most threads fold nothing.
func.func @max_f32(%a: memref<700xf32>, %o: memref<f32>) {
  linalg.generic {indexing_maps = [#id1, #to0d1], iterator_types = ["reduction"]}
      ins(%a : memref<700xf32>) outs(%o : memref<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %m = arith.maximumf %acc, %x : f32
    linalg.yield %m : f32
  }
  return
}

// The or of inf/NaN flags (loss scaling), through i32 for gpu.all_reduce.
func.func @or_i1(%a: memref<4096xi1>, %o: memref<i1>) {
  linalg.generic {indexing_maps = [#id1, #to0d1], iterator_types = ["reduction"]}
      ins(%a : memref<4096xi1>) outs(%o : memref<i1>) {
  ^bb0(%x: i1, %acc: i1):
    %r = arith.ori %acc, %x : i1
    linalg.yield %r : i1
  }
  return
}

// The starting value of a min is the largest i32 (a start of 0 would show).
func.func @min_i32(%a: memref<7xi32>, %o: memref<i32>) {
  linalg.generic {indexing_maps = [#id1, #to0d1], iterator_types = ["reduction"]}
      ins(%a : memref<7xi32>) outs(%o : memref<i32>) {
  ^bb0(%x: i32, %acc: i32):
    %m = arith.minsi %acc, %x : i32
    linalg.yield %m : i32
  }
  return
}

func.func @xor_i32(%a: memref<3000xi32>, %o: memref<i32>) {
  linalg.generic {indexing_maps = [#id1, #to0d1], iterator_types = ["reduction"]}
      ins(%a : memref<3000xi32>) outs(%o : memref<i32>) {
  ^bb0(%x: i32, %acc: i32):
    %r = arith.xori %acc, %x : i32
    linalg.yield %r : i32
  }
  return
}

func.func @prod_f64(%a: memref<2000xf64>, %o: memref<f64>) {
  linalg.generic {indexing_maps = [#id1, #to0d1], iterator_types = ["reduction"]}
      ins(%a : memref<2000xf64>) outs(%o : memref<f64>) {
  ^bb0(%x: f64, %acc: f64):
    %p = arith.mulf %acc, %x : f64
    linalg.yield %p : f64
  }
  return
}

// No loops at all: a kernel of one thread.
func.func @sum_0d(%a: memref<f32>, %o: memref<f32>) {
  linalg.reduce ins(%a : memref<f32>) outs(%o : memref<f32>) dimensions = []
    (%x: f32, %acc: f32) {
      %s = arith.addf %acc, %x : f32
      linalg.yield %s : f32
    }
  return
}

// More than 65536 elements: the grid-wide form. 300 x 1100 = 330000
// elements give 21 blocks (at least 16 elements per thread), each storing
// a partial sum, then one block of 256 threads adds the 21 and the output.
func.func @grid_sum_f32(%a: memref<300x1100xf32>, %o: memref<f32>) {
  linalg.generic {indexing_maps = [#id2, #to0d2], iterator_types = ["reduction", "reduction"]}
      ins(%a : memref<300x1100xf32>) outs(%o : memref<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  }
  return
}

// A max over 130001 elements: 8 blocks, the last elements folded by few
// threads.
func.func @grid_max_f32(%a: memref<130001xf32>, %o: memref<f32>) {
  linalg.generic {indexing_maps = [#id1, #to0d1], iterator_types = ["reduction"]}
      ins(%a : memref<130001xf32>) outs(%o : memref<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %m = arith.maximumf %acc, %x : f32
    linalg.yield %m : f32
  }
  return
}

// Fills of the output right before, which the kernels start from (the
// fills go): OUT must be the fill's value combined with every element,
// whatever OUT held.
func.func @filled_sum_f32(%a: memref<37x129xf32>, %o: memref<f32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%o : memref<f32>)
  linalg.generic {indexing_maps = [#id2, #to0d2], iterator_types = ["reduction", "reduction"]}
      ins(%a : memref<37x129xf32>) outs(%o : memref<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  }
  return
}

func.func @filled_grid_max_f32(%a: memref<130001xf32>, %o: memref<f32>) {
  %five = arith.constant 5.0 : f32
  linalg.fill ins(%five : f32) outs(%o : memref<f32>)
  linalg.generic {indexing_maps = [#id1, #to0d1], iterator_types = ["reduction"]}
      ins(%a : memref<130001xf32>) outs(%o : memref<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %m = arith.maxnumf %acc, %x : f32
    linalg.yield %m : f32
  }
  return
}

// A run of full reductions into one output (the inf/NaN checks of a
// loss-scaled step's gradients): one kernel, each thread folding its share
// of each op in turn. Three disjoint views of IN of different shapes and
// ranks (32 x 40, 63 x 40 and 40 elements; the last two views made between
// the reductions) cover it once: OUT must be the fill's value plus every
// element of IN.
func.func @grouped_sum_f32(%a: memref<96x40xf32>, %o: memref<f32>) {
  %zero = arith.constant 0.0 : f32
  %top = memref.reinterpret_cast %a to offset: [0], sizes: [32, 40], strides: [40, 1]
      : memref<96x40xf32> to memref<32x40xf32, strided<[40, 1]>>
  linalg.fill ins(%zero : f32) outs(%o : memref<f32>)
  linalg.generic {indexing_maps = [#id2, #to0d2], iterator_types = ["reduction", "reduction"]}
      ins(%top : memref<32x40xf32, strided<[40, 1]>>) outs(%o : memref<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  }
  %middle = memref.reinterpret_cast %a to offset: [1280], sizes: [63, 40], strides: [40, 1]
      : memref<96x40xf32> to memref<63x40xf32, strided<[40, 1], offset: 1280>>
  linalg.generic {indexing_maps = [#id2, #to0d2], iterator_types = ["reduction", "reduction"]}
      ins(%middle : memref<63x40xf32, strided<[40, 1], offset: 1280>>) outs(%o : memref<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  %last = memref.reinterpret_cast %a to offset: [3800], sizes: [40], strides: [1]
      : memref<96x40xf32> to memref<40xf32, strided<[1], offset: 3800>>
  linalg.generic {indexing_maps = [#id1, #to0d1], iterator_types = ["reduction"]}
      ins(%last : memref<40xf32, strided<[1], offset: 3800>>) outs(%o : memref<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  }
  return
}
