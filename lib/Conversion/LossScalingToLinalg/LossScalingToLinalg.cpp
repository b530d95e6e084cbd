//===- LossScalingToLinalg.cpp - loss-scaling ops to upstream dialects ----===//
//
// The `amp-lower-loss-scaling` pass: `amp.init_loss_scale`,
// `amp.scale_loss`, `amp.unscale`, `amp.update_scale` and
// `amp.step_if_finite` become arith, tensor, linalg (on tensors) and scf ops
// with GradScaler's exact arithmetic.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/Amp.h"
#include "amp/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPLOWERLOSSSCALING
#include "amp/Conversion/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

/// The scalar held by a 0-d tensor.
Value extractScalar(OpBuilder &b, Location loc, Value tensor0d) {
  return tensor::ExtractOp::create(b, loc, tensor0d, ValueRange{});
}

/// A 0-d tensor holding `scalar`.
Value makeTensor0d(OpBuilder &b, Location loc, Value scalar) {
  auto type = RankedTensorType::get({}, scalar.getType());
  return tensor::FromElementsOp::create(b, loc, type, ValueRange{scalar});
}

/// `fn` applied elementwise to `input` (a ranked tensor, static or dynamic
/// shape) with a `linalg.generic` (identity maps, parallel) whose result has
/// `resultElem` elements: a generic, not a `linalg.map`, so that upstream's
/// elementwise fusion can fold it into its consumer (the unscaled gradient
/// into the optimizer update that reads it, see sinkIntoUpdates). `fn`
/// takes the element of `input` and that of `scalar`, a 0-d tensor the
/// generic reads too (map `(d...) -> ()`), or null without one. The loss
/// scale and its reciprocal are passed so: they stay tensors the kernels
/// read on the GPU, not scalars the host reads (under amp-cuda-pipeline a
/// wait for every queued kernel, in the middle of the step).
Value mapElementwise(
    OpBuilder &b, Location loc, Value input, Type resultElem,
    function_ref<Value(OpBuilder &, Location, Value, Value)> fn,
    Value scalar = nullptr) {
  auto type = cast<RankedTensorType>(input.getType());
  Value init =
      tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, input),
                              resultElem, type.getEncoding());
  int64_t rank = type.getRank();
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  SmallVector<Value> inputs{input};
  SmallVector<AffineMap> maps{identity};
  if (scalar) {
    assert(cast<RankedTensorType>(scalar.getType()).getRank() == 0 &&
           "the scalar operand is a 0-d tensor");
    inputs.push_back(scalar);
    maps.push_back(AffineMap::get(rank, 0, b.getContext()));
  }
  maps.push_back(identity);
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), inputs, ValueRange{init}, maps,
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(
            nb, nloc, fn(nb, nloc, args[0], scalar ? args[1] : Value()));
      });
  return generic.getResult(0);
}

/// An i1 that is true when `x` (a float scalar) is inf or NaN:
/// `!(|x| < inf)`, i.e. `|x| >=u inf` (unordered: NaN compares true).
Value isNonFinite(OpBuilder &b, Location loc, Value x) {
  auto type = cast<FloatType>(x.getType());
  Value inf = arith::ConstantOp::create(
      b, loc, b.getFloatAttr(type, APFloat::getInf(type.getFloatSemantics())));
  Value abs = math::AbsFOp::create(b, loc, x);
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UGE, abs, inf);
}

