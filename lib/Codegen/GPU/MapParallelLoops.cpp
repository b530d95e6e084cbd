//===- MapParallelLoops.cpp - scf.parallel to GPU blocks and threads ------===//
//
// The `amp-gpu-map-parallel-loops` pass prepares the host code's
// `scf.parallel` loops (from convert-linalg-to-parallel-loops) for
// convert-parallel-loops-to-gpu, with the innermost dimensions on the
// threads: the last dimension is tiled by 32 onto threadIdx.x and the one
// before by 8 onto threadIdx.y (a one-dimensional loop: by 256 onto
// threadIdx.x), so that neighbouring threads of a warp
// touch neighbouring elements of row-major buffers (coalesced loads). The
// tiles of the last three dimensions go to blockIdx.x/y/z; outer dimensions
// loop inside each thread. CUDA allows 2^31 - 1 blocks in x but only 65535
// in y and z: a dimension whose static block count exceeds 65535 trades
// places with one that fits (the block order does not change what a thread
// touches), and a loop that fits no way is an error. Upstream's
// scf-parallel-loop-tiling +
// gpu-map-parallel-loops tile the leading dimensions and put the outermost
// one on threadIdx.x instead.
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPGPUMAPPARALLELLOOPS
#include "amp/Codegen/GPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

constexpr int64_t kThreadsX = 32;
constexpr int64_t kThreadsY = 8;
/// A one-dimensional loop gets the same 256 threads per block on x alone:
/// 32-thread blocks would cap an SM at half its threads (32 resident
/// blocks), too few to hide memory latency in elementwise kernels.
constexpr int64_t kThreads1D = kThreadsX * kThreadsY;
/// CUDA's limits on gridDim.y and gridDim.z (gridDim.x: 2^31 - 1).
constexpr int64_t kMaxBlocksYZ = 65535;
constexpr int64_t kMaxBlocksX = (int64_t(1) << 31) - 1;

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

/// Reorders `processors` (block processors of the last dimensions of
/// `loop`, counted from the last one) so that no dimension with a static
/// block count above 65535 is on blockIdx.y or z: it trades places with
/// the dimension on blockIdx.x when that one fits. Fails, with an error on
/// `loop`, when no order fits. Dynamic extents are not known here; a launch
/// beyond the limits fails at run time with the CUDA error.
LogicalResult fitGridLimits(scf::ParallelOp loop,
                            ArrayRef<std::optional<int64_t>> blocks,
                            SmallVectorImpl<gpu::Processor> &processors) {
  unsigned rank = blocks.size();
  auto blocksOf = [&](unsigned fromLast) { return blocks[rank - 1 - fromLast]; };
  auto tooManyForYZ = [&](unsigned fromLast) {
    std::optional<int64_t> b = blocksOf(fromLast);
    return b && *b > kMaxBlocksYZ;
  };
  for (unsigned d = 1; d < processors.size(); ++d) {
    if (!tooManyForYZ(d))
      continue;
    // The dimension now on blockIdx.x.
    unsigned x = llvm::find(processors, gpu::Processor::BlockX) -
                 processors.begin();
    if (x != d && !tooManyForYZ(x))
      std::swap(processors[d], processors[x]);
  }
  for (unsigned d = 0; d < processors.size(); ++d) {
    std::optional<int64_t> b = blocksOf(d);
    int64_t limit =
        processors[d] == gpu::Processor::BlockX ? kMaxBlocksX : kMaxBlocksYZ;
    if (b && *b > limit)
      return loop.emitError()
             << "amp-gpu-map-parallel-loops: " << *b
             << " blocks in dimension " << rank - 1 - d
             << " exceed CUDA's grid limits (65535 blocks in y and z, "
                "2^31 - 1 in x), and no other dimension can take its place";
  }
  return success();
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
      tiles[rank - 1] = rank == 1 ? kThreads1D : kThreadsX;
      if (rank >= 2)
        tiles[rank - 2] = kThreadsY;
      // Where the extent is static: no more threads than iterations, and
      // the number of blocks.
      SmallVector<std::optional<int64_t>> blocks(rank);
      for (unsigned i = 0; i < rank; ++i) {
        std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()[i]);
        std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound()[i]);
        std::optional<int64_t> step = getConstantIntValue(loop.getStep()[i]);
        if (!lb || !ub || !step || *step <= 0)
          continue;
        int64_t iterations =
            std::max<int64_t>(0, (*ub - *lb + *step - 1) / *step);
        if (iterations > 0)
          tiles[i] = std::min(tiles[i], iterations);
        blocks[i] = (iterations + tiles[i] - 1) / tiles[i];
      }
      using P = gpu::Processor;
      SmallVector<P> blockProcessors = {P::BlockX, P::BlockY, P::BlockZ};
      blockProcessors.resize(std::min<unsigned>(rank, 3));
      if (failed(fitGridLimits(loop, blocks, blockProcessors)))
        return signalPassFailure();
      // Constant inner bounds (a guard inside instead of min()), so that
      // the thread dimensions have static sizes.
      auto [outer, inner] =
          scf::tileParallelLoop(loop, tiles, /*noMinMaxBounds=*/true);
      if (failed(gpu::setMappingAttr(outer,
                                     mapping(ctx, rank, blockProcessors))) ||
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
