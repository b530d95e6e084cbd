// The partial-reduction kernels of amp-gpu-reduction-kernels, run on the
// CPU by utils/simt_emulator.py: every thread of every block in lockstep,
// per-thread activity for the loops whose trip counts differ between
// threads and for the scf.if of the writing threads, gpu.all_reduce as the
// block's reduction, the column kernels' shared partial results checked for
// races at every access. Each element of OUT must be its first value
// combined with its slice of IN, as numpy computes it (small integers:
// exact in every order; no zeros, max over negative values and min over
// positive ones, so that a wrong start value shows).
//
// RUN: amp-opt %s --pass-pipeline="builtin.module(func.func(amp-gpu-reduction-kernels))" --mlir-print-op-generic -o %t.mlir
// RUN: %amp_build_root/venv/bin/python %amp_src_root/utils/simt_emulator.py %t.mlir --func row_sum --func f16_rows --reduction sum --reduce-dims 1 | FileCheck %s --check-prefix=ROWS
// RUN: %amp_build_root/venv/bin/python %amp_src_root/utils/simt_emulator.py %t.mlir --func bias_gradient --reduction sum --reduce-dims 0 | FileCheck %s --check-prefix=COLS
// RUN: %amp_build_root/venv/bin/python %amp_src_root/utils/simt_emulator.py %t.mlir --func row_max_3d --reduction max --reduce-dims 2 | FileCheck %s --check-prefix=MAX
// RUN: %amp_build_root/venv/bin/python %amp_src_root/utils/simt_emulator.py %t.mlir --func two_reduced_dims --reduction sum --reduce-dims 2,3 | FileCheck %s --check-prefix=TWO
// RUN: %amp_build_root/venv/bin/python %amp_src_root/utils/simt_emulator.py %t.mlir --func middle_dim --reduction min --reduce-dims 1 | FileCheck %s --check-prefix=MIDDLE
// RUN: %amp_build_root/venv/bin/python %amp_src_root/utils/simt_emulator.py %t.mlir --func row_or_i1 --func short_rows_or_i1 --reduction or --reduce-dims 1 | FileCheck %s --check-prefix=OR
// RUN: %amp_build_root/venv/bin/python %amp_src_root/utils/simt_emulator.py %t.mlir --func column_xor_i32 --reduction xor --reduce-dims 0 | FileCheck %s --check-prefix=XOR
// RUN: %amp_build_root/venv/bin/python %amp_src_root/utils/simt_emulator.py %t.mlir --func row_minui_i64 --reduction min --reduce-dims 1 | FileCheck %s --check-prefix=MINUI
// RUN: %amp_build_root/venv/bin/python %amp_src_root/utils/simt_emulator.py %t.mlir --func column_maxui_i16 --reduction max --reduce-dims 0 | FileCheck %s --check-prefix=MAXUI
// RUN: %amp_build_root/venv/bin/python %amp_src_root/utils/simt_emulator.py %t.mlir --func filled_row_sum --filled 0 --reduction sum --reduce-dims 1 | FileCheck %s --check-prefix=FILLEDROWS
// RUN: %amp_build_root/venv/bin/python %amp_src_root/utils/simt_emulator.py %t.mlir --func filled_column_max --filled 5 --reduction max --reduce-dims 0 | FileCheck %s --check-prefix=FILLEDCOLS
// ROWS: row_sum: 1 launch(es), 64 blocks of 256 threads, 0 mma.sync per warp, max |OUT - numpy| = 0
// ROWS: f16_rows: 1 launch(es), 1 blocks of 1024 threads, 0 mma.sync per warp, max |OUT - numpy| = 0
// COLS: bias_gradient: 1 launch(es), 3 blocks of 1024 threads, 0 mma.sync per warp, max |OUT - numpy| = 0
// MAX: row_max_3d: 1 launch(es), 30 blocks of 128 threads, 0 mma.sync per warp, max |OUT - numpy| = 0
// TWO: two_reduced_dims: 1 launch(es), 24 blocks of 128 threads, 0 mma.sync per warp, max |OUT - numpy| = 0
// MIDDLE: middle_dim: 1 launch(es), 11 blocks of 128 threads, 0 mma.sync per warp, max |OUT - numpy| = 0
// OR: row_or_i1: 1 launch(es), 40 blocks of 128 threads, 0 mma.sync per warp, max |OUT - numpy| = 0
// OR: short_rows_or_i1: 1 launch(es), 2 blocks of 64 threads, 0 mma.sync per warp, max |OUT - numpy| = 0
// XOR: column_xor_i32: 1 launch(es), 2 blocks of 1024 threads, 0 mma.sync per warp, max |OUT - numpy| = 0
// MINUI: row_minui_i64: 1 launch(es), 7 blocks of 64 threads, 0 mma.sync per warp, max |OUT - numpy| = 0
// FILLEDROWS: filled_row_sum: 1 launch(es), 16 blocks of 256 threads, 0 mma.sync per warp, max |OUT - numpy| = 0
// FILLEDCOLS: filled_column_max: 1 launch(es), 2 blocks of 256 threads, 0 mma.sync per warp, max |OUT - numpy| = 0
// MAXUI: column_maxui_i16: 1 launch(es), 1 blocks of 128 threads, 0 mma.sync per warp, max |OUT - numpy| = 0