/// `or` over the flags `flag(x)` of the elements of `input` (a ranked
/// tensor), reduced over every dimension into a 0-d tensor<i1>, or with
/// `keepRows` over every dimension but the first into tensor<d0 x i1>.
/// The flags are or-ed into `into` (a 0-d tensor<i1>, not with `keepRows`)
/// when given, else into `false`.
Value orReduce(OpBuilder &b, Location loc, Value input, bool keepRows,
               function_ref<Value(OpBuilder &, Location, Value)> flag,
               Value into = nullptr) {
  assert(!(keepRows && into) && "row flags start from false");
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  MLIRContext *ctx = b.getContext();
  Type i1 = b.getI1Type();
  Value init = into;
  if (!init) {
    Value no = arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
    SmallVector<OpFoldResult> initSizes;
    if (keepRows)
      initSizes.push_back(tensor::getMixedSize(b, loc, input, 0));
    Value empty = tensor::EmptyOp::create(b, loc, initSizes, i1);
    init = linalg::FillOp::create(b, loc, no, empty).getResult(0);
  }
  SmallVector<AffineExpr> kept;
  if (keepRows)
    kept.push_back(b.getAffineDimExpr(0));
  SmallVector<AffineMap> maps = {AffineMap::getMultiDimIdentityMap(rank, ctx),
                                 AffineMap::get(rank, 0, kept, ctx)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::reduction);
  if (keepRows)
    iterators[0] = utils::IteratorType::parallel;
  auto generic = linalg::GenericOp::create(
      b, loc, init.getType(), ValueRange{input}, ValueRange{init}, maps,
      iterators, [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value any =
            arith::OrIOp::create(nb, nloc, args[1], flag(nb, nloc, args[0]));
        linalg::YieldOp::create(nb, nloc, any);
      });
  return generic.getResult(0);
}

/// The inf/NaN check of the float tensor `grad`, in two halves so that the
/// second halves of several gradients follow one another:
/// - `rowFlags`: a gradient of rank 2 or more is first reduced to one flag
///   per row of its first dimension, a reduction that is parallel over the
///   rows (under amp-cuda-pipeline a kernel with a block per row); a
///   gradient of lower rank is checked as it is;
/// - `orInto`: the row flags (or the elements of a low-rank gradient) are
///   or-ed into `foundInf` (a 0-d tensor<i1>, or null: false). Under
///   amp-cuda-pipeline a run of these is one block's kernel
///   (amp-gpu-scalar-kernels).
struct NonFiniteCheck {
  Value grad, rows;

  static NonFiniteCheck rowFlags(OpBuilder &b, Location loc, Value grad) {
    if (cast<RankedTensorType>(grad.getType()).getRank() < 2)
      return {grad, nullptr};
    return {grad, orReduce(b, loc, grad, /*keepRows=*/true, isNonFinite)};
  }

  Value orInto(OpBuilder &b, Location loc, Value foundInf) const {
    if (!rows)
      return orReduce(b, loc, grad, /*keepRows=*/false, isNonFinite, foundInf);
    auto identity = [](OpBuilder &, Location, Value flag) { return flag; };
    return orReduce(b, loc, rows, /*keepRows=*/false, identity, foundInf);
  }
};

void lowerInit(RewriterBase &rewriter, InitLossScaleOp op) {
  Location loc = op.getLoc();
  auto scaleType = cast<RankedTensorType>(op.getScale().getType());
  auto trackerType = cast<RankedTensorType>(op.getGrowthTracker().getType());
  Value scale = arith::ConstantOp::create(
      rewriter, loc,
      DenseElementsAttr::get(scaleType, op.getInitScaleAttr().getValue()));
  Value tracker = arith::ConstantOp::create(
      rewriter, loc,
      DenseElementsAttr::get(trackerType, rewriter.getI32IntegerAttr(0)));
  rewriter.replaceOp(op, {scale, tracker});
}

void lowerScaleLoss(RewriterBase &rewriter, ScaleLossOp op) {
  Location loc = op.getLoc();
  Type f32 = rewriter.getF32Type();
  // loss * scale in f32, rounded once to the loss's type.
  auto scaleOne = [&](OpBuilder &b, Location l, Value x, Value scale) -> Value {
    Type elem = x.getType();
    Value wide = elem == f32 ? x : arith::ExtFOp::create(b, l, f32, x);
    Value product = arith::MulFOp::create(b, l, wide, scale);
    return elem == f32 ? product : arith::TruncFOp::create(b, l, elem, product);
  };
  Value loss = op.getLoss();
  Value result = isa<RankedTensorType>(loss.getType())
                     ? mapElementwise(rewriter, loc, loss,
                                      getElementTypeOrSelf(loss.getType()),
                                      scaleOne, op.getScale())
                     : scaleOne(rewriter, loc, loss,
                                extractScalar(rewriter, loc, op.getScale()));
  rewriter.replaceOp(op, result);
}

