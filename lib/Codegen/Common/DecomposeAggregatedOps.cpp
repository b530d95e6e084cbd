//===- DecomposeAggregatedOps.cpp - linalg.softmax to generics ------------===//
//
// The `amp-decompose-aggregated-ops` pass: ops implementing
// linalg::AggregatedOpInterface are replaced by their decomposition.
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/Common/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPDECOMPOSEAGGREGATEDOPS
#include "amp/Codegen/Common/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

namespace {

struct AmpDecomposeAggregatedOpsPass
    : public amp::impl::AmpDecomposeAggregatedOpsBase<
          AmpDecomposeAggregatedOpsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::AggregatedOpInterface> ops;
    getOperation().walk(
        [&](linalg::AggregatedOpInterface op) { ops.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::AggregatedOpInterface op : ops) {
      auto dps = dyn_cast<DestinationStyleOpInterface>(op.getOperation());
      if (dps && !dps.hasPureTensorSemantics()) {
        op->emitError("amp-decompose-aggregated-ops: only ops on tensors can "
                      "be decomposed; this one has buffer operands");
        return signalPassFailure();
      }
      rewriter.setInsertionPoint(op);
      FailureOr<SmallVector<Value>> repl = op.decomposeOperation(rewriter);
      if (failed(repl)) {
        op->emitError("amp-decompose-aggregated-ops: cannot decompose this op");
        return signalPassFailure();
      }
      rewriter.replaceOp(op, *repl);
    }
  }
};

} // namespace
