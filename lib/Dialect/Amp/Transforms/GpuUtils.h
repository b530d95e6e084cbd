//===- GpuUtils.h - shared queries of the GPU passes ------------*- C++ -*-===//
//
// Where a GPU pass may build a kernel of its own: in host code, outside the
// loops that the pipeline turns into kernels themselves.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_DIALECT_AMP_TRANSFORMS_GPUUTILS_H
#define AMP_LIB_DIALECT_AMP_TRANSFORMS_GPUUTILS_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::amp {

/// Whether `op` is in the body of a parallel loop (`scf.parallel`,
/// `scf.forall`, `affine.parallel`), which the GPU pipeline maps to a
/// kernel: a launch inside it would be nested in that kernel.
inline bool isInParallelLoop(Operation *op) {
  return op->getParentOfType<scf::ParallelOp>() ||
         op->getParentOfType<scf::ForallOp>() ||
         op->getParentOfType<affine::AffineParallelOp>();
}

/// Whether `op` is device code (in a `gpu.launch` or a `gpu.func`) or in a
/// parallel loop (above): no place for a launch of its own.
inline bool isInDeviceCodeOrParallelLoop(Operation *op) {
  return op->getParentOfType<gpu::LaunchOp>() ||
         op->getParentOfType<gpu::GPUFuncOp>() || isInParallelLoop(op);
}

} // namespace mlir::amp

#endif // AMP_LIB_DIALECT_AMP_TRANSFORMS_GPUUTILS_H
