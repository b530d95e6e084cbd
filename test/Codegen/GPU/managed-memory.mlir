// RUN: amp-opt %s -split-input-file --amp-gpu-managed-memory -verify-diagnostics | FileCheck %s

// A public function becomes a host-memory wrapper around its managed body:
// arguments copied into managed memory by the copy engine (gpu.memcpy,
// waited for; not back after the call: the body only reads its argument),
// results copied out to malloc'ed buffers, each managed allocation freed
// once.
// CHECK-LABEL: func @public
// CHECK-SAME: (%[[ARG:.*]]: memref<?x4xf32>) -> memref<?x4xf32>
// CHECK: %[[D:.*]] = memref.dim %[[ARG]], %c0
// CHECK: %[[IN:.*]] = gpu.alloc host_shared (%[[D]]) : memref<?x4xf32>
// CHECK: %[[T0:.*]] = gpu.wait async
// CHECK: %[[T1:.*]] = gpu.memcpy async [%[[T0]]] %[[IN]], %[[ARG]]
// CHECK: gpu.wait [%[[T1]]]
// CHECK: %[[R:.*]] = call @public__amp_managed(%[[IN]])
// CHECK-NOT: gpu.memcpy {{.*}} %[[ARG]], %[[IN]]
// CHECK: %[[HOST:.*]] = memref.alloc(%{{.*}}) : memref<?x4xf32>
// CHECK: gpu.memcpy async [%{{.*}}] %[[HOST]], %[[R]]
// CHECK: %[[BASE:[a-z_0-9]+]], %{{.*}}, %{{.*}}:2, %{{.*}}:2 = memref.extract_strided_metadata %[[R]]
// CHECK: scf.if
// CHECK:   gpu.dealloc async [%{{.*}}] %[[BASE]]
// CHECK: gpu.dealloc async [%{{.*}}] %[[IN]]
// CHECK: return %[[HOST]]
// The managed body: constants copied at entry, allocations managed, the
// copies freed before the return.
// CHECK-LABEL: func @public__amp_managed
// CHECK-SAME: (%[[X:.*]]: memref<?x4xf32>)
// CHECK: %[[G:.*]] = memref.get_global @cst
// CHECK: %[[GM:.*]] = gpu.alloc host_shared () : memref<4xf32>
// CHECK: gpu.memcpy async [%{{.*}}] %[[GM]], %[[G]]
// CHECK: %[[OUT:.*]] = gpu.alloc host_shared (%{{.*}}) : memref<?x4xf32>
// CHECK: gpu.launch
// CHECK:   memref.load %[[X]]
// CHECK:   memref.load %[[GM]]
// CHECK:   memref.store {{.*}}, %[[OUT]]
// CHECK: gpu.dealloc async [%{{.*}}] %[[GM]]
// CHECK: return %[[OUT]]
memref.global "private" constant @cst : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
func.func @public(%x: memref<?x4xf32>) -> memref<?x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %n = memref.dim %x, %c0 : memref<?x4xf32>
  %out = memref.alloc(%n) : memref<?x4xf32>
  %g = memref.get_global @cst : memref<4xf32>
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

// Calls between functions of the module pass managed buffers: they go to
// the managed body, not to the host-memory wrapper.
// CHECK-LABEL: func @caller
// CHECK: call @callee__amp_managed
// CHECK-LABEL: func @callee
// CHECK: call @callee__amp_managed
// CHECK-LABEL: func @callee__amp_managed
func.func @caller() -> memref<8xf32> {
  %m = memref.alloc() : memref<8xf32>
  %r = call @callee(%m) : (memref<8xf32>) -> memref<8xf32>
  return %r : memref<8xf32>
}
func.func @callee(%a: memref<8xf32>) -> memref<8xf32> {
  return %a : memref<8xf32>
}

// -----

// Two results in one allocation: both copied out before anything is freed,
// the allocation freed once (run-time pointer comparison).
// CHECK-LABEL: func @two_views
// CHECK: %[[R:.*]]:2 = call @two_views__amp_managed
// CHECK: gpu.memcpy async [%{{.*}}] %{{.*}}, %[[R]]#0
// CHECK: gpu.memcpy async [%{{.*}}] %{{.*}}, %[[R]]#1
// CHECK: %[[B0:[a-z_0-9]+]], {{.*}} = memref.extract_strided_metadata %[[R]]#0
// CHECK: %[[P0:.*]] = memref.extract_aligned_pointer_as_index %[[B0]]
// CHECK: scf.if
// CHECK: gpu.dealloc async [%{{.*}}] %[[B0]]
// CHECK: %[[B1:[a-z_0-9]+]], {{.*}} = memref.extract_strided_metadata %[[R]]#1
// CHECK: %[[P1:.*]] = memref.extract_aligned_pointer_as_index %[[B1]]
// CHECK: arith.cmpi ne, %[[P1]], %[[P0]]
// CHECK: scf.if
// CHECK-NEXT: gpu.wait async
// CHECK-NEXT: gpu.dealloc async [%{{.*}}] %[[B1]]
func.func @two_views() -> (memref<4x4xf32>, memref<16xf32>) {
  %m = memref.alloc() : memref<4x4xf32>
  %c = memref.collapse_shape %m [[0, 1]] : memref<4x4xf32> into memref<16xf32>
  return %m, %c : memref<4x4xf32>, memref<16xf32>
}

