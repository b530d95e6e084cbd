//===- FuseMultiUseElementwise.cpp - fuse producers that have other uses --===//
//
// The `amp-fuse-multi-use-elementwise` pass: an elementwise linalg.generic
// whose result is read by an elementwise consumer and used elsewhere too
// (SGD's new momentum, read by the weight update and returned as state) is
// fused into the consumer as one op with both results; the other uses take
// the fused op's copy (Passes.td has the why and the conditions).
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/Common/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPFUSEMULTIUSEELEMENTWISE
#include "amp/Codegen/Common/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

static bool allParallel(linalg::GenericOp op) {
  return op.getNumParallelLoops() == op.getNumLoops();
}

/// Whether `use` (of a result of the producer of `fused`) may take the fused
/// op's result: it is `fused` itself, or it comes after the consumer (the
/// owner of `fused`, where the fused op is built) in the consumer's block,
/// directly or inside an op there.
static bool isFusedOrAfterConsumer(OpOperand &use, OpOperand *fused) {
  if (&use == fused)
    return true;
  Operation *consumer = fused->getOwner();
  Operation *ancestor =
      consumer->getBlock()->findAncestorOpInBlock(*use.getOwner());
  return ancestor && ancestor != consumer &&
         consumer->isBeforeInBlock(ancestor);
}

/// Whether the producer of `fused` (an input of an elementwise consumer)
/// has uses besides `fused` and may be fused with all of them kept.
static bool isFusableMultiUse(OpOperand *fused) {
  auto producer = fused->get().getDefiningOp<linalg::GenericOp>();
  auto consumer = cast<linalg::GenericOp>(fused->getOwner());
  // One use: upstream's linalg-fuse-elementwise-ops' case.
  if (!producer || producer->hasOneUse())
    return false;
  // Moving the producer into a loop around the consumer would recompute it
  // every iteration.
  if (producer->getBlock() != consumer->getBlock())
    return false;
  // The producer's body moves to the consumer: a read of memory there could
  // see a write in between.
  if (!llvm::all_of(producer.getBody()->without_terminator(),
                    [](Operation &op) { return isMemoryEffectFree(&op); }))
    return false;
  if (!linalg::areElementwiseOpsFusable(fused) || !allParallel(consumer))
    return false;
  // Each producer element once: no broadcast into the consumer's loops.
  if (!consumer.getMatchingIndexingMap(fused).isPermutation())
    return false;
  for (OpResult result : producer->getResults())
    for (OpOperand &use : result.getUses())
      if (!isFusedOrAfterConsumer(use, fused))
        return false;
  return true;
}

struct FuseMultiUseProducer : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp consumer,
                                PatternRewriter &rewriter) const override {
    if (!consumer.hasPureTensorSemantics())
      return rewriter.notifyMatchFailure(consumer, "not on tensors");
    for (OpOperand *fused : consumer.getDpsInputOperands()) {
      if (!isFusableMultiUse(fused))
        continue;
      Operation *producer = fused->get().getDefiningOp();
      FailureOr<linalg::ElementwiseOpFusionResult> result =
          linalg::fuseElementwiseOps(rewriter, fused);
      if (failed(result))
        return rewriter.notifyMatchFailure(consumer, "fusion failed");
      // Every producer result with a use besides `fused` is preserved (a
      // result of the fused op); all those uses follow the fused op.
      for (auto [original, replacement] : result->replacements)
        rewriter.replaceAllUsesWith(original, replacement);
      rewriter.eraseOp(consumer);
      assert(producer->use_empty() && "a producer result was not preserved");
      rewriter.eraseOp(producer);
      return success();
    }
    return rewriter.notifyMatchFailure(consumer, "no multi-use producer");
  }
};

struct AmpFuseMultiUseElementwisePass
    : public amp::impl::AmpFuseMultiUseElementwiseBase<
          AmpFuseMultiUseElementwisePass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseMultiUseProducer>(&getContext());
    // Producers before consumers: a chain fuses from its start. The pass
    // fuses and nothing else: no folding, constant CSE or region
    // simplification (canonicalize does those).
    GreedyRewriteConfig config;
    config.setUseTopDownTraversal()
        .enableFolding(false)
        .enableConstantCSE(false)
        .setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     config))) {
      getOperation().emitError(
          "amp-fuse-multi-use-elementwise: fusion did not converge");
      return signalPassFailure();
    }
  }
};

} // namespace
