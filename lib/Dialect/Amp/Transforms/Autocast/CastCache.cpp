//===- CastCache.cpp - amp-autocast's casts and their cache ---------------===//
//
// Where amp-autocast's casts go: every conversion goes through castTo,
// which folds constants and shape-only tensors at compile time and, with
// the weight-cast cache on (cache_enabled), casts each (value, type) once
// per scope: right after the value's definition, or at region entry for
// a value from outside (weights), which hoists it out of loops.
//
//===----------------------------------------------------------------------===//

#include "ScopeRewriter.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::autocast;

Value ScopeRewriter::castToType(Value v, Type type, Operation *user) {
  auto elem = dyn_cast<FloatType>(getElementTypeOrSelf(type));
  if (!elem || !isAutocastFloat(v.getType()))
    return v;
  return castTo(v, elem, user);
}

void ScopeRewriter::setCastInsertionPoint(OpBuilder &b, Value v) {
  Region *region = scope.region;
  if (Operation *def = v.getDefiningOp()) {
    if (region->isAncestor(def->getParentRegion())) {
      b.setInsertionPointAfter(def);
      return;
    }
  } else if (auto arg = dyn_cast<BlockArgument>(v)) {
    if (region->isAncestor(arg.getParentRegion())) {
      b.setInsertionPointToStart(arg.getOwner());
      return;
    }
  }
  b.setInsertionPointToStart(&region->front());
}

Value ScopeRewriter::castTo(Value v, FloatType elem, Operation *user) {
  if (getElementTypeOrSelf(v.getType()) == elem)
    return v;
  // Keyed by element type: the cached value has `v`'s shape.
  auto key = std::make_pair(v, Type(elem));
  // Constants and shape-only tensors are rebuilt, never cast at run time:
  // sharing them is always right. Other values share a cast only with the
  // weight-cast cache on.
  bool cached = cacheEnabled || matchPattern(v, m_Constant()) ||
                isRematerializableInit(v);
  if (cached) {
    if (Value hit = castCache.lookup(key)) {
      if (hit.getDefiningOp<CastOp>())
        ++counters.castsCached;
      return hit;
    }
  }
  OpBuilder b(user);
  if (cached)
    setCastInsertionPoint(b, v);
  Value result = convertElementType(b, user->getLoc(), v, elem);
  Operation *def = result.getDefiningOp();
  if (def && !isa<CastOp>(def)) {
    // Folded at compile time: a constant, or a rebuilt empty/filled tensor.
    if (matchPattern(result, m_Constant()) || isa<linalg::FillOp>(def))
      ++counters.constantsNarrowed;
    // Keep tosa constants tosa (tosa verifiers want tosa.const operands).
    Attribute value;
    if (v.getDefiningOp<tosa::ConstOp>() &&
        matchPattern(result, m_Constant(&value))) {
      result = tosa::ConstOp::create(b, def->getLoc(), result.getType(),
                                     cast<ElementsAttr>(value));
      def->erase();
    }
  } else {
    if (def)
      counters.insertedCasts.insert(def);
    LoopLikeOpInterface userLoop = user->getParentOfType<LoopLikeOpInterface>();
    if (def && userLoop && !userLoop->isAncestor(def))
      ++counters.castsHoisted;
  }
  if (cached)
    castCache[key] = result;
  return result;
}
