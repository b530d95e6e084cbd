// RUN: amp-opt %s -split-input-file -amp-mpi-abi | FileCheck %s
// RUN: amp-opt %s -split-input-file -amp-mpi-abi=implementation=MPICH | FileCheck %s --check-prefix=MPICH

// The module names OpenMPI's ABI for upstream's mpi-to-LLVM patterns, and
// the in-place all-reduce of a fresh copy reads the copy's source instead
// (MPI forbids aliased send and receive buffers).

// CHECK: module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "OpenMPI">}
// MPICH: module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "MPICH">}
// CHECK-LABEL: func.func @in_place
// CHECK-SAME: (%[[SRC:.*]]: memref<16xf32>)
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<16xf32>
// CHECK-NOT: linalg.copy
// CHECK: mpi.allreduce(%[[SRC]], %[[BUF]], MPI_SUM, %{{.*}})
// CHECK: return %[[BUF]]
func.func @in_place(%src: memref<16xf32>) -> memref<16xf32> {
  %buf = memref.alloc() : memref<16xf32>
  linalg.copy ins(%src : memref<16xf32>) outs(%buf : memref<16xf32>)
  %world = mpi.comm_world : !mpi.comm
  mpi.allreduce(%buf, %buf, MPI_SUM, %world) : memref<16xf32>, memref<16xf32>
  return %buf : memref<16xf32>
}

// -----

// A buffer written by something else than one copy stays in place.

// CHECK-LABEL: func.func @written
// CHECK: linalg.copy
// CHECK: memref.store
// CHECK: mpi.allreduce(%[[BUF:.*]], %[[BUF]], MPI_MAX
func.func @written(%src: memref<4xi32>, %v: i32) -> memref<4xi32> {
  %c0 = arith.constant 0 : index
  %buf = memref.alloc() : memref<4xi32>
  linalg.copy ins(%src : memref<4xi32>) outs(%buf : memref<4xi32>)
  memref.store %v, %buf[%c0] : memref<4xi32>
  %world = mpi.comm_world : !mpi.comm
  mpi.allreduce(%buf, %buf, MPI_MAX, %world) : memref<4xi32>, memref<4xi32>
  return %buf : memref<4xi32>
}

// -----

// Buffers of rank 2 and 0 are passed as 1-D views: the LLVM lowering counts
// the elements of the first dimension only.

// CHECK-LABEL: func.func @views
// CHECK-SAME: (%[[A:.*]]: memref<2x3xf32>, %[[B:.*]]: memref<2x3xf32>, %[[S:.*]]: memref<f64>, %{{.*}}: i32)
// CHECK-DAG: %[[VA:.*]] = memref.collapse_shape %[[A]] {{\[\[}}0, 1]] : memref<2x3xf32> into memref<6xf32>
// CHECK-DAG: %[[VB:.*]] = memref.collapse_shape %[[B]] {{\[\[}}0, 1]] : memref<2x3xf32> into memref<6xf32>
// CHECK: mpi.allreduce(%[[VA]], %[[VB]], MPI_SUM, %{{.*}}) : memref<6xf32>, memref<6xf32>
// CHECK: %[[VS:.*]] = memref.expand_shape %[[S]] [] output_shape [1] : memref<f64> into memref<1xf64>
// CHECK: mpi.send(%[[VS]],
func.func @views(%a: memref<2x3xf32>, %b: memref<2x3xf32>, %s: memref<f64>, %to: i32) {
  %world = mpi.comm_world : !mpi.comm
  mpi.allreduce(%a, %b, MPI_SUM, %world) : memref<2x3xf32>, memref<2x3xf32>
  %tag = arith.constant 7 : i32
  mpi.send(%s, %tag, %to, %world) : memref<f64>, i32, i32
  return
}
