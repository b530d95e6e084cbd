//===- FoldTransposeIntoContraction.cpp - transposed operands as maps -----===//
//
// The `amp-fold-transpose-into-contraction` pass: a contraction input
// produced by a pure permutation (linalg.transpose, or a linalg.generic
// copying its input through permutation maps) reads the permutation's input
// through a composed indexing map instead (Passes.td has the why).
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/Common/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPFOLDTRANSPOSEINTOCONTRACTION
#include "amp/Codegen/Common/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

/// A value computed as a permutation of `source`: value[i] =
/// source[map(i)]. `cast` is the body's one op (arith.extf/truncf of the
/// input) when the permutation converts the elements too.
struct Permutation {
  linalg::LinalgOp op;
  Value source;
  AffineMap map;
  Operation *cast = nullptr;
};

/// The permutation that produces `value`: a linalg.transpose, or a
/// linalg.generic on tensors with one input and one init, all loops
/// parallel, both maps permutations and a body that yields its input
/// (or one arith.extf / arith.truncf of it).
std::optional<Permutation> matchPermutation(Value value) {
  auto op = value.getDefiningOp<linalg::LinalgOp>();
  if (!op || !isa<linalg::TransposeOp, linalg::GenericOp>(op.getOperation()) ||
      !op.hasPureTensorSemantics() || op.getNumDpsInputs() != 1 ||
      op.getNumDpsInits() != 1 || op->getNumResults() != 1 ||
      op.getNumParallelLoops() != op.getNumLoops())
    return std::nullopt;
  OpOperand *input = op.getDpsInputOperand(0);
  AffineMap in = op.getMatchingIndexingMap(input);
  AffineMap out = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!in.isPermutation() || !out.isPermutation() ||
      !isa<RankedTensorType>(input->get().getType()))
    return std::nullopt;
  Block *body = op.getBlock();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  Value arg = body->getArgument(0);
  Value yielded = yield.getOperand(0);
  Operation *castOp = nullptr;
  if (yielded != arg) {
    castOp = yielded.getDefiningOp();
    if (!isa_and_nonnull<arith::ExtFOp, arith::TruncFOp>(castOp) ||
        castOp->getOperand(0) != arg || body->getOperations().size() != 2)
      return std::nullopt;
  } else if (body->getOperations().size() != 1) {
    return std::nullopt;
  }
  // value index -> loops (out^-1) -> source index (in).
  return Permutation{op, input->get(), in.compose(inversePermutation(out)),
                     castOp};
}

/// The contractions this pass rewrites: matmul, batch_matmul and
/// contraction generics on tensors.
bool isFoldableContraction(Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  return linalgOp &&
         isa<linalg::MatmulOp, linalg::BatchMatmulOp, linalg::GenericOp>(op) &&
         linalgOp.hasPureTensorSemantics() &&
         linalg::isaContractionOpInterface(linalgOp);
}

/// The indexing map of `operand` (an input of a foldable contraction) when
/// it reads `perm`'s source instead, or null when the op cannot take it: a
/// named matmul keeps the dimensions of each map (no broadcast appears or
/// goes), a batch matmul also its batch dimension first (its verifier's
/// rule); a generic takes any projected permutation.
AffineMap foldedMap(OpOperand &operand, const Permutation &perm) {
  auto op = cast<linalg::LinalgOp>(operand.getOwner());
  AffineMap old = op.getMatchingIndexingMap(&operand);
  AffineMap folded = perm.map.compose(old);
  if (isa<linalg::GenericOp>(op.getOperation()))
    return folded.isProjectedPermutation() ? folded : AffineMap();
  if (!folded.isProjectedPermutation(/*allowZeroInResults=*/false) ||
      folded.getNumResults() != old.getNumResults())
    return {};
  llvm::SmallDenseSet<unsigned> oldDims, newDims;
  for (AffineExpr e : old.getResults())
    oldDims.insert(cast<AffineDimExpr>(e).getPosition());
  for (AffineExpr e : folded.getResults())
    newDims.insert(cast<AffineDimExpr>(e).getPosition());
  if (oldDims != newDims)
    return {};
  if (isa<linalg::BatchMatmulOp>(op.getOperation()) &&
      folded.getResult(0) != old.getResult(0))
    return {};
  return folded;
}

/// Sets the indexing maps of the contraction `op` (matmul, batch_matmul or
/// generic: all three keep them in an `indexing_maps` property).
void setIndexingMaps(Operation *op, ArrayAttr maps) {
  if (auto matmul = dyn_cast<linalg::MatmulOp>(op))
    matmul.setIndexingMapsAttr(maps);
  else if (auto batch = dyn_cast<linalg::BatchMatmulOp>(op))
    batch.setIndexingMapsAttr(maps);
  else
    cast<linalg::GenericOp>(op).setIndexingMapsAttr(maps);
}

