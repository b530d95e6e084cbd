// RUN: amp-opt %s -split-input-file --amp-gpu-async-launches -verify-diagnostics | FileCheck %s

// Launches, and the waited-for copies and frees of amp-gpu-managed-memory,
// queue on one stream; allocations and ops without memory effects do not
// wait; the host waits once, before the return.
// CHECK-LABEL: func @queued
// CHECK: %[[M:.*]] = gpu.alloc host_shared
// CHECK: %[[S:.*]] = gpu.wait async
// CHECK: %[[C:.*]] = gpu.memcpy async [%[[S]]] %[[M]], %arg0
// CHECK: %[[L1:.*]] = gpu.launch_func async [%[[C]]] @kernels::@k
// CHECK: %[[O:.*]] = gpu.alloc host_shared
// CHECK: %[[L2:.*]] = gpu.launch_func async [%[[L1]]] @kernels::@k
// CHECK: %[[D:.*]] = gpu.dealloc async [%[[L2]]] %[[M]]
// CHECK-NOT: gpu.wait
// CHECK: gpu.wait [%[[D]]]
// CHECK-NEXT: return %[[O]]
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%a: memref<4xf32>) kernel { gpu.return }
  }
  func.func @queued(%x: memref<4xf32>) -> memref<4xf32> {
    %c1 = arith.constant 1 : index
    %m = gpu.alloc host_shared () : memref<4xf32>
    %s = gpu.wait async
    %t = gpu.memcpy async [%s] %m, %x : memref<4xf32>, memref<4xf32>
    gpu.wait [%t]
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    %o = gpu.alloc host_shared () : memref<4xf32>
    %c4 = arith.constant 4 : index
    gpu.launch_func @kernels::@k blocks in (%c4, %c1, %c1) threads in (%c1, %c1, %c1) args(%o : memref<4xf32>)
    %s2 = gpu.wait async
    %d = gpu.dealloc async [%s2] %m : memref<4xf32>
    gpu.wait [%d]
    return %o : memref<4xf32>
  }
}

// -----

// The host reads memory: it waits for the kernels queued before, and the
// next launch starts a new stream. A call waits too (the callee may read).
// CHECK-LABEL: func @host_access
// CHECK: %[[S1:.*]] = gpu.wait async
// CHECK: %[[L1:.*]] = gpu.launch_func async [%[[S1]]]
// CHECK: gpu.wait [%[[L1]]]
// CHECK-NEXT: memref.load
// CHECK: %[[S2:.*]] = gpu.wait async
// CHECK: %[[L2:.*]] = gpu.launch_func async [%[[S2]]]
// CHECK: gpu.wait [%[[L2]]]
// CHECK-NEXT: call @use
// CHECK-NEXT: return
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%a: memref<4xf32>) kernel { gpu.return }
  }
  func.func private @use(memref<4xf32>)
  func.func @host_access(%m: memref<4xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    %v = memref.load %m[%c0] : memref<4xf32>
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    call @use(%m) : (memref<4xf32>) -> ()
    return %v : f32
  }
}

// -----

// Nothing stays queued across a region: the host waits before the loop,
// and each iteration's chain ends before its yield.
// CHECK-LABEL: func @loop
// CHECK: %[[L0:.*]] = gpu.launch_func async
// CHECK: gpu.wait [%[[L0]]]
// CHECK-NEXT: scf.for
// CHECK:   %[[S:.*]] = gpu.wait async
// CHECK:   %[[L:.*]] = gpu.launch_func async [%[[S]]]
// CHECK:   gpu.wait [%[[L]]]
// CHECK-NEXT: }
// CHECK-NEXT: return
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%a: memref<4xf32>) kernel { gpu.return }
  }
  func.func @loop(%m: memref<4xf32>, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    scf.for %i = %c0 to %n step %c1 {
      gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    }
    return
  }
}

// -----

// Async ops the pass did not make (a copy whose token has another use, a
// launch that is async already) stay as they are, after a wait for what is
// queued.
// CHECK-LABEL: func @foreign
// CHECK: %[[L:.*]] = gpu.launch_func async
// CHECK: %[[S:.*]] = gpu.wait async
// CHECK-NEXT: gpu.wait [%[[L]]]
// CHECK-NEXT: %[[C:.*]] = gpu.memcpy async [%[[S]]]
// CHECK-NEXT: %[[L2:.*]] = gpu.launch_func async [%[[C]]]
// CHECK-NEXT: gpu.wait [%[[L2]]]
// CHECK-NEXT: return
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%a: memref<4xf32>) kernel { gpu.return }
  }
  func.func @foreign(%m: memref<4xf32>, %h: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    %s = gpu.wait async
    %t = gpu.memcpy async [%s] %h, %m : memref<4xf32>, memref<4xf32>
    %u = gpu.launch_func async [%t] @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    gpu.wait [%u]
    return
  }
}

