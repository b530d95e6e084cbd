//===- MpiWorldCommunicator.cpp - amp-mpi-world-communicator --------------===//
//
// Collectives of a world-spanning 1-D grid use MPI_COMM_WORLD: the
// `mpi.comm_split(comm_world, 0, key)` that convert-shard-to-mpi puts before
// every collective is replaced by the world communicator; the dead set-up
// and the grids nothing refers to any more are removed.
//
//===----------------------------------------------------------------------===//

#include "amp/Distributed/Passes.h"

#include "mlir/Dialect/Shard/IR/ShardOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPMPIWORLDCOMMUNICATOR
#include "amp/Distributed/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

struct AmpMpiWorldCommunicator
    : public amp::impl::AmpMpiWorldCommunicatorBase<AmpMpiWorldCommunicator> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<mpi::CommSplitOp> splits;
    module.walk([&](mpi::CommSplitOp op) { splits.push_back(op); });
    llvm::SetVector<Region *> changed;
    for (mpi::CommSplitOp split : splits) {
      // Only the split of the world into one group (color 0 everywhere):
      // with the grid as large as the world, the key is the rank itself.
      if (!split.getComm().getDefiningOp<mpi::CommWorldOp>() ||
          !matchPattern(split.getColor(), m_Zero()))
        continue;
      if (split.getRetval() && !split.getRetval().use_empty())
        continue; // someone checks the split's return value
      split.getNewcomm().replaceAllUsesWith(split.getComm());
      changed.insert(split->getParentRegion());
      split.erase();
    }
    // The rank and key computations that fed the splits.
    IRRewriter rewriter(&getContext());
    for (Region *region : changed)
      (void)runRegionDCE(rewriter, *region);

    // Grids without users (convert-shard-to-mpi leaves them).
    SmallVector<shard::GridOp> grids;
    for (auto grid : module.getOps<shard::GridOp>())
      if (SymbolTable::symbolKnownUseEmpty(grid, module))
        grids.push_back(grid);
    for (shard::GridOp grid : grids)
      grid.erase();
  }
};

} // namespace
