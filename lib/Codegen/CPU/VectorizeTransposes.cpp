//===- VectorizeTransposes.cpp - vector code for transposing copies -------===//
//
// The `amp-cpu-vectorize-transposes` pass: a `linalg.transpose` that moves
// the innermost dimension (attention's K^T, a weight's W^T before a matmul)
// is tiled into square blocks of the two dimensions that are innermost in
// the input and in the output (`scf.for` loops, upstream
// `scf::tileUsingSCF`; tile size 1 for the others) and each block
// vectorized (upstream `linalg::vectorize`: a transfer read of the input
// block, a `vector.transpose`, a transfer write). Lowered to loops instead,
// each element was a scalar load at the input's outer stride (one cache
// line per element).
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/CPU/Passes.h"

#include "VectorizeTiles.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPCPUVECTORIZETRANSPOSES
#include "amp/Codegen/CPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

/// The tile sizes of `op`'s (output) loops, or nothing when it keeps its
/// innermost dimension or the blocks would be narrower than 4.
std::optional<SmallVector<int64_t>> transposeTileSizes(linalg::TransposeOp op,
                                                       int64_t block) {
  auto type = dyn_cast<RankedTensorType>(op.getInit().getType());
  if (!type || !type.hasStaticShape() || !op.hasPureTensorSemantics() ||
      !type.getElementType().isIntOrFloat() ||
      type.getElementTypeBitWidth() < 8)
    return std::nullopt;
  ArrayRef<int64_t> perm = op.getPermutation();
  int64_t rank = perm.size();
  if (rank < 2 || perm.back() == rank - 1)
    return std::nullopt;
  // Output dimension `inner` is the input's innermost one; `last` is the
  // output's innermost.
  int64_t inner = llvm::find(perm, rank - 1) - perm.begin();
  int64_t last = rank - 1;
  SmallVector<int64_t> sizes(rank, 1);
  sizes[inner] = largestDivisorAtMost(type.getDimSize(inner), block);
  sizes[last] = largestDivisorAtMost(type.getDimSize(last), block);
  if (sizes[inner] < 4 || sizes[last] < 4)
    return std::nullopt;
  return sizes;
}

struct AmpCpuVectorizeTransposesPass
    : public amp::impl::AmpCpuVectorizeTransposesBase<
          AmpCpuVectorizeTransposesPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<std::pair<linalg::TransposeOp, SmallVector<int64_t>>> work;
    for (Block &block : getOperation().getBody())
      for (auto op : block.getOps<linalg::TransposeOp>())
        if (std::optional<SmallVector<int64_t>> sizes =
                transposeTileSizes(op, blockSize))
          work.emplace_back(op, std::move(*sizes));

    IRRewriter rewriter(&getContext());
    SmallVector<Operation *> reads;
    for (auto &[op, sizes] : work) {
      FailureOr<Block *> body = tileAndVectorizeWithLoops(rewriter, op, sizes);
      if (failed(body))
        continue;
      for (auto read : (*body)->getOps<vector::TransferReadOp>())
        reads.push_back(read);
    }

    // The block's permuted read becomes a plain read of its rows and a
    // vector.transpose (the pipeline's transfer lowering would read it
    // element by element, column by column).
    RewritePatternSet patterns(&getContext());
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    if (failed(applyOpPatternsGreedily(reads, std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
