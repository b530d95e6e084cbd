//===- Passes.h - data-parallel training over MPI ---------------*- C++ -*-===//
//
// Passes that make a training step data-parallel (amp-dp-bucket-all-reduce)
// and lower its collectives to MPI (amp-mpi-world-communicator, amp-mpi-abi),
// and the memory-effect models of the upstream mpi ops that bufferization's
// deallocation needs.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DISTRIBUTED_PASSES_H
#define AMP_DISTRIBUTED_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class DialectRegistry;
namespace amp {

#define GEN_PASS_DECL
#include "amp/Distributed/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "amp/Distributed/Passes.h.inc"

/// Attaches MemoryEffectOpInterface to the upstream mpi ops that declare no
/// effects, which ownership-based buffer deallocation rejects ("ops with
/// unknown memory side effects are not supported"): mpi.allreduce reads its
/// send buffer and writes its receive buffer, (i)send reads, (i)recv writes;
/// these and init, finalize, barrier and wait also read and write the
/// default resource (the MPI library's state), so they are never removed or
/// reordered; retval_check and error_class have no effects.
void registerMpiMemoryEffectModels(DialectRegistry &registry);

} // namespace amp
} // namespace mlir

#endif // AMP_DISTRIBUTED_PASSES_H
