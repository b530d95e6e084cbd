//===- Decision.h - what amp-autocast decides per op ------------*- C++ -*-===//
//
// The pieces of amp-autocast's per-op decision that do not depend on the
// scope being rewritten: which ops are sources (converted where used) or
// structural (their bodies are processed op by op), which operands decide an
// op's widest input type, and which constants keep an op in f32. Also the
// pass's shared types: the mode, an autocast scope and the statistics.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_DIALECT_AMP_TRANSFORMS_AUTOCAST_DECISION_H
#define AMP_LIB_DIALECT_AMP_TRANSFORMS_AUTOCAST_DECISION_H

#include "amp/Dialect/Amp/IR/Amp.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/Region.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>

namespace mlir::amp::autocast {

enum class Mode { graph, eager };

/// An autocast region: the body of an amp.autocast op or of a decorated
/// function.
struct Scope {
  Operation *owner;
  Region *region;
  AutocastAttr config;
};

/// Statistics of one pass run, shared by its scopes (see recordStatistics).
struct Counters {
  uint64_t opsF16 = 0, opsBF16 = 0, opsF32 = 0, castsCached = 0,
           castsHoisted = 0, constantsNarrowed = 0, keptF32 = 0;
  /// The amp.cast ops the pass made that are still there: some are erased
  /// again (a cast the loop-carried rewrite or the dead-helper cleanup no
  /// longer needs).
  DenseSet<Operation *> insertedCasts;
};

/// Sources carry no compute: constants and shape-only tensors are converted
/// (at compile time) where their users need another type. A constant fill
/// that only initialises structured ops' accumulators is one too: each user
/// rebuilds it at its own compute type.
bool isSource(Operation *op);

/// The blocks of `region`, each after the blocks that dominate it: a value
/// is retyped before its uses are met, whatever order the blocks are
/// written in (a use may be listed before its definition).
SmallVector<Block *> getBlocksInDominanceOrder(Region &region);

/// Ops whose regions belong to the enclosing autocast region: their bodies
/// are processed op by op, their region arguments and results keep types.
bool isStructural(OperationName name);
inline bool isStructural(Operation *op) { return isStructural(op->getName()); }

/// Float data operands of `op` that decide "the widest input type": tensor
/// operands when there are any (scalars do not promote tensors, as Python
/// scalars do not in PyTorch), else scalars; never tosa zero points or pad
/// constants. Inits of structured ops count only when the payload reads
/// them and they carry data; a `tensor.empty` (a pooling window, say)
/// carries none. The destination of any other destination-style op
/// (`tensor.insert_slice`, `tensor.insert`) is data: its elements outside
/// the inserted part are the result's, as a slice assignment into a tensor
/// keeps the tensor's dtype in PyTorch.
SmallVector<Value> getDataOperands(Operation *op);

/// The widest float element type of `values` (see widestFloatType), or null
/// when there are none.
FloatType widestOf(ArrayRef<Value> values);

/// The first float constant feeding `op` (directly, through a fill init, or
/// inside its payload) that does not fit in `type`. `constantOf(v)` is the
/// value of an operand of `op` that a constant op defines, else null (the
/// caller may remember it); constants inside the payload are matched here.
Attribute findNonFittingConstant(Operation *op, FloatType type,
                                 function_ref<Attribute(Value)> constantOf);

} // namespace mlir::amp::autocast

#endif // AMP_LIB_DIALECT_AMP_TRANSFORMS_AUTOCAST_DECISION_H
