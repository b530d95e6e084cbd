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
#include "mlir/Dialect/SCF/IR/SCF.h"
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

/// A use that the user writes into: the init of a destination-style op, a
/// shared output of an `scf.forall` (a contraction that
/// amp-cpu-tile-and-vectorize tiled), the initial value of an `scf.for`'s
/// iteration argument.
bool isDestination(OpOperand &use) {
  Operation *user = use.getOwner();
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(user))
    return dps.isDpsInit(&use);
  if (auto forall = dyn_cast<scf::ForallOp>(user))
    return llvm::is_contained(forall.getOutputsMutable(), use);
  if (auto loop = dyn_cast<scf::ForOp>(user))
    return llvm::is_contained(loop.getInitArgsMutable(), use);
  return false;
}

struct AmpDuplicateFillsPass
    : public amp::impl::AmpDuplicateFillsBase<AmpDuplicateFillsPass> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    // A reshape of a tensor.empty is an empty of the reshaped type (what
    // upstream's FoldEmptyTensorWithReshapeOp folds; not its slice folds,
    // which would move allocations into tiled loops): the fills below then
    // see their own tensor.empty. amp-cpu-tile-and-vectorize's packed
    // contractions fill a reshaped view of their accumulator's empty; CSE
    // left one view of one empty for all of them (the four attention score
    // batch matmuls of the GPT step shared one 1 MiB f32 buffer held from
    // the first layer's forward to the last backward).
    SmallVector<Operation *> reshapes;
    getOperation().walk([&](Operation *op) {
      if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op) &&
          op->getOperand(0).getDefiningOp<tensor::EmptyOp>() &&
          cast<RankedTensorType>(op->getResult(0).getType()).hasStaticShape())
        reshapes.push_back(op);
    });
    for (Operation *reshape : reshapes) {
      rewriter.setInsertionPoint(reshape);
      auto type = cast<RankedTensorType>(reshape->getResult(0).getType());
      rewriter.replaceOpWithNewOp<tensor::EmptyOp>(
          reshape, type.getShape(), type.getElementType(), type.getEncoding());
    }
    SmallVector<linalg::FillOp> fills;
    // Program order (pre-order), to keep each fill with its first user.
    DenseMap<Operation *, unsigned> order;
    getOperation().walk<WalkOrder::PreOrder>([&](Operation *op) {
      order[op] = order.size();
      if (auto fill = dyn_cast<linalg::FillOp>(op);
          fill && fill.hasPureTensorSemantics())
        fills.push_back(fill);
    });
    for (linalg::FillOp fill : fills) {
      // The uses as another op's destination, in program order; all but
      // the first get a copy (all of them when the fill is also read).
      SmallVector<OpOperand *> destinations;
      for (OpOperand &use : fill.getResult(0).getUses())
        if (isDestination(use))
          destinations.push_back(&use);
      // A fill also read as an input stays for those reads; then every
      // destination gets a copy (written in place, the original would be
      // read after it changed).
      bool alsoRead = destinations.size() !=
                      static_cast<size_t>(llvm::range_size(fill->getUses()));
      if (destinations.empty())
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
      // The fill kept for the first destination moves down to right before
      // it (with its tensor.empty, or a clone of it when the empty has other
      // uses), so that its buffer is allocated and filled there, not where
      // CSE left the one fill of all (the forward, for a backward matmul's
      // accumulator). Only within the block: never into a loop.
      if (alsoRead)
        continue;
      Operation *user = destinations.front()->getOwner();
      if (user->getBlock() != fill->getBlock() || user == fill->getNextNode())
        continue;
      rewriter.moveOpBefore(fill, user);
      if (empty && empty->getBlock() == fill->getBlock()) {
        if (empty->hasOneUse()) {
          rewriter.moveOpBefore(empty, fill);
        } else {
          rewriter.setInsertionPoint(fill);
          Operation *clone = rewriter.clone(*empty);
          rewriter.modifyOpInPlace(fill, [&] {
            fill.getOutputsMutable()[0].set(clone->getResult(0));
          });
        }
      }
    }

    // One tensor.empty per use, right before the op of its block that uses
    // it: One-Shot Bufferize writes the ops that share an empty into one
    // buffer when their values do not overlap, which holds that buffer from
    // the first op to the last (a forward matmul's accumulator reused by
    // the backward held 1 MiB across the whole MLP step).
    SmallVector<tensor::EmptyOp> empties;
    getOperation().walk(
        [&](tensor::EmptyOp empty) { empties.push_back(empty); });
    for (tensor::EmptyOp empty : empties) {
      Block *block = empty->getBlock();
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : empty->getUses())
        uses.push_back(&use);
      if (uses.empty() || llvm::any_of(uses, [&](OpOperand *use) {
            return !block->findAncestorOpInBlock(*use->getOwner());
          }))
        continue;
      if (uses.size() == 1) {
        Operation *at = block->findAncestorOpInBlock(*uses.front()->getOwner());
        if (empty->getNextNode() != at)
          rewriter.moveOpBefore(empty, at);
        continue;
      }
      for (OpOperand *use : uses) {
        rewriter.setInsertionPoint(
            block->findAncestorOpInBlock(*use->getOwner()));
        Operation *clone = rewriter.clone(*empty);
        rewriter.modifyOpInPlace(use->getOwner(),
                                 [&] { use->set(clone->getResult(0)); });
      }
      rewriter.eraseOp(empty);
    }
  }
};

} // namespace