void lowerUnscale(RewriterBase &rewriter, UnscaleOp op,
                  SmallVectorImpl<Operation *> &unscaled) {
  Location loc = op.getLoc();
  // inv_scale = scale.double().reciprocal().float(), a 0-d tensor (one
  // thread's kernel under amp-cuda-pipeline) the unscaling reads.
  Value invScale = mapElementwise(
      rewriter, loc, op.getScale(), rewriter.getF32Type(),
      [](OpBuilder &b, Location l, Value scale, Value) -> Value {
        Value wide = arith::ExtFOp::create(b, l, b.getF64Type(), scale);
        Value one = arith::ConstantOp::create(b, l, b.getF64FloatAttr(1.0));
        Value reciprocal = arith::DivFOp::create(b, l, one, wide);
        return arith::TruncFOp::create(b, l, b.getF32Type(), reciprocal);
      });

  SmallVector<Value> results;
  // Each gradient's flags are or-ed into one 0-d tensor, read once (on the
  // GPU, one host read of device memory rather than one per gradient). The
  // check reads the gradients before they are unscaled, as the kernel does.
  SmallVector<NonFiniteCheck> checks;
  for (Value grad : op.getGrads())
    checks.push_back(NonFiniteCheck::rowFlags(rewriter, loc, grad));
  // A 0-d gradient's check has no loops (not a reduction: under
  // amp-cuda-pipeline a kernel of its own): last, so that it does not
  // split the run of the others.
  std::stable_partition(
      checks.begin(), checks.end(), [](const NonFiniteCheck &check) {
        return cast<RankedTensorType>(check.grad.getType()).getRank() != 0;
      });
  Value foundInf;
  for (const NonFiniteCheck &check : checks)
    foundInf = check.orInto(rewriter, loc, foundInf);
  for (Value grad : op.getGrads()) {
    results.push_back(mapElementwise(
        rewriter, loc, grad, rewriter.getF32Type(),
        [](OpBuilder &b, Location l, Value x, Value inv) -> Value {
          return arith::MulFOp::create(b, l, x, inv);
        },
        invScale));
    unscaled.push_back(results.back().getDefiningOp());
  }
  results.push_back(foundInf ? extractScalar(rewriter, loc, foundInf)
                             : arith::ConstantOp::create(
                                   rewriter, loc, rewriter.getBoolAttr(false))
                                   .getResult());
  rewriter.replaceOp(op, results);
}

void lowerUpdateScale(RewriterBase &rewriter, UpdateScaleOp op) {
  Location loc = op.getLoc();
  Type f32 = rewriter.getF32Type(), f64 = rewriter.getF64Type();
  Value scale = extractScalar(rewriter, loc, op.getScale());
  Value tracker = extractScalar(rewriter, loc, op.getGrowthTracker());
  Value foundInf = op.getFoundInf();

  // float(double(scale) * factor), as PyTorch's kernels compute it.
  auto timesFactor = [&](FloatAttr factor) -> Value {
    Value wide = arith::ExtFOp::create(rewriter, loc, f64, scale);
    Value f = arith::ConstantOp::create(rewriter, loc, factor);
    Value product = arith::MulFOp::create(rewriter, loc, wide, f);
    return arith::TruncFOp::create(rewriter, loc, f32, product);
  };
  Value zero = arith::ConstantOp::create(rewriter, loc,
                                         rewriter.getI32IntegerAttr(0));
  Value one = arith::ConstantOp::create(rewriter, loc,
                                        rewriter.getI32IntegerAttr(1));
  Value interval = arith::ConstantOp::create(rewriter, loc,
                                             op.getGrowthIntervalAttr());

  // Finite step: count it; grow the scale at the interval unless it would
  // overflow f32, and restart the count.
  Value successful = arith::AddIOp::create(rewriter, loc, tracker, one);
  Value reached = arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                        successful, interval);
  Value grown = timesFactor(op.getGrowthFactorAttr());
  Value grownFinite = arith::XOrIOp::create(
      rewriter, loc, isNonFinite(rewriter, loc, grown),
      arith::ConstantOp::create(rewriter, loc, rewriter.getBoolAttr(true)));
  Value grow = arith::AndIOp::create(rewriter, loc, reached, grownFinite);
  Value finiteScale = arith::SelectOp::create(rewriter, loc, grow, grown, scale);
  Value finiteTracker =
      arith::SelectOp::create(rewriter, loc, reached, zero, successful);

  // Step with inf/NaN: back off and restart the count.
  Value backedOff = timesFactor(op.getBackoffFactorAttr());
  Value newScale =
      arith::SelectOp::create(rewriter, loc, foundInf, backedOff, finiteScale);
  Value newTracker =
      arith::SelectOp::create(rewriter, loc, foundInf, zero, finiteTracker);
  rewriter.replaceOp(op, {makeTensor0d(rewriter, loc, newScale),
                          makeTensor0d(rewriter, loc, newTracker)});
}