// Rows: 300 elements, 256 threads (44 of them fold two, the rest one).
func.func @row_sum(%x: memref<64x300xf32>, %out: memref<64xf32>) {
  linalg.reduce ins(%x : memref<64x300xf32>) outs(%out : memref<64xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  return
}

// An f16 sum has no gpu.all_reduce form here: columns, 32 x 32 threads,
// 16 of the 32 columns past the end.
func.func @f16_rows(%x: memref<16x1000xf16>, %out: memref<16xf16>) {
  linalg.reduce ins(%x : memref<16x1000xf16>) outs(%out : memref<16xf16>) dimensions = [1]
    (%in: f16, %acc: f16) {
      %a = arith.addf %in, %acc : f16
      linalg.yield %a : f16
    }
  return
}

// A bias gradient over 300 rows of 70: columns, 3 blocks (26 threads of the
// last past the end), TY = 32.
func.func @bias_gradient(%dy: memref<300x70xf32>, %db: memref<70xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%dy : memref<300x70xf32>) outs(%db : memref<70xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %s = arith.addf %acc, %v : f32
    linalg.yield %s : f32
  }
  return
}

// Rows over two parallel dimensions (the block index delinearized).
func.func @row_max_3d(%x: memref<6x5x100xf32>, %out: memref<6x5xf32>) {
  linalg.reduce ins(%x : memref<6x5x100xf32>) outs(%out : memref<6x5xf32>) dimensions = [2]
    (%in: f32, %acc: f32) {
      %a = arith.maximumf %in, %acc : f32
      linalg.yield %a : f32
    }
  return
}

// Two reduction dimensions (7 x 10 = 70 elements per output, delinearized
// per thread).
func.func @two_reduced_dims(%x: memref<6x4x7x10xf32>, %out: memref<6x4xf32>) {
  linalg.reduce ins(%x : memref<6x4x7x10xf32>) outs(%out : memref<6x4xf32>) dimensions = [2, 3]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  return
}

// The reduction between two parallel dimensions, the innermost one
// parallel: columns over the 10 x 33 outputs, TY = 4 (50 rows, at least 8
// per thread).
func.func @middle_dim(%x: memref<10x50x33xi32>, %out: memref<10x33xi32>) {
  linalg.reduce ins(%x : memref<10x50x33xi32>) outs(%out : memref<10x33xi32>) dimensions = [1]
    (%in: i32, %acc: i32) {
      %a = arith.minsi %in, %acc : i32
      linalg.yield %a : i32
    }
  return
}

// i1 or over rows of 100: gpu.all_reduce through i32.
func.func @row_or_i1(%x: memref<40x100xi1>, %out: memref<40xi1>) {
  linalg.reduce ins(%x : memref<40x100xi1>) outs(%out : memref<40xi1>) dimensions = [1]
    (%in: i1, %acc: i1) {
      %a = arith.ori %in, %acc : i1
      linalg.yield %a : i1
    }
  return
}

// i1 or over rows of 20: columns, TY = 2, the partial results in a shared
// i1 buffer.
func.func @short_rows_or_i1(%x: memref<50x20xi1>, %out: memref<50xi1>) {
  linalg.reduce ins(%x : memref<50x20xi1>) outs(%out : memref<50xi1>) dimensions = [1]
    (%in: i1, %acc: i1) {
      %a = arith.ori %in, %acc : i1
      linalg.yield %a : i1
    }
  return
}

func.func @column_xor_i32(%x: memref<513x40xi32>, %out: memref<40xi32>) {
  linalg.reduce ins(%x : memref<513x40xi32>) outs(%out : memref<40xi32>) dimensions = [0]
    (%in: i32, %acc: i32) {
      %a = arith.xori %in, %acc : i32
      linalg.yield %a : i32
    }
  return
}

// Unsigned min from its neutral element, all ones (UINT64_MAX: -1 read
// signed), through gpu.all_reduce minui; the inputs are positive, where
// numpy's signed min agrees.
func.func @row_minui_i64(%x: memref<7x50xi64>, %out: memref<7xi64>) {
  linalg.reduce ins(%x : memref<7x50xi64>) outs(%out : memref<7xi64>) dimensions = [1]
    (%in: i64, %acc: i64) {
      %a = arith.minui %in, %acc : i64
      linalg.yield %a : i64
    }
  return
}

// Unsigned max in columns, the partial results in shared memory (the
// inputs are negative: the unsigned order among them is the signed one).
func.func @column_maxui_i16(%x: memref<50x7xi16>, %out: memref<7xi16>) {
  linalg.reduce ins(%x : memref<50x7xi16>) outs(%out : memref<7xi16>) dimensions = [0]
    (%in: i16, %acc: i16) {
      %a = arith.maxui %in, %acc : i16
      linalg.yield %a : i16
    }
  return
}

// Fills of the output right before, which the kernels start from (the
// fills go): OUT must be the fill's value combined with the fold, whatever
// OUT held (a kernel that loaded it would add its nonzero start, or keep
// its negative one under the max's start of 5).
func.func @filled_row_sum(%x: memref<16x300xf32>, %out: memref<16xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<16xf32>)
  linalg.reduce ins(%x : memref<16x300xf32>) outs(%out : memref<16xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %a = arith.addf %in, %acc : f32
      linalg.yield %a : f32
    }
  return
}

func.func @filled_column_max(%x: memref<96x64xf32>, %out: memref<64xf32>) {
  %five = arith.constant 5.0 : f32
  linalg.fill ins(%five : f32) outs(%out : memref<64xf32>)
  linalg.reduce ins(%x : memref<96x64xf32>) outs(%out : memref<64xf32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %a = arith.maxnumf %in, %acc : f32
      linalg.yield %a : f32
    }
  return
}
