//===- SinkAllocations.cpp - allocations next to their first user ---------===//
//
// The `amp-sink-allocations` pass: every memref.alloc moves down to right
// before the first op of its block that uses it, so that a buffer is held
// only from its first use (Passes.td has the why).
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/Common/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPSINKALLOCATIONS
#include "amp/Codegen/Common/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

struct AmpSinkAllocationsPass
    : public amp::impl::AmpSinkAllocationsBase<AmpSinkAllocationsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<memref::AllocOp> allocs;
    getOperation().walk(
        [&](memref::AllocOp alloc) { allocs.push_back(alloc); });
    for (memref::AllocOp alloc : allocs) {
      Block *block = alloc->getBlock();
      // The first op of the block that uses the buffer, directly or from a
      // nested region. A use outside the block (impossible for an SSA value
      // defined in it, but for a graph region) keeps the alloc in place.
      Operation *first = nullptr;
      bool outside = false;
      for (Operation *user : alloc->getUsers()) {
        Operation *ancestor = block->findAncestorOpInBlock(*user);
        if (!ancestor) {
          outside = true;
          break;
        }
        if (!first || ancestor->isBeforeInBlock(first))
          first = ancestor;
      }
      if (outside || !first || first == alloc->getNextNode())
        continue;
      alloc->moveBefore(first);
    }
  }
};

} // namespace
