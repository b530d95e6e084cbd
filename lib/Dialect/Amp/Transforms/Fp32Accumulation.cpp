//===- Fp32Accumulation.cpp - f32 accumulators for f16/bf16 ---------------===//
//
// The `amp-fp32-accumulation` pass: every contraction and sum-like reduction
// with f16/bf16 results is rewritten to accumulate in f32 and round once to
// its result type, the way tensor cores and cuBLAS (CUBLAS_COMPUTE_32F) and
// PyTorch's reduction kernels (opmath) do. Result types do not change; an
// amp.cast after the op rounds the f32 accumulator.
//
//===----------------------------------------------------------------------===//

#include "Retype.h"

#include "amp/Dialect/Amp/IR/Amp.h"
#include "amp/Dialect/Amp/Policy/CastPolicy.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"
#include "amp/Support/Statistics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPFP32ACCUMULATION
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

/// An f16/bf16 scalar or ranked tensor (what amp.cast can widen).
bool isLowFloat(Type type) {
  return isAutocastFloat(type) &&
         isa<Float16Type, BFloat16Type>(getElementTypeOrSelf(type));
}

/// True when the payload combines the accumulator of `init` by addition,
/// subtraction or multiplication (a sum-like reduction or a contraction).
bool accumulatesSumLike(linalg::LinalgOp op, OpOperand &init) {
  BlockArgument acc = op.getMatchingBlockArgument(&init);
  if (!acc)
    return false;
  return llvm::any_of(acc.getUsers(), [](Operation *user) {
    return isa<arith::AddFOp, arith::SubFOp, arith::MulFOp>(user);
  });
}

/// True when the payload accumulates products (a matmul or convolution),
/// false for a plain sum (reduce_sum, sum pooling).
bool accumulatesProducts(linalg::LinalgOp op) {
  bool products = false;
  op.getBlock()->walk([&](arith::MulFOp mul) {
    products |= llvm::any_of(mul->getUsers(), [](Operation *user) {
      return isa<arith::AddFOp, arith::SubFOp>(user);
    });
  });
  return products;
}

/// `v` converted to element type `elem` right before `user`.
Value castBefore(Value v, FloatType elem, Operation *user) {
  OpBuilder b(user);
  return convertElementType(b, user->getLoc(), v, elem);
}

/// Makes `newOp` (computing in f32) stand for `oldOp`, whose results had
/// `oldTypes`: each widened result is rounded back once for its users.
/// `oldOp` is erased unless it was rebuilt in place (`newOp == oldOp`).
void replaceWithRounded(OpBuilder &b, Operation *oldOp, Operation *newOp,
                        ArrayRef<Type> oldTypes) {
  if (oldOp != newOp) {
    oldOp->replaceAllUsesWith(newOp->getResults());
    oldOp->erase();
  }
  b.setInsertionPointAfter(newOp);
  for (auto [result, type] : llvm::zip(newOp->getResults(), oldTypes)) {
    if (result.getType() == type)
      continue;
    auto rounded = CastOp::create(b, newOp->getLoc(), type, result);
    result.replaceAllUsesExcept(rounded, rounded);
  }
}