scf::IfOp lowerStepIfFinite(RewriterBase &rewriter, StepIfFiniteOp op) {
  Location loc = op.getLoc();
  auto ifOp = scf::IfOp::create(rewriter, loc, op.getResultTypes(),
                                op.getFoundInf(), /*withElseRegion=*/true);
  // Without results, scf.if's builder has put empty yields in both blocks.
  bool hasResults = !op.getResultTypes().empty();
  // Then (found inf/NaN): the kept values, untouched.
  if (hasResults) {
    rewriter.setInsertionPointToStart(ifOp.thenBlock());
    scf::YieldOp::create(rewriter, loc, op.getKeep());
  }
  // Else: the update, moved as it is, its amp.yield becoming scf.yield.
  Block *elseBlock = ifOp.elseBlock();
  YieldOp yield = op.getYield();
  if (hasResults) {
    rewriter.setInsertionPoint(yield);
    scf::YieldOp::create(rewriter, yield.getLoc(), yield.getOperands());
  }
  rewriter.eraseOp(yield);
  rewriter.inlineBlockBefore(&op.getBody().front(), elseBlock,
                             hasResults ? elseBlock->end()
                                        : elseBlock->getTerminator()->getIterator());
  rewriter.replaceOp(op, ifOp.getResults());
  return ifOp;
}

/// Moves each unscaled gradient (the elementwise `linalg.generic` of
/// lowerUnscale, with its `tensor.empty`) whose every use is in the update
/// branch of one of `steps` (lowered amp.step_if_finite ops in the same
/// block as it) to the start of that branch: the gradient is then unscaled
/// only when the step runs, in the block of the update that reads it, where
/// elementwise fusion folds the multiply into the update (one pass over the
/// gradient fewer). Never into a loop: only into a branch of an op next to
/// the gradient.
void sinkIntoUpdates(RewriterBase &rewriter, ArrayRef<Operation *> unscaled,
                     ArrayRef<scf::IfOp> steps) {
  for (Operation *generic : unscaled) {
    for (scf::IfOp step : steps) {
      Region &update = step.getElseRegion();
      if (step->getBlock() != generic->getBlock() ||
          !generic->isBeforeInBlock(step) || generic->use_empty() ||
          !llvm::all_of(generic->getUsers(), [&](Operation *user) {
            return update.isAncestor(user->getParentRegion());
          }))
        continue;
      Block &block = update.front();
      rewriter.moveOpBefore(generic, &block, block.begin());
      Value init = cast<linalg::GenericOp>(generic).getDpsInits()[0];
      // (Its sizes, if dynamic, are defined before the step.)
      if (auto empty = init.getDefiningOp<tensor::EmptyOp>();
          empty && empty->hasOneUse())
        rewriter.moveOpBefore(empty, generic);
      break;
    }
  }
}

struct AmpLowerLossScalingPass
    : public amp::impl::AmpLowerLossScalingBase<AmpLowerLossScalingPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<InitLossScaleOp, ScaleLossOp, UnscaleOp, UpdateScaleOp,
              StepIfFiniteOp>(op))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    SmallVector<Operation *> unscaled;
    SmallVector<scf::IfOp> steps;
    for (Operation *op : ops) {
      rewriter.setInsertionPoint(op);
      TypeSwitch<Operation *>(op)
          .Case([&](InitLossScaleOp o) { lowerInit(rewriter, o); })
          .Case([&](ScaleLossOp o) { lowerScaleLoss(rewriter, o); })
          .Case([&](UnscaleOp o) { lowerUnscale(rewriter, o, unscaled); })
          .Case([&](UpdateScaleOp o) { lowerUpdateScale(rewriter, o); })
          .Case([&](StepIfFiniteOp o) {
            steps.push_back(lowerStepIfFinite(rewriter, o));
          });
    }
    sinkIntoUpdates(rewriter, unscaled, steps);
  }
};

} // namespace