// -----

// Arguments the body writes (in a kernel, through a view) or passes where
// the pass cannot see (a call) are copied back after the call; the ones it
// only reads are not.
// CHECK-LABEL: func @write_back
// CHECK-SAME: (%[[A:.*]]: memref<4xf32>, %[[B:.*]]: memref<4xf32>, %[[C:.*]]: memref<4xf32>)
// CHECK: %[[MA:.*]] = gpu.alloc host_shared () : memref<4xf32>
// CHECK: %[[MB:.*]] = gpu.alloc host_shared () : memref<4xf32>
// CHECK: %[[MC:.*]] = gpu.alloc host_shared () : memref<4xf32>
// CHECK: call @write_back__amp_managed(%[[MA]], %[[MB]], %[[MC]])
// CHECK-NOT: gpu.memcpy {{.*}} %[[A]], %[[MA]]
// CHECK: gpu.memcpy async [%{{.*}}] %[[B]], %[[MB]]
// CHECK: gpu.memcpy async [%{{.*}}] %[[C]], %[[MC]]
// CHECK: return
// The body lists them for its direct callers.
// CHECK-LABEL: func @write_back__amp_managed(
// CHECK-SAME: attributes {amp.may_write_args = array<i64: 1, 2>}
func.func private @opaque(memref<4xf32>)
func.func @write_back(%a: memref<4xf32>, %b: memref<4xf32>, %c: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %view = memref.subview %b[0] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1]>>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c2, %sy = %c1, %sz = %c1) {
    %v = memref.load %a[%tx] : memref<4xf32>
    memref.store %v, %view[%tx] : memref<2xf32, strided<[1]>>
    gpu.terminator
  }
  call @opaque(%c) : (memref<4xf32>) -> ()
  return
}

// -----

// Through the values an scf.for carries: the argument the loop body writes
// (through its iteration argument) is copied back, the one it only reads is
// not; the conditional dealloc of a carried buffer is not a write.
// CHECK-LABEL: func @carried
// CHECK-SAME: (%[[R:.*]]: memref<4xf32>, %[[W:.*]]: memref<4xf32>)
// CHECK: %[[MR:.*]] = gpu.alloc host_shared () : memref<4xf32>
// CHECK: %[[MW:.*]] = gpu.alloc host_shared () : memref<4xf32>
// CHECK: call @carried__amp_managed(%[[MR]], %[[MW]])
// CHECK-NOT: gpu.memcpy {{.*}} %[[R]], %[[MR]]
// CHECK: gpu.memcpy async [%{{.*}}] %[[W]], %[[MW]]
// CHECK-NOT: gpu.memcpy {{.*}} %[[R]], %[[MR]]
// CHECK: return
// CHECK-LABEL: func @carried__amp_managed(
// CHECK-SAME: attributes {amp.may_write_args = array<i64: 1>}
func.func @carried(%r: memref<4xf32>, %w: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %false = arith.constant false
  %zero = arith.constant 0.0 : f32
  %res:3 = scf.for %i = %c0 to %c4 step %c1
      iter_args(%rr = %r, %ww = %w, %sum = %zero) -> (memref<4xf32>, memref<4xf32>, f32) {
    %v = memref.load %rr[%i] : memref<4xf32>
    memref.store %v, %ww[%i] : memref<4xf32>
    scf.if %false {
      memref.dealloc %rr : memref<4xf32>
    }
    %s = arith.addf %sum, %v : f32
    scf.yield %rr, %ww, %s : memref<4xf32>, memref<4xf32>, f32
  }
  return %res#2 : f32
}

// -----

// A private function keeps its ABI (its callers pass managed memory).
// CHECK-LABEL: func private @helper
// CHECK-SAME: (%[[A:.*]]: memref<8xf32>)
// CHECK-NOT: memref.copy %[[A]], %{{.*}} : memref<8xf32> to memref<8xf32>{{$}}
// CHECK: %[[T:.*]] = gpu.alloc host_shared () : memref<8xf32>
// CHECK: gpu.dealloc async [%{{.*}}] %[[T]]
func.func private @helper(%a: memref<8xf32>) {
  %t = memref.alloc() : memref<8xf32>
  memref.copy %a, %t : memref<8xf32> to memref<8xf32>
  memref.dealloc %t : memref<8xf32>
  return
}

// -----