/// contraction(..., permutation(%x), ...) -> contraction(..., %x, ...) with
/// the permutation composed into the operand's map.
struct FoldPermutedOperand : OpInterfaceRewritePattern<linalg::LinalgOp> {
  using OpInterfaceRewritePattern::OpInterfaceRewritePattern;

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!isFoldableContraction(op))
      return rewriter.notifyMatchFailure(op, "not a contraction on tensors");
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    SmallVector<std::pair<OpOperand *, Value>> replaced;
    for (OpOperand *operand : op.getDpsInputOperands()) {
      std::optional<Permutation> perm = matchPermutation(operand->get());
      // A converting permutation is split first (SplitConvertingPermutation).
      if (!perm || perm->cast)
        continue;
      AffineMap folded = foldedMap(*operand, *perm);
      if (!folded)
        continue;
      maps[operand->getOperandNumber()] = folded;
      replaced.push_back({operand, perm->source});
    }
    if (replaced.empty())
      return rewriter.notifyMatchFailure(op, "no permuted input to fold");
    rewriter.modifyOpInPlace(op, [&] {
      for (auto [operand, source] : replaced)
        operand->set(source);
      setIndexingMaps(op, rewriter.getAffineMapArrayAttr(maps));
    });
    return success();
  }
};

/// A permutation that converts its elements (a cast fused with a
/// transpose), read only by contractions that can take the permutation in
/// their maps, becomes the cast in the source's order followed by a
/// linalg.transpose, which FoldPermutedOperand then folds: one pass over
/// the operand remains (the cast), as for a cast that is not fused.
struct SplitConvertingPermutation : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    if (op->getNumResults() != 1)
      return rewriter.notifyMatchFailure(op, "not one result");
    std::optional<Permutation> perm = matchPermutation(op->getResult(0));
    if (!perm || !perm->cast || perm->map.isIdentity())
      return rewriter.notifyMatchFailure(op, "not a converting permutation");
    Value result = op->getResult(0);
    for (OpOperand &use : result.getUses()) {
      if (!isFoldableContraction(use.getOwner()) ||
          !cast<linalg::LinalgOp>(use.getOwner()).isDpsInput(&use) ||
          !foldedMap(use, *perm))
        return rewriter.notifyMatchFailure(op, "a user cannot fold it");
    }
    Location loc = op.getLoc();
    auto sourceType = cast<RankedTensorType>(perm->source.getType());
    Type elem = getElementTypeOrSelf(result.getType());
    int64_t rank = sourceType.getRank();
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, loc, perm->source);
    Value init = tensor::EmptyOp::create(rewriter, loc, sizes, elem);
    AffineMap id = rewriter.getMultiDimIdentityMap(rank);
    SmallVector<utils::IteratorType> parallel(rank,
                                              utils::IteratorType::parallel);
    Operation *castOp = perm->cast;
    Value converted =
        linalg::GenericOp::create(
            rewriter, loc, init.getType(), ValueRange{perm->source},
            ValueRange{init}, ArrayRef<AffineMap>{id, id}, parallel,
            [&](OpBuilder &b, Location l, ValueRange args) {
              IRMapping mapping;
              mapping.map(castOp->getOperand(0), args[0]);
              Operation *clone = b.clone(*castOp, mapping);
              linalg::YieldOp::create(b, l, clone->getResult(0));
            })
            .getResult(0);
    // result[i] = converted[map(i)]: source dimension s is indexed by
    // result dimension r = map's s-th result, and linalg.transpose's
    // permutation[r] is the input dimension of result dimension r.
    SmallVector<int64_t> permutation(rank);
    for (auto [s, e] : llvm::enumerate(perm->map.getResults()))
      permutation[cast<AffineDimExpr>(e).getPosition()] = s;
    Value resultInit = tensor::EmptyOp::create(
        rewriter, loc, tensor::getMixedSizes(rewriter, loc, result), elem);
    rewriter.replaceOpWithNewOp<linalg::TransposeOp>(op, converted, resultInit,
                                                     permutation);
    return success();
  }
};

struct AmpFoldTransposeIntoContractionPass
    : public amp::impl::AmpFoldTransposeIntoContractionBase<
          AmpFoldTransposeIntoContractionPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldPermutedOperand, SplitConvertingPermutation>(
        &getContext());
    // The greedy driver also erases the permutations left without uses.
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));
  }
};

} // namespace
