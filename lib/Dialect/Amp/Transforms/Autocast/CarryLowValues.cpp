//===- CarryLowValues.cpp - low values through loops and branches ---------===//
//
// Graph mode, after the rewrite: values that an scf.for carries or an
// scf.if returns take the low type where they are low on every path, so
// the casts at the loop edge and in the branches go (fewer casts, same
// values). See ScopeRewriter::carryLowValues.
//
//===----------------------------------------------------------------------===//

#include "ScopeRewriter.h"

#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::autocast;

void ScopeRewriter::carryLowValues() {
  // processOp met them outer first: visit them inner first.
  for (Operation *op : llvm::reverse(carryCandidates)) {
    if (auto forOp = dyn_cast<scf::ForOp>(op))
      carryLowThroughLoop(forOp);
    else
      carryLowThroughIf(cast<scf::IfOp>(op));
  }
}

Value ScopeRewriter::castFromLow(Value v) const {
  auto cast = v.getDefiningOp<CastOp>();
  if (!cast || getElementTypeOrSelf(v.getType()) != f32 ||
      getElementTypeOrSelf(cast.getIn().getType()) != low)
    return {};
  return cast.getIn();
}

bool ScopeRewriter::isCastToLow(OpOperand &use) const {
  auto cast = dyn_cast<CastOp>(use.getOwner());
  return cast && getElementTypeOrSelf(cast.getOut().getType()) == low;
}

void ScopeRewriter::replaceUsesOfLow(Value v,
                                     function_ref<Value()> makeUpCast) {
  Value up;
  for (OpOperand &use : llvm::make_early_inc_range(v.getUses())) {
    if (isCastToLow(use)) {
      Operation *cast = use.getOwner();
      cast->getResult(0).replaceAllUsesWith(v);
      eraseCast(cast);
      continue;
    }
    if (!up)
      up = makeUpCast();
    if (use.getOwner() != up.getDefiningOp())
      use.set(up);
  }
}

Value ScopeRewriter::castUpAt(OpBuilder &b, Value v) {
  Value up = convertElementType(b, v.getLoc(), v, f32);
  counters.insertedCasts.insert(up.getDefiningOp());
  return up;
}

Value ScopeRewriter::castUpAfter(Operation *op, Value result) {
  OpBuilder b(op->getContext());
  b.setInsertionPointAfter(op);
  return castUpAt(b, result);
}

void ScopeRewriter::eraseCast(Operation *cast) {
  counters.insertedCasts.erase(cast);
  cast->erase();
}

void ScopeRewriter::yieldLow(Operation *yield, unsigned i, Value lowValue) {
  Operation *upCast = yield->getOperand(i).getDefiningOp();
  yield->setOperand(i, lowValue);
  if (upCast->use_empty())
    eraseCast(upCast);
}

void ScopeRewriter::carryLowThroughLoop(scf::ForOp forOp) {
  auto yield = cast<scf::YieldOp>(forOp.getBody()->getTerminator());
  std::optional<APInt> trips = forOp.getStaticTripCount();
  // A loop that runs at most once executes its edge casts at most once:
  // carrying low values would only move them out.
  if (trips && trips->ule(1))
    return;
  bool runsOnce = trips && !trips->isZero();
  for (unsigned i = 0, e = forOp.getNumRegionIterArgs(); i < e; ++i) {
    BlockArgument arg = forOp.getRegionIterArg(i);
    Value result = forOp.getResult(i);
    Value init = forOp.getInitArgs()[i];
    Value yieldedLow = castFromLow(yield->getOperand(i));
    if (!yieldedLow || !isAutocastFloat(arg.getType()))
      continue;
    Value initLow = castFromLow(init);
    auto allCastToLow = [&](Value v) {
      return llvm::all_of(v.getUses(),
                          [&](OpOperand &use) { return isCastToLow(use); });
    };
    // Where carrying the low value would change a value, the carried value
    // stays f32, cast at the loop edge in every iteration: say why.
    if (!initLow && !allCastToLow(arg)) {
      emitRemark(forOp.getLoc())
          << "'scf.for' carried value #" << i << " stays f32 (cast to " << low
          << " and back in every iteration): the body yields a " << low
          << " value, but the iteration argument has users that read it "
             "in f32, which would see the f32 initial value rounded";
      continue;
    }
    if (!initLow && !runsOnce && !allCastToLow(result)) {
      emitRemark(forOp.getLoc())
          << "'scf.for' carried value #" << i << " stays f32 (cast to " << low
          << " and back in every iteration): the body yields a " << low
          << " value, but the loop may run zero times and return its f32 "
             "initial value to users that read it in f32";
      continue;
    }
    Type lowType = yieldedLow.getType();
    if (!initLow)
      initLow = castTo(init, low, forOp);
    forOp.getInitArgsMutable()[i].set(initLow);
    yieldLow(yield, i, yieldedLow);
    arg.setType(lowType);
    result.setType(lowType);
    replaceUsesOfLow(arg, [&] {
      OpBuilder b = OpBuilder::atBlockBegin(forOp.getBody());
      return castUpAt(b, arg);
    });
    replaceUsesOfLow(result, [&] { return castUpAfter(forOp, result); });
  }
}

void ScopeRewriter::carryLowThroughIf(scf::IfOp ifOp) {
  if (ifOp.getElseRegion().empty())
    return; // no results
  auto thenYield = ifOp.thenYield();
  auto elseYield = ifOp.elseYield();
  for (unsigned i = 0, e = ifOp.getNumResults(); i < e; ++i) {
    Value thenLow = castFromLow(thenYield->getOperand(i));
    Value elseLow = castFromLow(elseYield->getOperand(i));
    if (!thenLow || !elseLow || thenLow.getType() != elseLow.getType())
      continue;
    Value result = ifOp.getResult(i);
    yieldLow(thenYield, i, thenLow);
    yieldLow(elseYield, i, elseLow);
    result.setType(thenLow.getType());
    replaceUsesOfLow(result, [&] { return castUpAfter(ifOp, result); });
  }
}
