// RUN: amp-opt %s -split-input-file -verify-diagnostics -amp-mpi-abi
// RUN: not amp-opt %s -split-input-file -amp-mpi-abi=implementation=LAM 2>&1 | FileCheck %s --check-prefix=IMPL

// IMPL: error: amp-mpi-abi: implementation must be OpenMPI or MPICH, got 'LAM'

func.func @bf16(%buf: memref<8xbf16>) {
  %world = mpi.comm_world : !mpi.comm
  // expected-error @below {{'mpi.allreduce' op on 'memref<8xbf16>': the MPI lowering has no datatype for 'bf16'}}
  mpi.allreduce(%buf, %buf, MPI_SUM, %world) : memref<8xbf16>, memref<8xbf16>
  return
}

// -----

func.func @strided(%buf: memref<4x4xf32, strided<[8, 1]>>) {
  %world = mpi.comm_world : !mpi.comm
  // expected-error @below {{'mpi.allreduce' op on 'memref<4x4xf32, strided<[8, 1]>>': the MPI lowering needs a contiguous buffer of static shape (identity layout)}}
  mpi.allreduce(%buf, %buf, MPI_SUM, %world) : memref<4x4xf32, strided<[8, 1]>>, memref<4x4xf32, strided<[8, 1]>>
  return
}
