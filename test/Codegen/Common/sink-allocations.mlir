// RUN: amp-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(amp-sink-allocations))" | FileCheck %s
// RUN: amp-opt %s -split-input-file --pass-pipeline="builtin.module(func.func(amp-sink-allocations,optimize-allocation-liveness))" | FileCheck %s --check-prefix=LIVE

// Two buffers allocated at the top of the function (where CSE left their
// tensor.empty), the second first used after the first is dead: each
// allocation moves down to its first user, so with upstream
// optimize-allocation-liveness (each dealloc up to after the last use of
// the buffer or of a view of it) the two are never held at once.
// CHECK-LABEL: func @sink
// CHECK: arith.constant 1.0
// CHECK-NEXT: %[[A:.*]] = memref.alloc() : memref<64xf32>
// CHECK-NEXT: linalg.fill {{.*}} outs(%[[A]] : memref<64xf32>)
// CHECK-NEXT: memref.copy %[[A]], %arg0
// CHECK-NEXT: %[[B:.*]] = memref.alloc() : memref<64xf32>
// CHECK-NEXT: linalg.fill {{.*}} outs(%[[B]] : memref<64xf32>)
// LIVE-LABEL: func @sink
// LIVE: %[[A:.*]] = memref.alloc() : memref<64xf32>
// LIVE: memref.copy %[[A]], %arg0
// LIVE-NEXT: memref.dealloc %[[A]]
// LIVE-NEXT: %[[B:.*]] = memref.alloc() : memref<64xf32>
// LIVE: memref.subview %[[B]]
// LIVE: memref.copy
// LIVE-NEXT: memref.dealloc %[[B]]
// LIVE-NEXT: return
func.func @sink(%out: memref<64xf32>, %out2: memref<32xf32>) {
  %z = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<64xf32>
  %b = memref.alloc() : memref<64xf32>
  linalg.fill ins(%z : f32) outs(%a : memref<64xf32>)
  memref.copy %a, %out : memref<64xf32> to memref<64xf32>
  linalg.fill ins(%one : f32) outs(%b : memref<64xf32>)
  %v = memref.subview %b[0] [32] [1] : memref<64xf32> to memref<32xf32, strided<[1]>>
  memref.copy %v, %out2 : memref<32xf32, strided<[1]>> to memref<32xf32>
  memref.dealloc %a : memref<64xf32>
  memref.dealloc %b : memref<64xf32>
  return
}

// -----

// A buffer first used inside a loop stays outside it: it moves to right
// before the loop, never into its body. A dynamic size defined before the
// allocation still dominates it.
// CHECK-LABEL: func @loop
// CHECK: arith.constant 1.0
// CHECK-NEXT: %[[A:.*]] = memref.alloc(%arg0) : memref<?xf32>
// CHECK-NEXT: scf.for
// CHECK-NEXT: linalg.fill {{.*}} outs(%[[A]] : memref<?xf32>)
func.func @loop(%n: index, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc(%n) : memref<?xf32>
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    linalg.fill ins(%one : f32) outs(%a : memref<?xf32>)
    memref.copy %a, %out : memref<?xf32> to memref<?xf32>
  }
  memref.dealloc %a : memref<?xf32>
  return
}
