//===- VectorizeReductions.cpp - vector code for innermost reductions -----===//
//
// The `amp-cpu-vectorize-reductions` pass: a `linalg.generic` that reduces
// over its innermost loop, reading each input contiguously along it
// (softmax's row max and row sum, layer_norm's mean and variance), is tiled
// to one row per step (`scf.for` over the parallel loops, upstream
// `scf::tileUsingSCF`) with the row, or a chunk of it, vectorized (upstream
// `linalg::vectorize`: transfer reads and a `vector.multi_reduction`).
// Lowered to loops instead, such a reduction stayed scalar: LLVM's loop
// vectorizer does not reorder an f32 sum (no fast-math flags), nor
// vectorize a `maximumf` reduction. The row's `vector.reduction` becomes a
// tree of vector ops with `convert-vector-to-llvm{reassociate-fp-reductions}`
// (the order PyTorch's vectorized reductions also use).
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/CPU/Passes.h"

#include "VectorizeTiles.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPCPUVECTORIZEREDUCTIONS
#include "amp/Codegen/CPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

/// Rows longer than this are reduced in chunks of the largest divisor of
/// their length that is at most this (a vector of 512 f32 is 32 zmm or 64
/// ymm registers' worth of loads, reduced as a tree).
constexpr int64_t kMaxChunk = 512;
/// Rows (or chunks) shorter than this stay scalar loops.
constexpr int64_t kMinChunk = 8;

/// The tile sizes for `op` (1 for each parallel loop, the chunk for the
/// innermost reduction loop), or nothing when it is not such a reduction.
std::optional<SmallVector<int64_t>> reductionTileSizes(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.hasDynamicShape() ||
      op.getNumReductionLoops() != 1 || op.getNumLoops() < 2 ||
      linalg::isaContractionOpInterface(op))
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned red = op.getNumLoops() - 1;
  if (iterators[red] != utils::IteratorType::reduction)
    return std::nullopt;
  // Each input is read contiguously along the row (its innermost result is
  // the reduction loop) or not at all (a value broadcast along the row).
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (!map.isProjectedPermutation())
      return std::nullopt;
    if (map.isFunctionOfDim(red) &&
        (map.getNumResults() == 0 ||
         !map.getResults().back().isFunctionOfDim(red)))
      return std::nullopt;
  }
  for (Type t : op->getResultTypes())
    if (!cast<RankedTensorType>(t).getElementType().isIntOrFloat())
      return std::nullopt;
  int64_t rowLength = op.getStaticLoopRanges()[red];
  int64_t chunk = rowLength <= kMaxChunk
                      ? rowLength
                      : largestDivisorAtMost(rowLength, kMaxChunk);
  if (chunk < kMinChunk)
    return std::nullopt;
  SmallVector<int64_t> sizes(op.getNumLoops(), 1);
  sizes[red] = chunk == rowLength ? 0 : chunk;
  return sizes;
}

struct AmpCpuVectorizeReductionsPass
    : public amp::impl::AmpCpuVectorizeReductionsBase<
          AmpCpuVectorizeReductionsPass> {
  void runOnOperation() override {
    SmallVector<std::pair<linalg::GenericOp, SmallVector<int64_t>>> work;
    // Only ops directly in the function body: those inside loops are tiles
    // of amp-cpu-tile-and-vectorize (or the user's own loops).
    for (Block &block : getOperation().getBody())
      for (auto op : block.getOps<linalg::GenericOp>())
        if (std::optional<SmallVector<int64_t>> sizes = reductionTileSizes(op))
          work.emplace_back(op, std::move(*sizes));

    IRRewriter rewriter(&getContext());
    SmallVector<Operation *> reductions;
    for (auto &[op, sizes] : work) {
      FailureOr<Block *> body = tileAndVectorizeWithLoops(rewriter, op, sizes);
      if (failed(body))
        continue;
      for (auto reduction : (*body)->getOps<vector::MultiDimReductionOp>())
        reductions.push_back(reduction);
    }

    // The row's multi_reduction becomes a vector.reduction of the row (the
    // pipeline's lower-vector-multi-reduction would transpose it and
    // reduce element by element).
    RewritePatternSet patterns(&getContext());
    vector::populateVectorMultiReductionLoweringPatterns(
        patterns, vector::VectorMultiReductionLowering::InnerReduction);
    if (failed(applyOpPatternsGreedily(reductions, std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
