// RUN: amp-opt %s -split-input-file -amp-mpi-openmpi-symbols | FileCheck %s

// Upstream's OpenMPI lowering takes the address of @ompi_mpi_sum and
// @ompi_mpi_max; libmpi.so exports ompi_mpi_op_sum and ompi_mpi_op_max.
// Datatypes and communicators keep their (correct) names.

// CHECK-DAG: llvm.mlir.global external @ompi_mpi_op_sum() {addr_space = 0 : i32} : !llvm.struct<"ompi_predefined_op_t", opaque>
// CHECK-DAG: llvm.mlir.global external @ompi_mpi_op_max() {addr_space = 0 : i32} : !llvm.struct<"ompi_predefined_op_t", opaque>
// CHECK-DAG: llvm.mlir.global external @ompi_mpi_float()
// CHECK-NOT: @ompi_mpi_sum
// CHECK-LABEL: llvm.func @reduce
// CHECK: llvm.mlir.addressof @ompi_mpi_float
// CHECK: llvm.mlir.addressof @ompi_mpi_op_sum
// CHECK: llvm.mlir.addressof @ompi_mpi_op_max
llvm.mlir.global external @ompi_mpi_float() {addr_space = 0 : i32} : !llvm.struct<"ompi_predefined_datatype_t", opaque>
llvm.mlir.global external @ompi_mpi_sum() {addr_space = 0 : i32} : !llvm.struct<"ompi_predefined_op_t", opaque>
llvm.mlir.global external @ompi_mpi_max() {addr_space = 0 : i32} : !llvm.struct<"ompi_predefined_op_t", opaque>
llvm.func @reduce() -> !llvm.ptr {
  %t = llvm.mlir.addressof @ompi_mpi_float : !llvm.ptr
  %s = llvm.mlir.addressof @ompi_mpi_sum : !llvm.ptr
  %m = llvm.mlir.addressof @ompi_mpi_max : !llvm.ptr
  llvm.return %m : !llvm.ptr
}

// -----

// A module of our own that defines @ompi_mpi_sum (with a value) is left
// alone.

// CHECK: llvm.mlir.global internal @ompi_mpi_sum(1 : i32)
llvm.mlir.global internal @ompi_mpi_sum(1 : i32) {addr_space = 0 : i32} : i32
