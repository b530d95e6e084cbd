//===- CpuTileAndVectorize.cpp - CPU code generation for contractions -----===//
//
// The `amp-cpu-tile-and-vectorize` pass: 2-D convolutions become im2col +
// contraction, every statically shaped contraction is tiled for the caches
// and for the registers, and the register tile is vectorized into a
// `vector.contract`. Everything is done with upstream linalg/SCF/vector
// utilities; this file only chooses what to apply and the tile sizes.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/TypeSwitch.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPCPUTILEANDVECTORIZE
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

namespace {

/// Default tile sizes for the innermost (m, n, k) dimensions, the best of a
/// sweep on an AVX2 machine (bench/gemm.py): a 6x16 f32 accumulator (12 of
/// the 16 AVX2 registers, leaving two for the B row and one for the A
/// broadcast: 8x16 spills), k unrolled by 8; the cache tile keeps a 256x128
/// B panel (128 KiB f32) in L2.
constexpr int64_t kDefaultCacheTile[3] = {128, 128, 256};
constexpr int64_t kDefaultRegisterTile[3] = {6, 16, 8};

/// Contractions below this many flops (2 * iteration-space size) run on
/// one thread even with `parallel`: starting a parallel region costs
/// microseconds to tens of microseconds, more than such a contraction takes (the
/// small convolutions of mobilenet_v2 ran 2x slower threaded).
constexpr int64_t kMinParallelFlops = int64_t(1) << 25;

/// Marks the register tiles between tiling and vectorization (peeling and
/// canonicalization clone and rebuild them).
constexpr StringLiteral kRegisterTileMarker = "__amp_register_tile__";

/// The largest divisor of `size` that is at most `target` (>= 1), so tiles
/// are full and their shapes static.
int64_t largestDivisorAtMost(int64_t size, int64_t target) {
  target = std::max<int64_t>(1, std::min(size, target));
  for (int64_t d = target; d > 1; --d)
    if (size % d == 0)
      return d;
  return 1;
}

/// Tile sizes for `op`: `mnk` (reduced to divisors) for the innermost m, n
/// and k dimensions, 1 for the batch and the outer m/n/k dimensions (a
/// contraction has no other dimensions).
SmallVector<int64_t> contractionTileSizes(linalg::LinalgOp op,
                                          const linalg::ContractionDimensions &dims,
                                          ArrayRef<int64_t> mnk) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<int64_t> sizes(ranges.size(), 1);
  auto setInnermost = [&](ArrayRef<unsigned> group, int64_t target) {
    if (group.empty())
      return;
    unsigned d = group.back();
    sizes[d] = largestDivisorAtMost(ranges[d], target);
  };
  setInnermost(dims.m, mnk[0]);
  setInnermost(dims.n, mnk[1]);
  setInnermost(dims.k, mnk[2]);
  return sizes;
}

/// Tiles `op` with `sizes` (0: not tiled) into loops of `loopType`; returns
/// the tiled op, and the loops (outermost first) in `loops` when given.
FailureOr<TilingInterface>
tile(RewriterBase &rewriter, TilingInterface op, ArrayRef<int64_t> sizes,
     scf::SCFTilingOptions::LoopType loopType =
         scf::SCFTilingOptions::LoopType::ForOp,
     SmallVectorImpl<LoopLikeOpInterface> *loops = nullptr) {
  SmallVector<OpFoldResult> ofr = llvm::map_to_vector(
      sizes, [&](int64_t s) -> OpFoldResult { return rewriter.getIndexAttr(s); });
  scf::SCFTilingOptions options;
  options.setTileSizes(ofr).setLoopType(loopType);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> result =
      scf::tileUsingSCF(rewriter, op, options);
  if (failed(result) || result->tiledOps.size() != 1)
    return failure();
  rewriter.replaceOp(op, result->replacements);
  if (loops)
    loops->assign(result->loops.begin(), result->loops.end());
  return cast<TilingInterface>(result->tiledOps.front());
}

