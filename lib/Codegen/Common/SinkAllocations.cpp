//===- SinkAllocations.cpp - allocations next to their first user ---------===//
//
// The `amp-sink-allocations` pass: every memref.alloc moves down to right
// before the first op of its block that uses it, so that a buffer is held
// only from its first use (Passes.td has the why).
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/Common/Passes.h"
#include "amp/Support/Sinking.h"

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
    for (memref::AllocOp alloc : allocs)
      sinkToFirstUser(alloc);
  }
};

} // namespace
