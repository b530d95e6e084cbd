//===- GpuUtils.h - shared pieces of the GPU passes -------------*- C++ -*-===//
//
// Where a GPU pass may build a kernel of its own (in host code, outside the
// loops that the pipeline turns into kernels themselves), and the pieces the
// passes that turn linalg ops into kernels of their own share: indexing,
// inlining an op's body at given loop indices, and the combiner of a
// reduction.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_CODEGEN_GPU_GPUUTILS_H
#define AMP_LIB_CODEGEN_GPU_GPUUTILS_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

#include <optional>
#include <string>

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

/// The buffer a memref value is a view of (through view-like ops).
Value rootBuffer(Value memref);

/// Whether the linalg op on buffers `op` may read its output's buffer: an
/// input, or a memref its body uses, that may be a view of it (through
/// view-like ops, `memref.transpose` and `arith.select`), of the same
/// global, or of a buffer whose origin is not known (a region's result, a
/// loop's or branch's block argument, a call's result). Allocations and
/// function arguments are distinct buffers. A kernel whose threads read
/// while others write the output would read stale elements.
bool mayReadOutputBuffer(linalg::LinalgOp op);

/// Why the linalg op on buffers `op` cannot become a kernel of its own
/// (called from host code), or nothing: it is inside device code or a
/// parallel loop, reads or writes a stack buffer (kernels cannot reach
/// `memref.alloca`; operands and memrefs its body uses), calls a function in
/// its body (host functions cannot run in a kernel), or has a loop of static
/// size 0.
std::optional<std::string> whyNoKernel(linalg::LinalgOp op);

/// The indices `map` gives for the loop indices `ivs` (affine.apply; a
/// constant result gives a constant index).
SmallVector<Value> applyMap(OpBuilder &b, Location loc, AffineMap map,
                            ValueRange ivs);

/// Maps the body's block arguments to the operands' elements at the loop
/// indices `ivs` (loads of memref operands, scalars as they are) and clones
/// the body's ops but the terminator; `linalg.index` gives `ivs`. Arguments
/// `mapping` already maps (the outputs of a reduction, mapped to its
/// accumulator) are not loaded. Returns the values the body yields.
SmallVector<Value> inlineBody(OpBuilder &b, Location loc, linalg::LinalgOp op,
                              ValueRange ivs, IRMapping &mapping);

/// The combiner of a linalg reduction with one output: the one op of the
/// body (found by `matchReduction`) that folds a value into the output's.
struct ReductionCombiner {
  /// The combiner, `out <op> value` or `value <op> out`.
  Operation *op = nullptr;
  /// The output's block argument.
  BlockArgument out;
  /// The element type it combines.
  Type type;
  /// Its neutral element: -0.0 for a float sum without `nsz` (x + -0.0 ==
  /// x for every x, -0.0 included), else `arith::getNeutralElement`'s.
  TypedAttr neutral;
  /// The `gpu.all_reduce` operation that combines it across a block, where
  /// there is one for its type here: add, mul, min/max in their float and
  /// integer forms, and, or, xor on f32, f64, i32 or i64, and, or, xor also
  /// on i1 (through i32).
  std::optional<gpu::AllReduceOperation> allReduce;

  /// `combiner(acc, value)`, cloned at `b`'s insertion point: `acc` takes
  /// the output's place, `value` the folded value's.
  Value combine(OpBuilder &b, Value acc, Value value) const;

  /// Combines `value` into the element of `op`'s output (its one init) at
  /// the loop indices `ivs`: load, combine, store. With `filled` (the value
  /// of the output's fill, see `getFillOfOutput`), `value` is combined with
  /// that instead of the loaded element.
  void combineIntoOutput(OpBuilder &b, Location loc, linalg::LinalgOp op,
                         ValueRange ivs, Value value,
                         Value filled = nullptr) const;

  /// A `gpu.all_reduce` of `value` across the block (uniform), with i1 taken
  /// through i32. Only where `allReduce` is set.
  Value allReduceInBlock(OpBuilder &b, Location loc, Value value) const;
};

/// The `linalg.fill` on buffers right before `op` (the op before it in its
/// block) that fills `op`'s one output, a memref, with a value of its
/// element type, where `op` reads no input from that buffer and indexes
/// every dimension of the output by a loop of its own; or null. A
/// reduction kernel that writes every element of its output can start from
/// the fill's value instead of loading it, and the fill (a kernel of its
/// own) goes: bufferization's zeroed accumulator of a sum, the -inf of a
/// max, the `false` of an inf/NaN check.
linalg::FillOp getFillOfOutput(linalg::LinalgOp op);

/// A `gpu.launch` of a 1-D grid of `blocks` blocks of `threadsX` x
/// `threadsY` threads, with the workgroup buffers `workgroup`; the builder
/// is left inside it, before its terminator.
gpu::LaunchOp createLaunch(OpBuilder &b, Location loc, OpFoldResult blocks,
                           int64_t threadsX, int64_t threadsY = 1,
                           TypeRange workgroup = {});

/// The combiner of `op`, a reduction with one output whose body has a
/// single combiner op with a neutral element; otherwise failure, with the
/// reason in `why`.
FailureOr<ReductionCombiner> matchReductionCombiner(linalg::LinalgOp op,
                                                    std::string &why);

/// The loop ranges' sizes of `op` as values (constants where static).
SmallVector<Value> loopSizes(OpBuilder &b, Location loc, linalg::LinalgOp op);

/// The product of `values` (the first value alone for one; the constant 1
/// for none).
Value product(OpBuilder &b, Location loc, ValueRange values);

} // namespace mlir::amp

#endif // AMP_LIB_CODEGEN_GPU_GPUUTILS_H
