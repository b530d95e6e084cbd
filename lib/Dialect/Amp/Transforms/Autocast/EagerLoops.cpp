//===- EagerLoops.cpp - eager-mode loops in amp-autocast ------------------===//
//
// Eager mode runs an scf.for as PyTorch would run its iterations: the
// first on the initial values as they arrive, later ones on what the one
// before produced; a body that changes a carried type gets its first
// iteration peeled. See ScopeRewriter::processEagerLoop.
//
//===----------------------------------------------------------------------===//

#include "ScopeRewriter.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::autocast;

SmallVector<Value> ScopeRewriter::producedValues(scf::ForOp loop) {
  SmallVector<Value> values;
  for (Value v : loop.getBody()->getTerminator()->getOperands()) {
    auto cast = v.getDefiningOp<CastOp>();
    values.push_back(
        cast && counters.insertedCasts.contains(cast) ? cast.getIn() : v);
  }
  return values;
}

SmallVector<Type> ScopeRewriter::producedTypes(scf::ForOp loop) {
  return llvm::to_vector(llvm::map_range(producedValues(loop),
                                         [](Value v) { return v.getType(); }));
}

LogicalResult ScopeRewriter::processEagerLoop(scf::ForOp loop) {
  std::optional<APInt> trips = loop.getStaticTripCount();
  // The copy for the rest has the written types (setCarriedTypes records
  // them as its results' original types).
  Operation *rest = trips && trips->uge(2) ? loop->clone() : nullptr;
  setCarriedTypes(loop, loop.getInitArgs().getTypes());
  auto dropRest = [&] {
    if (rest)
      rest->destroy();
  };
  if (failed(processRegion(loop.getRegion()))) {
    dropRest();
    return failure();
  }
  SmallVector<Type> produced = producedTypes(loop);
  // No trip: the results are the initial values, at their types.
  if (TypeRange(produced) == loop.getResultTypes() ||
      (trips && trips->isZero())) {
    dropRest();
    return success();
  }
  if (!trips) {
    emitRemark(loop.getLoc())
        << "amp-autocast: the body changes the type of a value this loop "
           "carries, and its trip count is not a constant: eager mode "
           "carries the types of the first iteration, which PyTorch "
           "matches in that iteration only";
    return success();
  }

  // The first iteration, inlined: its values replace the loop's results
  // (one trip) or start the rest of the loop.
  SmallVector<Value> first = inlineFirstIteration(loop);
  if (!rest) {
    replaceCarriedValues(loop, first);
    loop->erase();
    return success();
  }
  auto restLoop = cast<scf::ForOp>(rest);
  OpBuilder b(loop);
  b.insert(restLoop);
  Value next = arith::AddIOp::create(b, loop.getLoc(), loop.getLowerBound(),
                                     loop.getStep());
  restLoop->moveAfter(next.getDefiningOp());
  restLoop.getLowerBoundMutable().assign(next);
  restLoop.getInitArgsMutable().assign(first);
  setCarriedTypes(restLoop, produced);
  replaceCarriedValues(loop, restLoop.getResults());
  loop->erase();
  if (failed(processRegion(restLoop.getRegion())))
    return failure();
  if (TypeRange(producedTypes(restLoop)) != restLoop.getResultTypes())
    emitRemark(restLoop.getLoc())
        << "amp-autocast: the body changes the type of a value this loop "
           "carries again in its second iteration: eager mode carries the "
           "type of the first, which PyTorch matches in the first two "
           "iterations only";
  return success();
}

void ScopeRewriter::setCarriedTypes(scf::ForOp loop, TypeRange types) {
  for (auto [arg, result, type] :
       llvm::zip(loop.getRegionIterArgs(), loop.getResults(), types)) {
    if (result.getType() == type || !isAutocastFloat(type))
      continue;
    if (!originalTypes.lookup(result))
      originalTypes.record(result, result.getType());
    arg.setType(type);
    result.setType(type);
  }
}

SmallVector<Value> ScopeRewriter::inlineFirstIteration(scf::ForOp loop) {
  // Casts of the block arguments would outlive them in the cache.
  SmallVector<std::pair<Value, Type>> stale;
  for (auto &entry : castCache)
    if (auto arg = dyn_cast<BlockArgument>(entry.first.first);
        arg && arg.getOwner() == loop.getBody())
      stale.push_back(entry.first);
  for (auto key : stale)
    castCache.erase(key);
  Block *body = loop.getBody();
  Operation *yield = body->getTerminator();
  SmallVector<Value> args = {loop.getLowerBound()};
  llvm::append_range(args, loop.getInitArgs());
  SmallVector<Value> values = producedValues(loop);
  // A block argument (a carried value passed through) goes with the block.
  for (Value &v : values)
    if (auto arg = dyn_cast<BlockArgument>(v); arg && arg.getOwner() == body)
      v = args[arg.getArgNumber()];
  IRRewriter rewriter(loop->getContext());
  rewriter.inlineBlockBefore(body, loop, args);
  rewriter.eraseOp(yield);
  return values;
}

void ScopeRewriter::replaceCarriedValues(scf::ForOp loop, ValueRange values) {
  for (auto [result, value] : llvm::zip(loop.getResults(), values)) {
    Type written = originalTypes.lookup(result);
    if (!written)
      written = result.getType();
    if (written != value.getType() && !originalTypes.lookup(value))
      originalTypes.record(value, written);
    result.replaceAllUsesWith(value);
  }
}
