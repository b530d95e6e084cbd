//===- GpuMapParallelLoops.cpp - scf.parallel to GPU blocks and threads ---===//
//
// The `amp-gpu-map-parallel-loops` pass prepares the host code's
// `scf.parallel` loops (from convert-linalg-to-parallel-loops) for
// convert-parallel-loops-to-gpu, with the innermost dimensions on the
// threads: the last dimension is tiled by 32 onto threadIdx.x and the one
// before by 8 onto threadIdx.y, so that neighbouring threads of a warp
// touch neighbouring elements of row-major buffers (coalesced loads). The
// tiles of the last three dimensions go to blockIdx.x/y/z; outer dimensions
// loop inside each thread. Upstream's scf-parallel-loop-tiling +
// gpu-map-parallel-loops tile the leading dimensions and put the outermost
// one on threadIdx.x instead.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPGPUMAPPARALLELLOOPS
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

constexpr int64_t kThreadsX = 32;
constexpr int64_t kThreadsY = 8;

/// `processors[i]` for dimension i counted from the last one.
SmallVector<gpu::ParallelLoopDimMappingAttr>
mapping(MLIRContext *ctx, unsigned rank, ArrayRef<gpu::Processor> fromLast) {
  AffineMap id = AffineMap::getMultiDimIdentityMap(1, ctx);
  SmallVector<gpu::ParallelLoopDimMappingAttr> attrs;
  for (unsigned i = 0; i < rank; ++i) {
    unsigned fromEnd = rank - 1 - i;
    gpu::Processor p = fromEnd < fromLast.size() ? fromLast[fromEnd]
                                                 : gpu::Processor::Sequential;
    attrs.push_back(gpu::ParallelLoopDimMappingAttr::get(ctx, p, id, id));
  }
  return attrs;
}

struct AmpGpuMapParallelLoopsPass
    : public amp::impl::AmpGpuMapParallelLoopsBase<AmpGpuMapParallelLoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    SmallVector<scf::ParallelOp> loops;
    getOperation().walk([&](scf::ParallelOp loop) {
      // Outermost loops of host code only; nested ones run in a thread.
      if (!loop->getParentOfType<scf::ParallelOp>() &&
          !loop->getParentOfType<gpu::LaunchOp>())
        loops.push_back(loop);
    });
    for (scf::ParallelOp loop : loops) {
      unsigned rank = loop.getNumLoops();
      SmallVector<int64_t> tiles(rank, 1);
      tiles[rank - 1] = kThreadsX;
      if (rank >= 2)
        tiles[rank - 2] = kThreadsY;
      // No more threads than iterations in a dimension of known extent.
      for (unsigned i = 0; i < rank; ++i) {
        std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()[i]);
        std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound()[i]);
        std::optional<int64_t> step = getConstantIntValue(loop.getStep()[i]);
        if (lb && ub && step && *step > 0 && *ub > *lb)
          tiles[i] = std::min(tiles[i], (*ub - *lb + *step - 1) / *step);
      }
      // Constant inner bounds (a guard inside instead of min()), so that
      // the thread dimensions have static sizes.
      auto [outer, inner] =
          scf::tileParallelLoop(loop, tiles, /*noMinMaxBounds=*/true);
      using P = gpu::Processor;
      if (failed(gpu::setMappingAttr(
              outer, mapping(ctx, rank, {P::BlockX, P::BlockY, P::BlockZ}))) ||
          failed(gpu::setMappingAttr(
              inner, mapping(ctx, rank, {P::ThreadX, P::ThreadY})))) {
        outer.emitError("amp-gpu-map-parallel-loops: invalid mapping");
        return signalPassFailure();
      }
      // Loops nested in the tiles run inside a thread.
      inner.getBody()->walk([&](scf::ParallelOp nested) {
        (void)gpu::setMappingAttr(
            nested, mapping(ctx, nested.getNumLoops(), {}));
      });
    }
  }
};

} // namespace
