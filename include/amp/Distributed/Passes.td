//===- Passes.td - data-parallel training over MPI ---------*- tablegen -*-===//
//
// The passes that make a training step data-parallel: gradients averaged
// across processes with bucketed all-reduces on an upstream `shard.grid`,
// lowered through upstream `convert-shard-to-mpi` and `mpi` to LLVM, and the
// fix-ups that lowering needs for a world-spanning grid and for OpenMPI's ABI.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DISTRIBUTED_PASSES_TD
#define AMP_DISTRIBUTED_PASSES_TD

include "mlir/Pass/PassBase.td"

def AmpDpBucketAllReduce : Pass<"amp-dp-bucket-all-reduce", "ModuleOp"> {
  let summary = "Pack a data-parallel step's gradient all-reduces into a few large ones (DDP's buckets)";
  let description = [{
    Data parallelism in the shard dialect's terms: a 1-D grid of the ranks
    (`shard.grid @amp_dp(shape = N)`) that splits the batch dimension of
    the step's inputs, with the parameters replicated. Each rank's
    gradients are then partial, and the replicated gradient is their mean:
    one `shard.all_reduce ... reduction = sum` per gradient, divided by N
    (PyTorch's DistributedDataParallel, `torch/nn/parallel/distributed.py`;
    `amp_mlir.training.build_train_step(world_size=N)` emits them).

    One collective call per parameter tensor pays the call's latency many
    times for small tensors. This pass packs the sum all-reduces of a
    block, in order, into buckets of at most `bucket-bytes` (DDP's
    `bucket_cap_mb`, 25 MiB by default; a larger tensor keeps its own):
    the operands are flattened (`tensor.collapse_shape`, or
    `tensor.expand_shape` for 0-d), written into one 1-D tensor
    (`tensor.insert_slice`), reduced by one `shard.all_reduce` at the
    position of the bucket's last member, and sliced back
    (`tensor.extract_slice`, then the original shapes). Only all-reduces on
    ranked tensors with the same grid, grid axes, reduction (`sum`) and
    element type share a bucket, and an all-reduce joins a bucket only if
    no result of an earlier member is used before it (so that the bucket
    can sit after all members). Other reductions (the loss scaler's `max`
    vote on `found_inf`) are left alone.

    Error: `bucket-bytes` below 1.
  }];
  let options = [
    Option<"bucketBytes", "bucket-bytes", "int64_t",
           /*default=*/"25 * 1024 * 1024",
           "Most bytes per bucketed all-reduce (PyTorch DDP's "
           "bucket_cap_mb = 25)">,
  ];
  let dependentDialects = ["::mlir::shard::ShardDialect",
                           "::mlir::tensor::TensorDialect"];
}

def AmpMpiWorldCommunicator
    : Pass<"amp-mpi-world-communicator", "ModuleOp"> {
  let summary = "Collectives on a 1-D grid that spans the MPI world use MPI_COMM_WORLD instead of a communicator split at every call";
  let description = [{
    Upstream `convert-shard-to-mpi` gives every collective its own
    communicator: `mpi.comm_split(comm_world, color, key)` with the grid
    coordinates, before every `mpi.allreduce`. For a 1-D grid that spans
    the whole world, as `amp-dp-bucket-all-reduce`'s `@amp_dp` does, every
    rank has color 0 and its own rank as key, so the new communicator is
    `MPI_COMM_WORLD` with the same ranks. Splitting anyway costs a
    collective call and leaks a communicator per all-reduce and step; under
    OpenMPI's ABI upstream's `mpi.comm_split` lowering also loads the new
    communicator (a pointer) as an i32.

    Each `mpi.comm_split` of `mpi.comm_world` whose color is the constant 0
    is replaced by the world communicator it splits. Precondition (checked
    by the Python package when it builds the step, not here): the grid has
    as many processes as the MPI world. The communicator set-up left dead
    (`mpi.comm_rank`, index arithmetic) is removed, and so are the
    `shard.grid` symbols that nothing refers to any more (they have no
    LLVM lowering).
  }];
  let dependentDialects = ["::mlir::mpi::MPIDialect"];
}

def AmpMpiAbi : Pass<"amp-mpi-abi", "ModuleOp"> {
  let summary = "Select the MPI library's ABI for mpi-to-LLVM lowering, check element types, make in-place all-reduces out-of-place";
  let description = [{
    Upstream's mpi-to-LLVM patterns (`convert-to-llvm`) emit calls for the
    ABI that the module's DLTI entry `"MPI:Implementation"` names
    (`MPICH` by default; `OpenMPI`: communicators, datatypes and ops are
    the addresses of `ompi_mpi_*` globals). This pass sets that entry to
    `implementation` (`dlti.map` on the module).

    It also rejects what that lowering would miscompile: an `mpi.allreduce`,
    `mpi.send` or `mpi.recv` on an element type other than f32, f64 or a
    signless integer of 8, 16, 32 or 64 bits (the lowering has no MPI
    datatype for f16 or bf16).

    `convert-shard-to-mpi` reduces into a copy of its input in place
    (`mpi.allreduce(%buf, %buf)`); MPI forbids aliased send and receive
    buffers (MPI-4.0, section 6.9.6: only `MPI_IN_PLACE` may alias). When
    the buffer is a `memref.alloc` whose only writer before the all-reduce
    is a `linalg.copy` from a source of the same type, the all-reduce reads
    the source and writes the buffer, and the copy is removed.

    The lowering takes a buffer's element count from its first dimension
    (and reads a size a 0-d buffer does not have): buffers of another rank
    are passed as 1-D views (`memref.collapse_shape`, or `expand_shape` for
    0-d).

    Errors: `implementation` other than `OpenMPI` or `MPICH`; an
    unsupported element type, or a buffer that is not contiguous with a
    static shape (located at the op).
  }];
  let options = [
    Option<"implementation", "implementation", "std::string",
           /*default=*/"\"OpenMPI\"",
           "MPI library ABI: OpenMPI or MPICH">,
  ];
  let dependentDialects = ["::mlir::DLTIDialect",
                           "::mlir::memref::MemRefDialect"];
}

def AmpMpiOpenMpiSymbols : Pass<"amp-mpi-openmpi-symbols", "ModuleOp"> {
  let summary = "Rename the OpenMPI reduction-op globals that upstream's mpi-to-LLVM lowering misnames";
  let description = [{
    Under OpenMPI's ABI, upstream's lowering (MPIToLLVM.cpp,
    `OMPIImplTraits::getMPIOp`) takes the address of `ompi_mpi_sum`,
    `ompi_mpi_max`, ...; OpenMPI's `mpi.h` defines `MPI_SUM` as
    `&ompi_mpi_op_sum` (`OMPI_PREDEFINED_GLOBAL(MPI_Op, ompi_mpi_op_sum)`),
    and `libmpi.so` exports only those names, so the JIT stops with
    "Symbols not found: [ ompi_mpi_sum ]". This pass renames the external
    `llvm.mlir.global` declarations `@ompi_mpi_<op>` of the predefined
    reduction ops (max, min, sum, prod, land, band, lor, bor, lxor, bxor,
    maxloc, minloc, replace, no_op) to `@ompi_mpi_op_<op>`, with their
    `llvm.mlir.addressof` uses. Run it after `convert-to-llvm` on modules
    lowered for OpenMPI (amp-cpu-pipeline does); datatypes and
    communicators are named correctly upstream.
  }];
}

#endif // AMP_DISTRIBUTED_PASSES_TD
