//===- VectorizePooling.cpp - vector code for non-overlapping max pooling -===//
//
// The `amp-cpu-vectorize-pooling` pass: a `linalg.pooling_nchw_max` whose
// windows do not overlap (stride = window, no dilation: torch's
// `max_pool2d(k)`) reads its input as [N, C, OH, KH, OW, KW] (a reshape) in
// a `linalg.generic` that reduces over (KH, KW); the generic is tiled to
// one (n, c) plane, or a band of its rows, per step and the tile
// vectorized (upstream `scf::tileUsingSCF`, `linalg::vectorize`: one
// contiguous transfer read of the band and a `vector.multi_reduction`).
// Lowered to loops instead, the pooling was scalar code for bf16 (LLVM's
// loop vectorizer does not take bf16 compares) and 4-wide for f32.
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/CPU/Passes.h"

#include "OnednnMatch.h"
#include "VectorizeTiles.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPCPUVECTORIZEPOOLING
#include "amp/Codegen/CPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

/// Most elements of the input that one vectorized tile reads.
constexpr int64_t kMaxTileElements = 512;

/// Rewrites `op` as the reducing generic over the reshaped input and
/// vectorizes it; false (nothing changed) when `op` is not such a pooling.
bool vectorizePooling(RewriterBase &rewriter, linalg::PoolingNchwMaxOp op) {
  if (!op.hasPureTensorSemantics() || op.hasDynamicShape() ||
      op->getNumResults() != 1)
    return false;
  auto inType = cast<RankedTensorType>(op.getInputs()[0].getType());
  auto winType = cast<ShapedType>(op.getInputs()[1].getType());
  auto outType = cast<RankedTensorType>(op.getOutputs()[0].getType());
  if (!isa<FloatType>(inType.getElementType()) ||
      inType.getElementType() != outType.getElementType())
    return false;
  int64_t kh = winType.getDimSize(0), kw = winType.getDimSize(1);
  SmallVector<int64_t> strides =
      llvm::to_vector(op.getStrides().getValues<int64_t>());
  SmallVector<int64_t> dilations =
      llvm::to_vector(op.getDilations().getValues<int64_t>());
  if (strides != SmallVector<int64_t>{kh, kw} ||
      dilations != SmallVector<int64_t>{1, 1})
    return false;
  int64_t n = outType.getDimSize(0), c = outType.getDimSize(1),
          oh = outType.getDimSize(2), ow = outType.getDimSize(3);
  if (inType.getDimSize(0) != n || inType.getDimSize(1) != c ||
      inType.getDimSize(2) < oh * kh || inType.getDimSize(3) < ow * kw)
    return false;
  // The body: the combiner of the input and the accumulator only (the
  // window operand is a shape).
  Block &body = op.getRegion().front();
  if (!body.getArgument(1).use_empty())
    return false;

  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value input = op.getInputs()[0];
  // Rows and columns past the last window (floor mode) are not read.
  if (inType.getDimSize(2) != oh * kh || inType.getDimSize(3) != ow * kw) {
    SmallVector<OpFoldResult> offsets(4, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes = {
        rewriter.getIndexAttr(n), rewriter.getIndexAttr(c),
        rewriter.getIndexAttr(oh * kh), rewriter.getIndexAttr(ow * kw)};
    SmallVector<OpFoldResult> ones(4, rewriter.getIndexAttr(1));
    input = tensor::ExtractSliceOp::create(rewriter, loc, input, offsets, sizes,
                                           ones);
  }
  auto expandedType =
      RankedTensorType::get({n, c, oh, kh, ow, kw}, inType.getElementType());
  Value expanded = tensor::ExpandShapeOp::create(
      rewriter, loc, expandedType, input,
      ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}, {4, 5}});
  // Loops (n, c, oh, kh, ow, kw): the input read in its own order.
  MLIRContext *ctx = rewriter.getContext();
  AffineMap inMap = rewriter.getMultiDimIdentityMap(6);
  AffineMap outMap =
      AffineMap::get(6, 0,
                     {getAffineDimExpr(0, ctx), getAffineDimExpr(1, ctx),
                      getAffineDimExpr(2, ctx), getAffineDimExpr(4, ctx)},
                     ctx);
  using utils::IteratorType;
  SmallVector<IteratorType> iterators = {
      IteratorType::parallel,  IteratorType::parallel, IteratorType::parallel,
      IteratorType::reduction, IteratorType::parallel, IteratorType::reduction};
  auto generic = linalg::GenericOp::create(
      rewriter, loc, TypeRange{outType}, ValueRange{expanded},
      ValueRange{op.getOutputs()[0]}, ArrayRef<AffineMap>{inMap, outMap},
      iterators, [&](OpBuilder &b, Location l, ValueRange args) {
        IRMapping map;
        map.map(body.getArgument(0), args[0]);
        map.map(body.getArgument(2), args[1]);
        for (Operation &inner : body.without_terminator())
          b.clone(inner, map);
        linalg::YieldOp::create(
            b, l, map.lookup(body.getTerminator()->getOperand(0)));
      });
  rewriter.replaceOp(op, generic->getResults());

  // A tile: one (n, c) plane, or a band of its rows, or of a row's
  // windows.
  SmallVector<int64_t> sizes = {1, 1, 0, 0, 0, 0};
  int64_t band = kh * ow * kw;
  if (band <= kMaxTileElements) {
    int64_t rows = largestDivisorAtMost(oh, kMaxTileElements / band);
    sizes[2] = rows == oh ? 0 : rows;
  } else {
    sizes[2] = 1;
    int64_t cols = largestDivisorAtMost(
        ow, std::max<int64_t>(1, kMaxTileElements / (kh * kw)));
    sizes[4] = cols == ow ? 0 : cols;
  }
  // A tile the vectorizer refuses stays a scalar generic: correct, as
  // slow as before.
  (void)tileAndVectorizeWithLoops(rewriter, generic, sizes);
  return true;
}

struct AmpCpuVectorizePoolingPass
    : public amp::impl::AmpCpuVectorizePoolingBase<AmpCpuVectorizePoolingPass> {
  void runOnOperation() override {
    SmallVector<linalg::PoolingNchwMaxOp> pools;
    for (Block &block : getOperation().getBody())
      for (auto op : block.getOps<linalg::PoolingNchwMaxOp>())
        if (!op->hasAttr(kOnednnMarker))
          pools.push_back(op);
    IRRewriter rewriter(&getContext());
    for (linalg::PoolingNchwMaxOp op : pools)
      (void)vectorizePooling(rewriter, op);
  }
};

} // namespace
