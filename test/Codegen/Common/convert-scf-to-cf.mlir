// RUN: amp-opt %s -split-input-file --amp-convert-scf-to-cf | FileCheck %s
// RUN: amp-opt %s -split-input-file --amp-convert-scf-to-cf --mlir-print-ir-before=convert-scf-to-cf 2>&1 >/dev/null | FileCheck %s --check-prefix=SPLIT
// RUN: amp-opt %s -split-input-file --convert-scf-to-cf > %t.upstream
// RUN: amp-opt %s -split-input-file --amp-convert-scf-to-cf > %t.amp
// RUN: diff %t.upstream %t.amp

// amp-convert-scf-to-cf gives upstream convert-scf-to-cf's output (the diff
// above) in linear time: before upstream's pass runs, each block ends after
// each SCF op with a cf.br to the rest (the SPLIT lines: what upstream's pass is
// given), so that the pass's split before the op it lowers moves two ops,
// not every op after it (quadratic on a whole model's function: densenet201
// spent 64 of amp-cpu-pipeline's 88 s there). The blocks it made are merged
// back afterwards: no extra block or branch.

// SPLIT-LABEL: func.func @sequence
// SPLIT: scf.for
// SPLIT: }
// SPLIT-NEXT: cf.br ^[[B1:bb[0-9]+]]
// SPLIT-NEXT: ^[[B1]]:
// SPLIT-NEXT: memref.load
// SPLIT-NEXT: scf.for
// SPLIT: }
// SPLIT-NEXT: cf.br ^[[B2:bb[0-9]+]]
// SPLIT-NEXT: ^[[B2]]:
// SPLIT-NEXT: scf.if
// SPLIT: scf.yield %0
// SPLIT-NEXT: }
// SPLIT-NEXT: cf.br ^[[B3:bb[0-9]+]]
// SPLIT-NEXT: ^[[B3]]:
// SPLIT-NEXT: arith.mulf
// SPLIT-NEXT: return
// CHECK-LABEL: func.func @sequence
// CHECK-NOT: scf.
// CHECK: ^bb3:
// CHECK-NEXT: memref.load %{{.*}}[%c0]
// CHECK-NEXT: cf.br ^bb4
// CHECK: ^bb6:
// CHECK-NEXT: cf.cond_br %arg2, ^bb7, ^bb8
// CHECK: ^bb9(%[[T:.*]]: f32):
// CHECK-NEXT: cf.br ^bb10
// CHECK-NEXT: ^bb10:
// CHECK-NEXT: arith.mulf %[[T]]
// CHECK-NEXT: return
// CHECK-NOT: ^bb11
func.func @sequence(%buf: memref<8xf32>, %n: index, %c: i1) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    memref.store %one, %buf[%i] : memref<8xf32>
  }
  %a = memref.load %buf[%c0] : memref<8xf32>
  %s = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %a) -> f32 {
    %v = memref.load %buf[%i] : memref<8xf32>
    %r = arith.addf %acc, %v : f32
    scf.yield %r : f32
  }
  %t = scf.if %c -> f32 {
    scf.yield %s : f32
  } else {
    scf.yield %a : f32
  }
  %u = arith.mulf %t, %s : f32
  return %u : f32
}

// -----

// Not split: a loop body (scf.for has one block), and an SCF op right
// before its block's terminator. A multi-block region inside an SCF op
// (scf.execute_region) is split like a function's.
// SPLIT-LABEL: func.func @nested
// SPLIT: scf.for
// SPLIT-NEXT: scf.for
// SPLIT: }
// SPLIT-NEXT: memref.store
// SPLIT-NEXT: }
// SPLIT-NEXT: cf.br ^[[B1:bb[0-9]+]]
// SPLIT-NEXT: ^[[B1]]:
// SPLIT-NEXT: scf.execute_region
// SPLIT-NEXT: scf.while
// SPLIT: scf.yield %{{.*}} : index
// SPLIT-NEXT: }
// SPLIT-NEXT: cf.br ^[[B2:bb[0-9]+]]
// SPLIT-NEXT: ^[[B2]]:
// SPLIT-NEXT: arith.addi
// SPLIT-NEXT: scf.yield
// SPLIT-NEXT: }
// SPLIT-NEXT: cf.br ^[[B3:bb[0-9]+]]
// SPLIT-NEXT: ^[[B3]]:
// SPLIT-NEXT: scf.index_switch
// SPLIT: default {
// SPLIT-NEXT: }
// SPLIT-NEXT: return
// SPLIT-NOT: cf.br
// CHECK-LABEL: func.func @nested
// CHECK-NOT: scf.
// CHECK: return
func.func @nested(%buf: memref<8x8xf32>, %n: index, %k: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      memref.store %one, %buf[%i, %j] : memref<8x8xf32>
    }
    memref.store %one, %buf[%i, %c0] : memref<8x8xf32>
  }
  %r = scf.execute_region -> index {
    %w = scf.while (%x = %c0) : (index) -> index {
      %go = arith.cmpi slt, %x, %n : index
      scf.condition(%go) %x : index
    } do {
    ^bb0(%x: index):
      %y = arith.addi %x, %c1 : index
      scf.yield %y : index
    }
    %w1 = arith.addi %w, %c1 : index
    scf.yield %w1 : index
  }
  scf.index_switch %k
  case 0 {
    memref.store %one, %buf[%r, %c0] : memref<8x8xf32>
    scf.yield
  }
  default {
    scf.yield
  }
  return
}
