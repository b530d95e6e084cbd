//===- DuplicateFills.cpp - one linalg.fill per destination ---------------===//
//
// The `amp-duplicate-fills` pass: a `linalg.fill` on tensors that is the
// destination (DPS init) of several ops gets one copy per destination, so
// that bufferization writes each fill into its user's buffer instead of
// filling one buffer and copying it for every user (Passes.td has the why).
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/Common/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPDUPLICATEFILLS
#include "amp/Codegen/Common/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

struct AmpDuplicateFillsPass
    : public amp::impl::AmpDuplicateFillsBase<AmpDuplicateFillsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::FillOp> fills;
    // Program order (pre-order), to keep each fill with its first user.
    DenseMap<Operation *, unsigned> order;
    getOperation().walk<WalkOrder::PreOrder>([&](Operation *op) {
      order[op] = order.size();
      if (auto fill = dyn_cast<linalg::FillOp>(op);
          fill && fill.hasPureTensorSemantics())
        fills.push_back(fill);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::FillOp fill : fills) {
      // The uses as another op's destination, in program order; all but
      // the first get a copy (all of them when the fill is also read).
      SmallVector<OpOperand *> destinations;
      for (OpOperand &use : fill.getResult(0).getUses()) {
        auto user = dyn_cast<DestinationStyleOpInterface>(use.getOwner());
        if (user && user.isDpsInit(&use))
          destinations.push_back(&use);
      }
      // A fill also read as an input stays for those reads; then every
      // destination gets a copy (written in place, the original would be
      // read after it changed).
      bool alsoRead =
          destinations.size() !=
          static_cast<size_t>(llvm::range_size(fill->getUses()));
      if (destinations.empty() || (destinations.size() == 1 && !alsoRead))
        continue;
      llvm::sort(destinations, [&](OpOperand *a, OpOperand *b) {
        return std::make_pair(order.lookup(a->getOwner()),
                              a->getOperandNumber()) <
               std::make_pair(order.lookup(b->getOwner()),
                              b->getOperandNumber());
      });
      auto empty = fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>();
      for (OpOperand *use :
           ArrayRef(destinations).drop_front(alsoRead ? 0 : 1)) {
        rewriter.setInsertionPoint(use->getOwner());
        IRMapping mapping;
        // A tensor.empty destination is cloned too (a fresh buffer each);
        // another destination stays shared, as the original fill had it.
        // The clones' operands dominate the original fill, which dominates
        // the user.
        if (empty)
          mapping.map(empty.getResult(), rewriter.clone(*empty)->getResult(0));
        Operation *copy = rewriter.clone(*fill, mapping);
        rewriter.modifyOpInPlace(use->getOwner(),
                                 [&] { use->set(copy->getResult(0)); });
      }
    }
  }
};

} // namespace
