//===- Sinking.h - move an op down to its first user ------------*- C++ -*-===//
//
// Shared by the passes that shorten how long a value is held by moving its
// defining op next to where it is first needed (amp-sink-allocations for
// memref.alloc, amp-sink-argument-casts for a weight's amp.cast).
//
//===----------------------------------------------------------------------===//

#ifndef AMP_SUPPORT_SINKING_H
#define AMP_SUPPORT_SINKING_H

#include "mlir/IR/Operation.h"

namespace mlir::amp {

/// The first op of `op`'s block that uses one of `op`'s results, directly or
/// from a region nested in it. Null when `op` has no users, or when a user
/// lies outside the block (possible only in a graph region).
Operation *findFirstUserInBlock(Operation *op);

/// Moves `op` to right before its first user in its block (see
/// findFirstUserInBlock) when that user comes after the op's next op.
/// Returns whether `op` moved.
bool sinkToFirstUser(Operation *op);

} // namespace mlir::amp

#endif // AMP_SUPPORT_SINKING_H
