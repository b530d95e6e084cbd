//===- CollapseElementwise.cpp - elementwise ops as one 1-D loop ----------===//
//
// The `amp-cpu-collapse-elementwise` pass (on buffers, before
// convert-linalg-to-loops): an elementwise linalg.generic (all loops
// parallel, every operand indexed by the identity map) over memrefs that
// collapse to one dimension runs over 1-D views of them (upstream
// linalg::collapseOpIterationDims), so that LLVM's loop vectorizer sees one
// long loop instead of a nest whose innermost loop may be 3 long (the
// f32 -> bf16 casts of 3x3 convolution weights under autocast).
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPCPUCOLLAPSEELEMENTWISE
#include "amp/Codegen/CPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

namespace {

/// Whether `op` is elementwise over buffers that all collapse to one
/// dimension along `all`.
bool isCollapsible(linalg::GenericOp op, ReassociationIndices &all) {
  if (!op.hasPureBufferSemantics() || op.getNumLoops() < 2 ||
      op.getNumReductionLoops() != 0 || op.hasIndexSemantics())
    return false;
  all.clear();
  for (unsigned i = 0; i < op.getNumLoops(); ++i)
    all.push_back(i);
  for (OpOperand &operand : op->getOpOperands()) {
    if (!op.getMatchingIndexingMap(&operand).isIdentity())
      return false;
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type || type.getRank() != op.getNumLoops() ||
        !memref::CollapseShapeOp::isGuaranteedCollapsible(type, {all}))
      return false;
  }
  return true;
}

struct AmpCpuCollapseElementwisePass
    : public amp::impl::AmpCpuCollapseElementwiseBase<
          AmpCpuCollapseElementwisePass> {
  void runOnOperation() override {
    SmallVector<linalg::GenericOp> ops;
    getOperation().walk([&](linalg::GenericOp op) { ops.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp op : ops) {
      ReassociationIndices all;
      if (!isCollapsible(op, all))
        continue;
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::CollapseResult> collapsed =
          linalg::collapseOpIterationDims(op, {all}, rewriter);
      if (failed(collapsed))
        continue;
      // On buffers the op has no results to replace.
      rewriter.eraseOp(op);
    }
  }
};

} // namespace
