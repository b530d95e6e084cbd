// RUN: amp-opt %s -split-input-file --amp-gpu-managed-memory -verify-diagnostics | FileCheck %s

// Public function: host arguments copied into managed memory, allocations
// managed, the result copied back to a malloc'ed buffer, every managed
// buffer freed (async dealloc + wait) before the return.
// CHECK-LABEL: func @public
// CHECK-SAME: (%[[ARG:.*]]: memref<?x4xf32>) -> memref<?x4xf32>
// CHECK: %[[D:.*]] = memref.dim %[[ARG]], %c0
// CHECK: %[[IN:.*]] = gpu.alloc host_shared (%[[D]]) : memref<?x4xf32>
// CHECK: memref.copy %[[ARG]], %[[IN]]
// CHECK: %[[G:.*]] = memref.get_global @cst
// CHECK: %[[GM:.*]] = gpu.alloc host_shared () : memref<4xf32>
// CHECK: memref.copy %[[G]], %[[GM]]
// CHECK: %[[OUT:.*]] = gpu.alloc host_shared (%{{.*}}) : memref<?x4xf32>
// CHECK: gpu.launch
// CHECK:   memref.load %[[IN]]
// CHECK:   memref.load %[[GM]]
// CHECK:   memref.store {{.*}}, %[[OUT]]
// CHECK: %[[HOST:.*]] = memref.alloc(%{{.*}}) : memref<?x4xf32>
// CHECK: memref.copy %[[OUT]], %[[HOST]]
// CHECK: %[[T0:.*]] = gpu.wait async
// CHECK: %[[T1:.*]] = gpu.dealloc async [%[[T0]]] %[[OUT]]
// CHECK: gpu.wait [%[[T1]]]
// CHECK: gpu.dealloc async [%{{.*}}] %[[GM]]
// CHECK: gpu.dealloc async [%{{.*}}] %[[IN]]
// CHECK: return %[[HOST]]
memref.global "private" constant @cst : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
func.func @public(%x: memref<?x4xf32>) -> memref<?x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %n = memref.dim %x, %c0 : memref<?x4xf32>
  %g = memref.get_global @cst : memref<4xf32>
  %out = memref.alloc(%n) : memref<?x4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %n, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c4, %sy = %c1, %sz = %c1) {
    %v = memref.load %x[%bx, %tx] : memref<?x4xf32>
    %w = memref.load %g[%tx] : memref<4xf32>
    %s = arith.addf %v, %w : f32
    memref.store %s, %out[%bx, %tx] : memref<?x4xf32>
    gpu.terminator
  }
  return %out : memref<?x4xf32>
}

// -----

// A private function keeps its ABI (its caller passes managed memory); its
// temporaries are managed and freed.
// CHECK-LABEL: func private @helper
// CHECK-SAME: (%[[A:.*]]: memref<8xf32>)
// CHECK-NOT: memref.copy %[[A]]
// CHECK: %[[T:.*]] = gpu.alloc host_shared () : memref<8xf32>
// CHECK: gpu.dealloc async [%{{.*}}] %[[T]]
// CHECK-NOT: memref.alloc
func.func private @helper(%a: memref<8xf32>) {
  %t = memref.alloc() : memref<8xf32>
  memref.copy %a, %t : memref<8xf32> to memref<8xf32>
  memref.dealloc %t : memref<8xf32>
  return
}

// -----

func.func @stack() {
  // expected-error @below {{amp-gpu-managed-memory: stack buffers cannot be shared with GPU kernels}}
  %a = memref.alloca() : memref<4xf32>
  return
}
