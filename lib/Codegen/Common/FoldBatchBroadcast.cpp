//===- FoldBatchBroadcast.cpp - batch matmul of a broadcast to a matmul ---===//
//
// The `amp-fold-batch-broadcast` pass: `linalg.batch_matmul(%a, %bb)` with
// `%bb` one matrix broadcast across the batch becomes one `linalg.matmul`
// over the batch's rows (Passes.td has the why).
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/Common/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPFOLDBATCHBROADCAST
#include "amp/Codegen/Common/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

/// The matrix that `value` broadcasts along dimension 0 of a rank-3 tensor
/// (a linalg.broadcast with dimensions = [0], or a linalg.generic copying
/// its one input through the map (b, k, n) -> (k, n)); null otherwise.
Value getBatchBroadcastSource(Value value) {
  Operation *def = value.getDefiningOp();
  if (auto bcast = dyn_cast_or_null<linalg::BroadcastOp>(def)) {
    if (bcast.hasPureTensorSemantics() && bcast.getDimensions().size() == 1 &&
        bcast.getDimensions()[0] == 0)
      return bcast.getInput();
    return {};
  }
  auto generic = dyn_cast_or_null<linalg::GenericOp>(def);
  if (!generic || !generic.hasPureTensorSemantics() ||
      generic.getNumDpsInputs() != 1 || generic.getNumDpsInits() != 1 ||
      generic.getNumParallelLoops() != 3 || generic.getNumLoops() != 3)
    return {};
  MLIRContext *ctx = generic.getContext();
  AffineMap in = generic.getIndexingMapsArray()[0];
  AffineMap out = generic.getIndexingMapsArray()[1];
  AffineMap expectedIn = AffineMap::get(
      3, 0, {getAffineDimExpr(1, ctx), getAffineDimExpr(2, ctx)}, ctx);
  if (in != expectedIn || !out.isIdentity())
    return {};
  Block &body = generic.getRegion().front();
  auto yield = dyn_cast<linalg::YieldOp>(body.getTerminator());
  if (body.getOperations().size() != 1 || !yield ||
      yield.getNumOperands() != 1 || yield.getOperand(0) != body.getArgument(0))
    return {};
  Value source = generic.getDpsInputOperand(0)->get();
  if (!isa<RankedTensorType>(source.getType()))
    return {};
  return source;
}

struct FoldBatchBroadcastRhs : OpRewritePattern<linalg::BatchMatmulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::BatchMatmulOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() || op.hasUserDefinedMaps())
      return rewriter.notifyMatchFailure(op, "not the default batch matmul");
    Value lhs = op.getDpsInputOperand(0)->get();
    Value rhs = op.getDpsInputOperand(1)->get();
    Value init = op.getDpsInitOperand(0)->get();
    Value source = getBatchBroadcastSource(rhs);
    if (!source)
      return rewriter.notifyMatchFailure(op, "rhs is not a batch broadcast");
    auto lhsType = cast<RankedTensorType>(lhs.getType());
    auto initType = cast<RankedTensorType>(init.getType());
    auto sourceType = cast<RankedTensorType>(source.getType());
    if (!lhsType.hasStaticShape() || !initType.hasStaticShape() ||
        !sourceType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic shapes");
    Location loc = op.getLoc();
    SmallVector<ReassociationIndices> reassociation = {{0, 1}, {2}};
    auto lhs2d = tensor::CollapseShapeOp::create(rewriter, loc, lhs,
                                                 reassociation);
    auto init2d = tensor::CollapseShapeOp::create(rewriter, loc, init,
                                                  reassociation);
    auto matmul = linalg::MatmulOp::create(
        rewriter, loc, TypeRange{init2d.getType()},
        ValueRange{lhs2d, source}, ValueRange{init2d});
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
        op, initType, matmul.getResult(0), reassociation);
    return success();
  }
};

struct AmpFoldBatchBroadcastPass
    : public amp::impl::AmpFoldBatchBroadcastBase<AmpFoldBatchBroadcastPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldBatchBroadcastRhs>(&getContext());
    // The greedy driver also erases the broadcasts left without uses.
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));
  }
};

} // namespace
