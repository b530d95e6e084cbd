//===- NarrowSoftmaxReaders.cpp - softmax readers take the rounded copy ---===//
//
// The `amp-narrow-softmax-readers` pass: where one linalg.generic yields an
// f32 softmax and its bf16/f16 rounding, the other generics that read the
// f32 softmax read the rounding instead, extended in their bodies; the f32
// result goes (Passes.td has the why and the conditions).
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/Common/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPNARROWSOFTMAXREADERS
#include "amp/Codegen/Common/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

/// The generic that produces the input of `op` whose block argument is
/// `value`, or null.
linalg::GenericOp inputProducer(linalg::GenericOp op, Value value) {
  auto arg = dyn_cast<BlockArgument>(value);
  if (!arg || arg.getOwner() != op.getBody())
    return nullptr;
  OpOperand *operand = op.getMatchingOpOperand(arg);
  if (!op.isDpsInput(operand))
    return nullptr;
  return operand->get().getDefiningOp<linalg::GenericOp>();
}

bool computesExp(linalg::GenericOp op) {
  return llvm::any_of(op.getBody()->getOperations(),
                      [](Operation &inner) { return isa<math::ExpOp>(inner); });
}

/// Whether `value`, yielded by `op`, is a softmax: `a / b` (or `select(c,
/// x, a / b)`, a safe softmax), `a` from a generic computing exp, `b` from a
/// reduction over that generic's result.
bool isSoftmax(linalg::GenericOp op, Value value) {
  if (auto select = value.getDefiningOp<arith::SelectOp>()) {
    if (select.getTrueValue().getDefiningOp<arith::DivFOp>())
      value = select.getTrueValue();
    else
      value = select.getFalseValue();
  }
  auto div = value.getDefiningOp<arith::DivFOp>();
  if (!div)
    return false;
  linalg::GenericOp exp = inputProducer(op, div.getLhs());
  linalg::GenericOp sum = inputProducer(op, div.getRhs());
  if (!exp || !sum || !computesExp(exp) || sum.getNumReductionLoops() == 0)
    return false;
  return llvm::any_of(sum.getDpsInputs(), [&](Value input) {
    return input.getDefiningOp() == exp.getOperation();
  });
}

struct AmpNarrowSoftmaxReadersPass
    : public amp::impl::AmpNarrowSoftmaxReadersBase<
          AmpNarrowSoftmaxReadersPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::GenericOp> changed;
    getOperation().walk([&](linalg::GenericOp op) {
      if (!op.hasPureTensorSemantics() ||
          op.getNumParallelLoops() != op.getNumLoops())
        return;
      auto yield = cast<linalg::YieldOp>(op.getBody()->getTerminator());
      for (OpOperand &rounded : yield->getOpOperands()) {
        auto trunc = rounded.get().getDefiningOp<arith::TruncFOp>();
        if (!trunc || !trunc.getIn().getType().isF32())
          continue;
        Value wide = trunc.getIn();
        auto wideIt = llvm::find(yield->getOperands(), wide);
        if (wideIt == yield->getOperands().end() || !isSoftmax(op, wide))
          continue;
        Value wideResult =
            op->getResult(std::distance(yield->operand_begin(), wideIt));
        Value narrowResult = op->getResult(rounded.getOperandNumber());
        Type narrowType = trunc.getType();
        for (OpOperand &use :
             llvm::make_early_inc_range(wideResult.getUses())) {
          auto reader = dyn_cast<linalg::GenericOp>(use.getOwner());
          if (!reader || reader == op || !reader.isDpsInput(&use))
            continue;
          BlockArgument arg = reader.getMatchingBlockArgument(&use);
          use.set(narrowResult);
          arg.setType(narrowType);
          OpBuilder builder = OpBuilder::atBlockBegin(reader.getBody());
          Value extended =
              arith::ExtFOp::create(builder, arg.getLoc(), wide.getType(), arg);
          arg.replaceAllUsesExcept(extended, extended.getDefiningOp());
        }
        changed.push_back(op);
      }
    });
    if (changed.empty())
      return;
    // The f32 results nothing reads any more go (upstream's dead-result
    // removal of linalg.generic).
    RewritePatternSet patterns(&getContext());
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    SmallVector<Operation *> ops(changed.begin(), changed.end());
    (void)applyOpPatternsGreedily(ops, std::move(patterns));
  }
};

} // namespace
