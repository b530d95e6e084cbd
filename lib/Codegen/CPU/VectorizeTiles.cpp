//===- VectorizeTiles.cpp - loop tiles as vector code ---------------------===//

#include "VectorizeTiles.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"

using namespace mlir;

int64_t mlir::amp::largestDivisorAtMost(int64_t size, int64_t target) {
  for (int64_t d = std::min(size, target); d > 1; --d)
    if (size % d == 0)
      return d;
  return 1;
}

FailureOr<Block *> mlir::amp::tileAndVectorizeWithLoops(
    RewriterBase &rewriter, linalg::LinalgOp op, ArrayRef<int64_t> tileSizes) {
  scf::SCFTilingOptions options;
  options.setTileSizes(getAsIndexOpFoldResult(rewriter.getContext(), tileSizes))
      .setLoopType(scf::SCFTilingOptions::LoopType::ForOp);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(op.getOperation()), options);
  if (failed(tiled) || tiled->tiledOps.size() != 1)
    return failure();
  auto tile = cast<linalg::LinalgOp>(tiled->tiledOps.front());
  rewriter.replaceOp(op, tiled->replacements);

  // The tile as a generic without its unit loops, so that it vectorizes to
  // vectors of the tile's non-unit dimensions only.
  rewriter.setInsertionPoint(tile);
  auto generic = dyn_cast<linalg::GenericOp>(tile.getOperation());
  if (!generic) {
    FailureOr<linalg::GenericOp> generalized =
        linalg::generalizeNamedOp(rewriter, tile);
    if (failed(generalized))
      return failure();
    generic = *generalized;
  }
  tile = generic;
  linalg::ControlDropUnitDims control;
  control.rankReductionStrategy =
      linalg::ControlDropUnitDims::RankReductionStrategy::ExtractInsertSlice;
  rewriter.setInsertionPoint(tile);
  FailureOr<linalg::DropUnitDimsResult> dropped =
      linalg::dropUnitDims(rewriter, generic, control);
  if (succeeded(dropped)) {
    rewriter.replaceOp(generic, dropped->replacements);
    tile = cast<linalg::LinalgOp>(dropped->resultOp.getOperation());
  }

  rewriter.setInsertionPoint(tile);
  if (failed(linalg::vectorizeOpPrecondition(tile)))
    return failure();
  Block *body = tile->getBlock();
  FailureOr<linalg::VectorizationResult> vec =
      linalg::vectorize(rewriter, tile);
  if (failed(vec))
    return failure();
  rewriter.replaceOp(tile, vec->replacements);
  return body;
}