// A stack buffer only the host uses stays.
// CHECK-LABEL: func private @host_stack
// CHECK: memref.alloca
func.func private @host_stack(%v: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %a = memref.alloca() : memref<4xf32>
  memref.store %v, %a[%c0] : memref<4xf32>
  %r = memref.load %a[%c0] : memref<4xf32>
  return %r : f32
}

// -----

func.func private @stack_to_kernel() {
  %c1 = arith.constant 1 : index
  // expected-error @below {{amp-gpu-managed-memory: stack buffers cannot be shared with GPU kernels}}
  %a = memref.alloca() : memref<4xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %z = arith.constant 0.0 : f32
    memref.store %z, %a[%tx] : memref<4xf32>
    gpu.terminator
  }
  return
}

// -----

memref.global "private" @state : memref<4xf32> = dense<0.0>
func.func private @mutable() {
  // expected-error @below {{amp-gpu-managed-memory: mutable globals are not supported (kernels would update a copy)}}
  %g = memref.get_global @state : memref<4xf32>
  return
}

// -----

// expected-error @below {{amp-gpu-managed-memory: public function arguments and results must be ranked memrefs with the identity layout in the default memory space, got 'memref<*xf32>'}}
func.func @unranked(%a: memref<*xf32>) {
  return
}

// -----

// expected-error @below {{amp-gpu-managed-memory: public function arguments and results must be ranked memrefs with the identity layout in the default memory space, got 'memref<4xf32, 1>'}}
func.func @memory_space(%a: memref<4xf32, 1>) {
  return
}

// -----

func.func private @clash__amp_managed()
// expected-error @below {{amp-gpu-managed-memory: the managed body of @clash would be @clash__amp_managed, a symbol the module already has}}
func.func @clash(%a: memref<4xf32>) {
  return
}

// -----

// Aliases the walk cannot follow count as writes: a branch to a block
// argument, the address made a pointer. The address compared or listed as
// a number (the deallocation pipeline's ownership checks) does not.
// CHECK-LABEL: func @escapes
// CHECK-SAME: (%[[A:.*]]: memref<4xf32>, %[[B:.*]]: memref<4xf32>, %[[C:.*]]: memref<4xf32>)
// CHECK: %[[MA:.*]] = gpu.alloc host_shared () : memref<4xf32>
// CHECK: %[[MB:.*]] = gpu.alloc host_shared () : memref<4xf32>
// CHECK: %[[MC:.*]] = gpu.alloc host_shared () : memref<4xf32>
// CHECK: call @escapes__amp_managed(%[[MA]], %[[MB]], %[[MC]])
// CHECK: gpu.memcpy async [%{{.*}}] %[[A]], %[[MA]]
// CHECK: gpu.memcpy async [%{{.*}}] %[[B]], %[[MB]]
// CHECK-NOT: gpu.memcpy {{.*}} %[[C]], %[[MC]]
// CHECK: return
func.func @escapes(%a: memref<4xf32>, %b: memref<4xf32>, %c: memref<4xf32>) -> i1 {
  %c0 = arith.constant 0 : index
  %x = arith.constant 1.0 : f32
  %pb = memref.extract_aligned_pointer_as_index %b : memref<4xf32> -> index
  %ib = arith.index_cast %pb : index to i64
  %ptr = llvm.inttoptr %ib : i64 to !llvm.ptr
  llvm.store %x, %ptr : f32, !llvm.ptr
  %pc = memref.extract_aligned_pointer_as_index %c : memref<4xf32> -> index
  %list = memref.alloca() : memref<1xindex>
  memref.store %pc, %list[%c0] : memref<1xindex>
  %same = arith.cmpi eq, %pc, %pb : index
  cf.br ^bb1(%a : memref<4xf32>)
^bb1(%m: memref<4xf32>):
  memref.store %x, %m[%c0] : memref<4xf32>
  return %same : i1
}

// -----

// A constant's managed copy that the function returns goes to the caller
// (the wrapper frees it once after copying it out), not freed in the body.
// CHECK-LABEL: func @return_constant__amp_managed
// CHECK: %[[G:.*]] = gpu.alloc host_shared () : memref<4xf32>
// CHECK-NOT: gpu.dealloc
// CHECK: return %[[G]]
memref.global "private" constant @four : memref<4xf32> = dense<1.0>
func.func @return_constant() -> memref<4xf32> {
  %g = memref.get_global @four : memref<4xf32>
  return %g : memref<4xf32>
}

// -----

// The managed body stays public with the wrapper's C interface: the entry
// point for callers whose buffers live in managed memory across calls.
// CHECK-LABEL: func @c_interface(
// CHECK-SAME: attributes {llvm.emit_c_interface}
// CHECK: call @c_interface__amp_managed
// CHECK-LABEL: func @c_interface__amp_managed(
// CHECK-SAME: attributes {amp.may_write_args = array<i64>, llvm.emit_c_interface}
func.func @c_interface(%a: memref<4xf32>) -> memref<4xf32> attributes {llvm.emit_c_interface} {
  return %a : memref<4xf32>
}
