// RUN: amp-opt %s -split-input-file -amp-mpi-world-communicator | FileCheck %s

// convert-shard-to-mpi's communicator for a collective on a 1-D grid: the
// world split into one group (color 0) keyed by the rank. The all-reduce
// uses the world communicator itself.

// CHECK-LABEL: func.func @split_world
// CHECK: %[[WORLD:.*]] = mpi.comm_world : !mpi.comm
// CHECK-NOT: mpi.comm_split
// CHECK: mpi.allreduce(%{{.*}}, %{{.*}}, MPI_SUM, %[[WORLD]])
func.func @split_world(%buf: memref<16xf32>) {
  %c0_i32 = arith.constant 0 : i32
  %c2 = arith.constant 2 : index
  %world = mpi.comm_world : !mpi.comm
  %retval, %rank = mpi.comm_rank(%world) : !mpi.retval, i32
  %r = arith.index_cast %rank : i32 to index
  %k = arith.remsi %r, %c2 : index
  %key = arith.index_cast %k : index to i32
  %world2 = mpi.comm_world : !mpi.comm
  %comm = mpi.comm_split(%world2, %c0_i32, %key) : !mpi.comm
  mpi.allreduce(%buf, %buf, MPI_SUM, %comm) : memref<16xf32>, memref<16xf32>
  return
}

// -----

// A split into several groups (color from the rank) is a real
// sub-communicator: it stays.

// CHECK-LABEL: func.func @split_groups
// CHECK: %[[COMM:.*]] = mpi.comm_split
// CHECK: mpi.allreduce(%{{.*}}, %{{.*}}, MPI_SUM, %[[COMM]])
func.func @split_groups(%buf: memref<16xf32>, %color: i32, %key: i32) {
  %world = mpi.comm_world : !mpi.comm
  %comm = mpi.comm_split(%world, %color, %key) : !mpi.comm
  mpi.allreduce(%buf, %buf, MPI_SUM, %comm) : memref<16xf32>, memref<16xf32>
  return
}

// -----

// The grids that nothing refers to after convert-shard-to-mpi go (they have
// no LLVM lowering); a grid still in use stays.

// CHECK-NOT: shard.grid @unused
// CHECK: shard.grid @used
// CHECK-LABEL: func.func @shape
shard.grid @unused(shape = 2)
shard.grid @used(shape = 4)
func.func @shape() -> index {
  %s = shard.grid_shape @used : index
  return %s : index
}
