//===- FuseElementwise.cpp - elementwise fusion without recomputation -----===//
//
// The `amp-fuse-elementwise` pass: upstream's elementwise fusion patterns
// (those of `linalg-fuse-elementwise-ops`), with a control function that
// fuses a producer only into a consumer that reads each of its elements
// once: never into a contraction, where the producer would run once per
// multiply-add, nor into a consumer that broadcasts it.
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/Common/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPFUSEELEMENTWISE
#include "amp/Codegen/Common/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

namespace {

/// Upstream's default: the producer has one use (it goes with the fusion).
bool producerHasOneUse(OpOperand *fused) {
  Operation *producer = fused->get().getDefiningOp();
  return producer && producer->hasOneUse();
}

/// Whether `op` is a contraction or a convolution: the ops that the code
/// generators (and library calls) take as they are.
bool isContractionOrConvolution(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  return linalgOp && (linalg::isaContractionOpInterface(linalgOp) ||
                      linalg::isaConvolutionOpInterface(linalgOp));
}

/// Reshape propagation: upstream's default, and neither side is a
/// contraction or convolution (a `linalg.matmul` whose operand is a
/// collapse_shape would become a `linalg.generic` with two m dimensions:
/// no longer a named matmul that B packing and library calls take).
bool propagatesReshape(OpOperand *fused) {
  return producerHasOneUse(fused) &&
         !isContractionOrConvolution(fused->getOwner()) &&
         !isContractionOrConvolution(fused->get().getDefiningOp());
}

/// Elementwise fusion: upstream's default, and the consumer reads the
/// producer's result through a permutation of its loops (no loop of the
/// consumer that the producer's element does not depend on, so no
/// recomputation).
bool fusesWithoutRecomputation(OpOperand *fused) {
  if (!producerHasOneUse(fused))
    return false;
  auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
  return consumer && consumer.getMatchingIndexingMap(fused).isPermutation();
}

struct AmpFuseElementwisePass
    : public amp::impl::AmpFuseElementwiseBase<AmpFuseElementwisePass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    RewritePatternSet patterns(ctx);
    linalg::populateElementwiseOpsFusionPatterns(patterns,
                                                 fusesWithoutRecomputation);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns,
                                                      propagatesReshape);
    tensor::populateBubbleUpExpandShapePatterns(patterns);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, ctx);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, ctx);
    ctx->getLoadedDialect<linalg::LinalgDialect>()->getCanonicalizationPatterns(
        patterns);
    linalg::populateConstantFoldLinalgOperations(patterns, producerHasOneUse);
    (void)applyPatternsGreedily(getOperation(), std::move(patterns),
                                GreedyRewriteConfig().setUseTopDownTraversal());
  }
};

} // namespace
