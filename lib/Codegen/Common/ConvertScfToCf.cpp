//===- ConvertScfToCf.cpp - convert-scf-to-cf in linear time --------------===//
//
// The `amp-convert-scf-to-cf` pass: upstream convert-scf-to-cf, with every
// block split after each SCF op first (so that the conversion's own split
// before the op moves two ops, not all the ops after it) and the pieces
// merged back after it (Passes.td has the figures).
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/Common/Passes.h"

#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/RegionKindInterface.h"
#include "mlir/Pass/PassManager.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPCONVERTSCFTOCF
#include "amp/Codegen/Common/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

/// An op that convert-scf-to-cf lowers by splitting its block before it.
bool isLoweredBySplitting(Operation &op) {
  return isa_and_nonnull<scf::SCFDialect>(op.getDialect()) &&
         op.getNumRegions() > 0 && !op.hasTrait<OpTrait::IsTerminator>();
}

/// A block of a region that may have several blocks and branches between
/// them, ended by a terminator.
bool mayHoldBranches(Block &block) {
  Operation *parent = block.getParentOp();
  if (!parent || parent->hasTrait<OpTrait::SingleBlock>())
    return false;
  if (auto kinds = dyn_cast<RegionKindInterface>(parent))
    if (!kinds.hasSSADominance(block.getParent()->getRegionNumber()))
      return false;
  return !block.empty() && block.back().hasTrait<OpTrait::IsTerminator>();
}

/// Splits the blocks of `root` after each SCF op that is not last before
/// its block's terminator; returns the new blocks (each starts after one).
SmallVector<Block *> splitAfterScfOps(Operation *root) {
  SmallVector<Block *> blocks;
  root->walk([&](Block *block) {
    if (mayHoldBranches(*block))
      blocks.push_back(block);
  });
  SmallVector<Block *> rests;
  OpBuilder builder(root->getContext());
  for (Block *block : blocks) {
    SmallVector<Operation *> splitAfter;
    for (Operation &op : *block)
      if (isLoweredBySplitting(op) && op.getNextNode() != &block->back())
        splitAfter.push_back(&op);
    // From the last one up: each op after a split point moves once.
    for (Operation *op : llvm::reverse(splitAfter)) {
      Block *rest = block->splitBlock(op->getNextNode());
      builder.setInsertionPointToEnd(block);
      cf::BranchOp::create(builder, op->getLoc(), rest);
      rests.push_back(rest);
    }
  }
  return rests;
}

/// Appends `rest` to its predecessor when that ends with an operand-less
/// cf.br to it and is its only predecessor.
void mergeIntoPredecessor(Block *rest) {
  Block *pred = rest->getSinglePredecessor();
  if (!pred || pred == rest || rest->getNumArguments() != 0)
    return;
  auto branch = dyn_cast<cf::BranchOp>(pred->getTerminator());
  if (!branch || branch.getDest() != rest)
    return;
  branch.erase();
  pred->getOperations().splice(pred->end(), rest->getOperations());
  rest->erase();
}

struct AmpConvertScfToCfPass
    : public amp::impl::AmpConvertScfToCfBase<AmpConvertScfToCfPass> {
  using Base::Base;

  void runOnOperation() override {
    Operation *root = getOperation();
    SmallVector<Block *> rests = splitAfterScfOps(root);
    OpPassManager pm(root->getName());
    pm.addPass(createSCFToControlFlowPass());
    if (failed(runPipeline(pm, root)))
      return signalPassFailure();
    for (Block *rest : rests)
      mergeIntoPredecessor(rest);
  }
};

} // namespace
