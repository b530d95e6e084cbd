//===- ParallelDimsOuter.cpp - parallel loops outside reductions ----------===//
//
// The `amp-gpu-parallel-dims-outer` pass: a linalg op whose iteration space
// has a reduction dimension before a parallel one (a reduction over rows,
// such as a bias gradient: sum over the batch of dy[b, n]) becomes a
// linalg.generic with all parallel dimensions first. convert-linalg-to-
// parallel-loops then makes one scf.parallel with the reduction loop inside
// each thread, instead of a host scf.for around a kernel launch per row.
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPGPUPARALLELDIMSOUTER
#include "amp/Codegen/GPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

struct AmpGpuParallelDimsOuterPass
    : public amp::impl::AmpGpuParallelDimsOuterBase<
          AmpGpuParallelDimsOuterPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
      auto firstReduction =
          llvm::find(iterators, utils::IteratorType::reduction);
      if (firstReduction != iterators.end() &&
          llvm::is_contained(
              llvm::make_range(firstReduction, iterators.end()),
              utils::IteratorType::parallel))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
      SmallVector<unsigned> order;
      for (auto kind :
           {utils::IteratorType::parallel, utils::IteratorType::reduction})
        for (auto [i, it] : llvm::enumerate(iterators))
          if (it == kind)
            order.push_back(i);
      rewriter.setInsertionPoint(op);
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (!generic) {
        FailureOr<linalg::GenericOp> g = linalg::generalizeNamedOp(rewriter, op);
        if (failed(g))
          continue; // no region builder: leave it
        generic = *g;
      }
      if (failed(linalg::interchangeGenericOp(rewriter, generic, order))) {
        generic.emitError("amp-gpu-parallel-dims-outer: interchange failed");
        return signalPassFailure();
      }
    }
  }
};

} // namespace