// -----

// A conditional free (ownership-based deallocation) does not make the host
// wait: the free is immediate, whatever the stream still runs. Its block
// has a chain of its own.
// CHECK-LABEL: func @conditional_free
// CHECK: %[[L:.*]] = gpu.launch_func async
// CHECK-NEXT: scf.if
// CHECK-NEXT:   %[[S:.*]] = gpu.wait async
// CHECK-NEXT:   %[[D:.*]] = gpu.dealloc async [%[[S]]]
// CHECK-NEXT:   gpu.wait [%[[D]]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[L2:.*]] = gpu.launch_func async [%[[L]]]
// CHECK-NEXT: gpu.wait [%[[L2]]]
// CHECK-NEXT: return
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%a: memref<4xf32>) kernel { gpu.return }
  }
  func.func @conditional_free(%m: memref<4xf32>, %t: memref<4xf32>, %owned: i1) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    scf.if %owned {
      %s = gpu.wait async
      %d = gpu.dealloc async [%s] %t : memref<4xf32>
      gpu.wait [%d]
    }
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    return
  }
}

// -----

// A synchronous launch that already waits for a token is left as it is,
// after a wait for what is queued.
// CHECK-LABEL: func @launch_with_dependency
// CHECK: %[[L:.*]] = gpu.launch_func async
// CHECK: %[[T:.*]] = gpu.wait async
// CHECK-NEXT: gpu.wait [%[[L]]]
// CHECK-NEXT: gpu.launch_func [%[[T]]] @kernels::@k
// CHECK-NEXT: return
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%a: memref<4xf32>) kernel { gpu.return }
  }
  func.func @launch_with_dependency(%m: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    %t = gpu.wait async
    gpu.launch_func [%t] @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    return
  }
}

// -----

// The runtime's cuBLAS GEMM with a queued variant: called without a wait
// (the device orders it after the launch), and the host waits before it
// reads C. A variant the module lacks is declared like the callee.
// CHECK-LABEL: func @gemm
// CHECK: %[[S:.*]] = gpu.wait async
// CHECK-NEXT: %[[L:.*]] = gpu.launch_func async [%[[S]]]
// CHECK-NEXT: call @ampCublasMatmulF32Queued(%arg0, %arg0, %arg1)
// CHECK-NEXT: call @mine_queued(%arg0, %arg0, %arg1)
// CHECK-NEXT: gpu.wait [%[[L]]]
// CHECK-NEXT: memref.load %arg1
// CHECK: func.func private @mine_queued(memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) attributes {llvm.emit_c_interface}
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%a: memref<?x?xf32>) kernel { gpu.return }
  }
  func.func private @ampCublasMatmulF32(memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) attributes {amp.queued_variant = @ampCublasMatmulF32Queued, llvm.emit_c_interface}
  func.func private @ampCublasMatmulF32Queued(memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) attributes {llvm.emit_c_interface}
  func.func private @mine(memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) attributes {amp.queued_variant = @mine_queued, llvm.emit_c_interface}
  func.func @gemm(%a: memref<?x?xf32>, %c: memref<?x?xf32>) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<?x?xf32>)
    call @ampCublasMatmulF32(%a, %a, %c) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
    call @mine(%a, %a, %c) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
    %v = memref.load %c[%c0, %c0] : memref<?x?xf32>
    return %v : f32
  }
}

// -----

// A queued variant's name that is another symbol, or a function of another
// type: the call stays as it is and the host waits before it (a warning
// says so); no function is declared over the other symbol.
// CHECK-LABEL: func @variant_clash
// CHECK: gpu.launch_func async
// CHECK-NEXT: gpu.wait [
// CHECK-NEXT: call @gemm_a(
// CHECK-NEXT: call @gemm_b(
// CHECK-NOT: func.func private @clash
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%a: memref<?x?xf32>) kernel { gpu.return }
  }
  memref.global "private" @clash : memref<f32>
  func.func private @other(memref<?x?xf32>)
  func.func private @gemm_a(memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) attributes {amp.queued_variant = @clash}
  func.func private @gemm_b(memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) attributes {amp.queued_variant = @other}
  func.func @variant_clash(%a: memref<?x?xf32>, %c: memref<?x?xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<?x?xf32>)
    // expected-warning @below {{amp-gpu-async-launches: the queued variant @clash of @gemm_a is not a function of its type; this call waits for the device}}
    call @gemm_a(%a, %a, %c) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
    // expected-warning @below {{amp-gpu-async-launches: the queued variant @other of @gemm_b is not a function of its type; this call waits for the device}}
    call @gemm_b(%a, %a, %c) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
    return
  }
}