struct AmpCpuTileAndVectorizePass
    : public amp::impl::AmpCpuTileAndVectorizeBase<AmpCpuTileAndVectorizePass> {
  using Base::Base;

  /// The canonicalization patterns of every loaded dialect and registered
  /// op, as the canonicalize pass collects them; built once per pass
  /// instance, used to fold peeled loop bounds into tile shapes.
  FrozenRewritePatternSet canonicalization;

  LogicalResult initialize(MLIRContext *ctx) override {
    RewritePatternSet patterns(ctx);
    for (Dialect *dialect : ctx->getLoadedDialects())
      dialect->getCanonicalizationPatterns(patterns);
    for (RegisteredOperationName op : ctx->getRegisteredOperations())
      op.getCanonicalizationPatterns(patterns, ctx);
    canonicalization = FrozenRewritePatternSet(std::move(patterns));
    return success();
  }

  LogicalResult readTile(const ListOption<int64_t> &option, const int64_t (&defaults)[3],
                         SmallVectorImpl<int64_t> &out, StringRef name) {
    if (option.empty()) {
      out.assign(std::begin(defaults), std::end(defaults));
      return success();
    }
    if (option.size() != 3 || llvm::any_of(option, [](int64_t v) { return v < 1; }))
      return emitError(getOperation().getLoc())
             << "amp-cpu-tile-and-vectorize: '" << name
             << "' takes three positive sizes (m, n, k)";
    out.assign(option.begin(), option.end());
    return success();
  }

  /// Tiles the contraction `op` for the caches (an scf.forall over its
  /// parallel dimensions when `parallel` and it is large enough) and for the
  /// registers, peels partial register tiles, and marks the register tiles
  /// for vectorization.
  void tileContraction(RewriterBase &rewriter, linalg::LinalgOp op,
                       ArrayRef<int64_t> cache, ArrayRef<int64_t> reg) {
    FailureOr<linalg::ContractionDimensions> dims =
        linalg::inferContractionDims(op);
    if (failed(dims))
      return;
    SmallVector<int64_t> outer = contractionTileSizes(op, *dims, cache);
    // Register tiles have the requested sizes (at most the cache tile's);
    // where they do not divide the cache tile, the loop is peeled below, so
    // every tile still has a static shape.
    SmallVector<int64_t> inner(outer.size(), 1);
    auto setInnermost = [&](ArrayRef<unsigned> group, int64_t target) {
      if (!group.empty())
        inner[group.back()] = std::min(outer[group.back()], target);
    };
    setInnermost(dims->m, reg[0]);
    setInnermost(dims->n, reg[1]);
    setInnermost(dims->k, reg[2]);
    // `op` is replaced by the first tiling: keep what is needed of it.
    Location loc = op.getLoc();
    FailureOr<TilingInterface> tiled =
        cast<TilingInterface>(op.getOperation());
    double flops = 2;
    for (int64_t r : op.getStaticLoopRanges())
      flops *= static_cast<double>(r);
    if (parallel && flops >= static_cast<double>(kMinParallelFlops)) {
      // The cache tiles of the parallel dimensions become an scf.forall
      // (one task per tile); the k dimensions, a reduction, stay a
      // sequential loop inside each task.
      SmallVector<int64_t> parallelPart = outer, reductionPart(outer.size(), 0);
      for (unsigned d : dims->k) {
        parallelPart[d] = 0;
        reductionPart[d] = outer[d];
      }
      tiled = tile(rewriter, *tiled, parallelPart,
                   scf::SCFTilingOptions::LoopType::ForallOp);
      if (succeeded(tiled))
        tiled = tile(rewriter, *tiled, reductionPart);
    } else {
      tiled = tile(rewriter, *tiled, outer);
    }
    SmallVector<LoopLikeOpInterface> registerLoops;
    if (succeeded(tiled))
      tiled = tile(rewriter, *tiled, inner,
                   scf::SCFTilingOptions::LoopType::ForOp, &registerLoops);
    if (failed(tiled)) {
      emitWarning(loc, "amp-cpu-tile-and-vectorize: could not tile this "
                       "contraction; it is lowered to scalar loops");
      return;
    }
    tiled->getOperation()->setAttr(kRegisterTileMarker, rewriter.getUnitAttr());
    // Peel the partial last iteration of each register loop, innermost
    // first, so that the peeled copies of outer loops contain the already
    // peeled inner ones: every tile then has a static shape.
    for (LoopLikeOpInterface loop : llvm::reverse(registerLoops)) {
      scf::ForOp partial;
      if (auto forOp = dyn_cast<scf::ForOp>(loop.getOperation()))
        (void)scf::peelForLoopAndSimplifyBounds(rewriter, forOp, partial);
    }
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();
    SmallVector<int64_t> cache, reg;
    if (failed(readTile(cacheTile, kDefaultCacheTile, cache, "cache-tile")) ||
        failed(readTile(registerTile, kDefaultRegisterTile, reg, "register-tile")))
      return signalPassFailure();

    // 1. Convolutions to im2col + contraction. Not the depthwise NHWC one:
    // upstream's rewrite of linalg.depthwise_conv_2d_nhwc_hwc (in
    // populateConvertConv2DToImg2ColPatterns) indexes the filter with the
    // combined batch*channel index, which reads out of bounds for a batch
    // above 1 (MLIR 22.1); depthwise convolutions stay loops.
    IRRewriter rewriter(ctx);
    SmallVector<Operation *> convs;
    func.walk([&](Operation *op) {
      if (isa<linalg::Conv2DNhwcHwcfOp, linalg::Conv2DNhwcFhwcOp,
              linalg::Conv2DNchwFchwOp>(op))
        convs.push_back(op);
    });
    for (Operation *conv : convs) {
      rewriter.setInsertionPoint(conv);
      // A convolution the rewrite does not take (dynamic shapes, ...) stays
      // as it is and becomes loops.
      (void)TypeSwitch<Operation *, LogicalResult>(conv)
          .Case<linalg::Conv2DNhwcHwcfOp, linalg::Conv2DNhwcFhwcOp,
                linalg::Conv2DNchwFchwOp>([&](auto op) {
            return linalg::rewriteInIm2Col(rewriter, op);
          });
    }

    // 2. Tile every static contraction twice and vectorize the register tile.
    SmallVector<linalg::LinalgOp> contractions;
    func.walk([&](linalg::LinalgOp op) {
      // Empty iteration spaces have nothing to tile (and tiling a zero-size
      // reduction crashes upstream tiling).
      if (op.hasPureTensorSemantics() && !op.hasDynamicShape() &&
          op->getNumResults() == 1 && linalg::isaContractionOpInterface(op) &&
          !llvm::is_contained(op.getStaticLoopRanges(), 0))
        contractions.push_back(op);
    });
    for (linalg::LinalgOp op : contractions)
      tileContraction(rewriter, op, cache, reg);

    // 3. Fold the peeled loops' bounds into the tiles' shapes, then
    // vectorize every register tile.
    if (failed(applyPatternsGreedily(func, canonicalization)))
      return signalPassFailure();
    SmallVector<linalg::LinalgOp> registerTiles;
    func.walk([&](linalg::LinalgOp op) {
      if (op->removeAttr(kRegisterTileMarker))
        registerTiles.push_back(op);
    });
    for (linalg::LinalgOp tileOp : registerTiles) {
      rewriter.setInsertionPoint(tileOp);
      FailureOr<linalg::VectorizationResult> vec = failure();
      if (!tileOp.hasDynamicShape())
        vec = linalg::vectorize(rewriter, tileOp);
      if (failed(vec)) {
        tileOp->emitWarning("amp-cpu-tile-and-vectorize: could not vectorize "
                            "this tile; it is lowered to scalar loops");
        continue;
      }
      rewriter.replaceOp(tileOp, vec->replacements);
    }

    // 4. Clean up: fold the tiles' slices into the transfers, turn permuted
    // and broadcasting transfers into plain ones folded into the
    // vector.contract's indexing maps, canonicalize.
    RewritePatternSet patterns(ctx);
    linalg::populateLinalgTilingCanonicalizationPatterns(patterns);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::populateVectorReductionToContractPatterns(patterns);
    vector::populateSinkVectorOpsPatterns(patterns);
    tensor::populateFoldTensorSubsetIntoVectorTransferPatterns(patterns);
    vector::TransferReadOp::getCanonicalizationPatterns(patterns, ctx);
    vector::TransferWriteOp::getCanonicalizationPatterns(patterns, ctx);
    if (failed(applyPatternsGreedily(func, std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