struct AmpFp32AccumulationPass
    : public amp::impl::AmpFp32AccumulationBase<AmpFp32AccumulationPass> {
  using Base::Base;

  void runOnOperation() override {
    numContractions = numReductions = 0;
    verifier = RetypeVerifier();
    SmallVector<Operation *> candidates;
    getOperation()->walk([&](Operation *op) {
      if (isa<linalg::LinalgOp, linalg::SoftmaxOp, tosa::MatMulOp,
              tosa::Conv2DOp, tosa::Conv3DOp, tosa::DepthwiseConv2DOp,
              tosa::TransposeConv2DOp, tosa::AvgPool2dOp, tosa::ReduceSumOp,
              tosa::ReduceProductOp>(op))
        candidates.push_back(op);
    });
    for (Operation *op : candidates)
      if (failed(rewrite(op)))
        return signalPassFailure();
    // Old low-precision inits the rewrite left unused.
    // (Users were recorded before their operands: erase in that order.)
    for (Operation *op : deadCandidates)
      if (op->use_empty())
        op->erase();
    deadCandidates.clear();
    recordStatistics(
        getArgument(),
        {{"contractions", "Contractions rewritten to accumulate in f32",
          numContractions},
         {"reductions", "Reductions rewritten to accumulate in f32",
          numReductions}});
  }

  /// Records the producers of `values` that the rewrite may leave unused.
  void noteMaybeDead(ValueRange values) {
    for (Value v : values)
      while (Operation *def = v.getDefiningOp()) {
        if (!isa<linalg::FillOp, tensor::EmptyOp, arith::ConstantOp>(def))
          break;
        deadCandidates.insert(def);
        if (auto fill = dyn_cast<linalg::FillOp>(def)) {
          if (Operation *cst = fill.value().getDefiningOp())
            deadCandidates.insert(cst);
          v = fill.output();
          continue;
        }
        break;
      }
  }

  uint64_t numContractions = 0, numReductions = 0;
  llvm::SetVector<Operation *> deadCandidates;
  /// Checks the rebuilt ops (one per run: it remembers verified signatures).
  RetypeVerifier verifier;

  LogicalResult rewrite(Operation *op) {
    FloatType f32 = Float32Type::get(op->getContext());
    OpBuilder b(op);
    Location loc = op->getLoc();
    SmallVector<Type> oldTypes(op->getResultTypes());

    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
      if (linalgOp.getNumReductionLoops() == 0 ||
          !linalgOp.hasPureTensorSemantics())
        return success();
      SmallVector<Value> inits;
      bool any = false;
      for (OpOperand &init : linalgOp.getDpsInitsMutable()) {
        Value v = init.get();
        if (isLowFloat(v.getType()) && accumulatesSumLike(linalgOp, init)) {
          inits.push_back(castBefore(v, f32, op));
          any = true;
        } else {
          inits.push_back(v);
        }
      }
      if (!any)
        return success();
      noteMaybeDead(linalgOp.getDpsInits());
      bool contraction = accumulatesProducts(linalgOp);
      SmallVector<Value> inputs(linalgOp.getDpsInputs());
      Operation *newOp = rebuildStructuredOp(b, linalgOp, inputs, inits, f32,
                                             castBefore, verifier);
      if (!newOp) {
        // Leave the op as it was (its casts are dead), and say so.
        emitWarning(loc) << "amp-fp32-accumulation: cannot rebuild this op "
                            "with an f32 accumulator; it keeps its "
                         << getElementTypeOrSelf(oldTypes.front())
                         << " accumulator";
        return success();
      }
      replaceWithRounded(b, op, newOp, oldTypes);
      ++(contraction ? numContractions : numReductions);
      return success();
    }

    if (auto softmax = dyn_cast<linalg::SoftmaxOp>(op)) {
      if (softmax->getNumResults() != 1 || !isLowFloat(softmax.getType(0)))
        return success();
      Value input = castBefore(softmax.getInput(), f32, op);
      Value init = castBefore(softmax.getOutput(), f32, op);
      noteMaybeDead(softmax.getOutput());
      auto wide = linalg::SoftmaxOp::create(b, loc, init.getType(), input, init,
                                            softmax.getDimension());
      replaceWithRounded(b, op, wide, oldTypes);
      ++numReductions;
      return success();
    }

    if (auto matmul = dyn_cast<tosa::MatMulOp>(op)) {
      if (!isLowFloat(matmul.getType()))
        return success();
      Type wideType = withElementType(matmul.getType(), f32);
      auto wide =
          tosa::MatMulOp::create(b, loc, wideType, matmul.getA(), matmul.getB(),
                                 matmul.getAZp(), matmul.getBZp());
      replaceWithRounded(b, op, wide, oldTypes);
      ++numContractions;
      return success();
    }

    if (isa<tosa::ReduceSumOp, tosa::ReduceProductOp>(op)) {
      if (!isLowFloat(op->getResult(0).getType()))
        return success();
      Value input = castBefore(op->getOperand(0), f32, op);
      OperationState state(loc, op->getName());
      state.addOperands(input);
      state.addAttributes(op->getAttrs());
      state.addTypes(withElementType(op->getResult(0).getType(), f32));
      Operation *wide = b.create(state);
      replaceWithRounded(b, op, wide, oldTypes);
      ++numReductions;
      return success();
    }

    // tosa convolutions and average pooling carry their accumulator type.
    auto accType = op->getAttrOfType<TypeAttr>("acc_type");
    if (accType && isa<FloatType>(accType.getValue()) &&
        isLowFloat(op->getResult(0).getType()) && accType.getValue() != f32) {
      op->setAttr("acc_type", TypeAttr::get(f32));
      ++(isa<tosa::AvgPool2dOp>(op) ? numReductions : numContractions);
    }
    return success();
  }
};

} // namespace
