//===- Retype.cpp - change the compute type of ops ------------------------===//
//
// Rebuilds ops at a new float compute type for the amp passes: operands are
// cast through a caller-provided function, results and payloads retyped,
// inits rematerialized, and the op verified, with rollback on failure.
//
//===----------------------------------------------------------------------===//

#include "Retype.h"

#include "amp/Dialect/Amp/IR/Amp.h"
#include "amp/Dialect/Amp/Policy/CastPolicy.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/ImplicitLocOpBuilder.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"

using namespace mlir;
using namespace mlir::amp;

DpsInitRange::DpsInitRange(DestinationStyleOpInterface op) {
  // A structured op lists its inits last; on tensors each init has its
  // result (the DestinationStyleOpInterface verifier), so the results count
  // them without asking the interface.
  if (op->getNumResults() && getStructuredOp(op) &&
      llvm::all_of(op->getOperandTypes(),
                   [](Type t) { return !isa<BaseMemRefType>(t); })) {
    end = op->getNumOperands();
    begin = end - op->getNumResults();
    return;
  }
  MutableOperandRange inits = op.getDpsInitsMutable();
  if (inits.empty())
    return;
  begin = OperandRange(inits).getBeginOperandIndex();
  end = begin + inits.size();
}

FloatType mlir::amp::widestFloatType(FloatType a, FloatType b) {
  if (!a)
    return b;
  if (!b || a == b)
    return a;
  if (isExactFloatConversion(a, b))
    return b;
  if (isExactFloatConversion(b, a))
    return a;
  // f16 and bf16: neither holds the other; f32 holds both.
  return Float32Type::get(a.getContext());
}

namespace {
bool valueFitsIn(const APFloat &v, FloatType to) {
  if (v.isNaN() || v.isInfinity())
    return true;
  APFloat r = roundToFloatType(v, to);
  if (r.isInfinity())
    return false;                      // overflow
  return !(r.isZero() && !v.isZero()); // underflow
}

/// The rematerializable fill constant of `value`, if it is a fill.
std::optional<std::pair<linalg::FillOp, FloatAttr>> getConstantFill(Value v) {
  auto fill = v.getDefiningOp<linalg::FillOp>();
  if (!fill)
    return std::nullopt;
  FloatAttr cst;
  if (!matchPattern(fill.value(), m_Constant(&cst)))
    return std::nullopt;
  return std::make_pair(fill, cst);
}
} // namespace

bool mlir::amp::constantFitsIn(Attribute value, FloatType to) {
  if (auto f = dyn_cast<FloatAttr>(value))
    return valueFitsIn(f.getValue(), to);
  if (auto dense = dyn_cast<DenseFPElementsAttr>(value)) {
    if (dense.isSplat())
      return valueFitsIn(dense.getSplatValue<APFloat>(), to);
    return llvm::all_of(dense.getValues<APFloat>(),
                        [&](const APFloat &v) { return valueFitsIn(v, to); });
  }
  return true;
}

bool mlir::amp::isRematerializableInit(Value value) {
  if (value.getDefiningOp<tensor::EmptyOp>())
    return true;
  if (auto fill = getConstantFill(value))
    return isRematerializableInit(fill->first.output());
  return false;
}

Value mlir::amp::rematerializeInit(OpBuilder &b, Value value, FloatType elem) {
  if (auto empty = value.getDefiningOp<tensor::EmptyOp>())
    return tensor::EmptyOp::create(b, empty.getLoc(),
                                   empty.getType().getShape(), elem,
                                   empty.getDynamicSizes());
  auto fill = getConstantFill(value);
  if (!fill || !isRematerializableInit(fill->first.output()) ||
      !valueFitsIn(fill->second.getValue(), elem))
    return {};
  Location loc = fill->first.getLoc();
  Value init = rematerializeInit(b, fill->first.output(), elem);
  Value cst = arith::ConstantOp::create(
      b, loc,
      FloatAttr::get(elem, roundToFloatType(fill->second.getValue(), elem)));
  return linalg::FillOp::create(b, loc, ValueRange{cst}, ValueRange{init})
      .getResult(0);
}

Value mlir::amp::convertElementType(OpBuilder &b, Location loc, Value value,
                                    FloatType elem) {
  if (getElementTypeOrSelf(value.getType()) == elem)
    return value;
  if (Value remat = rematerializeInit(b, value, elem))
    return remat;
  Type type = withElementType(value.getType(), elem);
  // Only casts of constants and of casts fold (CastOp::fold).
  Operation *def = value.getDefiningOp();
  if (!def || (!isa<CastOp>(def) && !def->hasTrait<OpTrait::ConstantLike>()))
    return CastOp::create(b, loc, type, value);
  return b.createOrFold<CastOp>(loc, type, value);
}

namespace {
FloatType getFloatElementType(Type type) {
  return dyn_cast<FloatType>(getElementTypeOrSelf(type));
}

bool needsRetype(Value v, FloatType compute) {
  return isAutocastFloat(v.getType()) &&
         getElementTypeOrSelf(v.getType()) != compute;
}

/// Verifies the invariants of one op (not its dominance) without reporting.
bool verifiesQuietly(Operation *op) {
  OperationName name = op->getName();
  if (!name.isRegistered())
    return true;
  ScopedDiagnosticHandler silence(op->getContext(),
                                  [](Diagnostic &) { return success(); });
  if (failed(name.verifyInvariants(op)) ||
      failed(name.verifyRegionInvariants(op)))
    return false;
  // Calls and other symbol users check their operands against the symbol.
  if (auto user = dyn_cast<SymbolUserOpInterface>(op)) {
    SymbolTableCollection symbolTables;
    return succeeded(user.verifySymbolUses(symbolTables));
  }
  return true;
}

/// What retyping can break in a structured op: its payload ops, block
/// argument types against operand element types, and yielded types against
/// init element types. (Shapes and indexing maps do not change; the full
/// structured-op verifier is what the pass would pay most for.)
bool structuredOpIsConsistent(linalg::LinalgOp op,
                              function_ref<bool(Operation *)> verifyOne) {
  Block *body = op.getBlock();
  for (OpOperand &operand : op->getOpOperands()) {
    BlockArgument arg = op.getMatchingBlockArgument(&operand);
    if (arg && arg.getType() != getElementTypeOrSelf(operand.get().getType()))
      return false;
  }
  DpsInitRange initRange(op);
  OperandRange inits =
      op->getOperands().slice(initRange.begin, initRange.end - initRange.begin);
  Operation *yield = body->getTerminator();
  if (yield->getNumOperands() != inits.size())
    return false;
  for (auto [value, init] : llvm::zip(yield->getOperands(), inits))
    if (value.getType() != getElementTypeOrSelf(init.getType()))
      return false;
  for (auto [result, init] : llvm::zip(op->getResults(), inits))
    if (result.getType() != init.getType())
      return false;
  return llvm::all_of(*body, [&](Operation &inner) {
    // A linalg.yield's verifier checks what the lines above did.
    if (&inner == yield && isa<linalg::YieldOp>(inner))
      return true;
    return inner
               .walk([&](Operation *nested) {
                 return verifyOne(nested) ? WalkResult::advance()
                                          : WalkResult::interrupt();
               })
               .wasInterrupted() == false;
  });
}

/// Converts arith.extf/truncf whose operand and result types now coincide
/// or point the wrong way after retyping.
void fixConversion(Operation *op) {
  if (!isa<arith::ExtFOp, arith::TruncFOp>(op))
    return;
  auto in = getFloatElementType(op->getOperand(0).getType());
  auto out = getFloatElementType(op->getResult(0).getType());
  if (in == out) {
    op->getResult(0).replaceAllUsesWith(op->getOperand(0));
    op->erase();
    return;
  }
  bool widens = isExactFloatConversion(in, out);
  if (widens == isa<arith::ExtFOp>(op))
    return;
  OpBuilder b(op);
  Value repl =
      widens
          ? arith::ExtFOp::create(b, op->getLoc(), op->getResult(0).getType(),
                                  op->getOperand(0))
                .getResult()
          : arith::TruncFOp::create(b, op->getLoc(), op->getResult(0).getType(),
                                    op->getOperand(0))
                .getResult();
  op->getResult(0).replaceAllUsesWith(repl);
  op->erase();
}

/// `v` (a scalar float) converted to `to`: extf where that is exact,
/// truncf where `to` is narrower, and through f32 between types of one width
/// (bf16 and f16); the input of an extf from `to` (exact both ways).
Value convertScalarFloat(OpBuilder &b, Location loc, Value v, FloatType to) {
  auto from = cast<FloatType>(v.getType());
  if (from == to)
    return v;
  if (auto ext = v.getDefiningOp<arith::ExtFOp>();
      ext && ext.getIn().getType() == to)
    return ext.getIn();
  if (isExactFloatConversion(from, to))
    return arith::ExtFOp::create(b, loc, to, v);
  if (to.getWidth() < from.getWidth())
    return arith::TruncFOp::create(b, loc, to, v);
  Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
  return convertScalarFloat(b, loc, wide, to);
}

/// Points every use of `v` at `v` converted to `to` (convertScalarFloat, at
/// the builder's insertion point).
void useConverted(OpBuilder &b, Location loc, Value v, FloatType to) {
  SmallVector<OpOperand *> uses =
      llvm::map_to_vector(v.getUses(), [](OpOperand &use) { return &use; });
  Value converted = convertScalarFloat(b, loc, v, to);
  for (OpOperand *use : uses)
    use->set(converted);
}

/// Keeps a conversion the user wrote in a payload (an explicit rounding,
/// e.g. `arith.truncf` to bf16 and `arith.extf` back: "keep" in the cast
/// policy, as an explicit `.to(dtype)` in a PyTorch autocast region) once
/// the ops around it compute in `type`: its operand, of `type` now, goes
/// back to `source`, the type the user converted from; its result keeps its
/// type; its users get the result converted to `type` (when they were
/// retyped: an autocast float type). Retyped like the other ops, it would
/// convert `type` to `type` and vanish, and the rounding with it.
void keepExplicitConversion(Operation *op, FloatType source, FloatType type) {
  Location loc = op->getLoc();
  OpBuilder b(op);
  Value operand = op->getOperand(0);
  if (isa<FloatType>(operand.getType())) {
    op->setOperand(0, convertScalarFloat(b, loc, operand, source));
    // The widening of an earlier kept conversion that this one narrows
    // again (a round trip the user wrote) may have no use left.
    if (Operation *def = operand.getDefiningOp();
        def && def->use_empty() && isa<arith::ExtFOp>(def))
      def->erase();
  }
  Value result = op->getResult(0);
  auto resultType = dyn_cast<FloatType>(result.getType());
  if (!resultType || !isAutocastFloat(resultType))
    return;
  b.setInsertionPointAfter(op);
  useConverted(b, loc, result, type);
}

/// The conversions the user wrote in a payload, with the type each converts
/// from (read before the block arguments are retyped).
DenseMap<Operation *, FloatType> getExplicitConversions(Block &body) {
  DenseMap<Operation *, FloatType> conversions;
  for (Operation &op : body.without_terminator())
    if (isa<arith::ExtFOp, arith::TruncFOp>(op))
      if (auto source = dyn_cast<FloatType>(op.getOperand(0).getType()))
        conversions[&op] = source;
  return conversions;
}

/// Retypes the ops of a user-written payload (linalg.generic/map/reduce) to
/// `type`: block arguments of another float type are converted at the top of
/// the block, captured float values go through `castTo`, constants and
/// results are retyped, and the user's own conversions
/// (`explicitConversions`, getExplicitConversions') are kept
/// (keepExplicitConversion). Fails when a constant does not fit in `type`.
LogicalResult
retypePayload(Operation *owner, Block &body, FloatType type, CastFn castTo,
              const DenseMap<Operation *, FloatType> &explicitConversions) {
  // The payload's own ops, not the conversions of its arguments made next.
  SmallVector<Operation *> ops = llvm::map_to_vector(
      body.without_terminator(), [](Operation &op) { return &op; });
  OpBuilder b(owner->getContext());
  b.setInsertionPointToStart(&body);
  for (BlockArgument arg : body.getArguments()) {
    if (!needsRetype(arg, type) || arg.use_empty())
      continue;
    useConverted(b, owner->getLoc(), arg, type);
  }

  for (Operation *payloadOp : ops) {
    Operation &op = *payloadOp;
    // Before the captured values are cast: an explicit conversion of one
    // converts it as written (cast to `type` first, it would round twice).
    if (FloatType source = explicitConversions.lookup(&op)) {
      keepExplicitConversion(&op, source, type);
      continue;
    }
    for (OpOperand &operand : op.getOpOperands()) {
      Value v = operand.get();
      if (!needsRetype(v, type) ||
          owner->isAncestor(v.getParentRegion()->getParentOp()))
        continue;
      operand.set(castTo(v, type, owner));
    }
    if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
      auto attr = dyn_cast<FloatAttr>(cst.getValue());
      if (attr && attr.getType() != type && isAutocastFloat(attr.getType())) {
        if (!valueFitsIn(attr.getValue(), type))
          return failure();
        cst.setValueAttr(
            FloatAttr::get(type, roundToFloatType(attr.getValue(), type)));
        cst.getResult().setType(type);
      }
      continue;
    }
    for (OpResult result : op.getResults())
      if (isAutocastFloat(result.getType()))
        result.setType(withElementType(result.getType(), type));
    fixConversion(&op);
  }
  return success();
}
} // namespace

namespace {
/// Points the inputs and inits of `op` at new values and gives its results
/// the inits' types.
void setStructuredOperands(linalg::LinalgOp op, ValueRange inputs,
                           ValueRange inits) {
  DpsInitRange initRange(op);
  unsigned nextInput = 0, nextInit = 0;
  for (OpOperand &operand : op->getOpOperands())
    operand.set(initRange.contains(operand) ? inits[nextInit++]
                                            : inputs[nextInput++]);
  for (auto [result, init] : llvm::zip(op->getResults(), inits))
    result.setType(init.getType());
}

/// Rebuilds a named structured op in place: new operands and result types,
/// payload regenerated by the op's region builder (which extends
/// mixed-precision operands). Restores the op and fails when the result is
/// inconsistent.
LogicalResult rebuildNamedOpInPlace(OpBuilder &b, linalg::LinalgOp op,
                                    ValueRange inputs, ValueRange inits,
                                    RetypeVerifier &verifier) {
  SmallVector<Value> oldOperands(op->getOperands());
  SmallVector<Type> oldTypes(op->getResultTypes());
  setStructuredOperands(op, inputs, inits);

  // Fast path: all float operands now share one element type and the
  // payload computes in one float type (the usual f32 payload going to
  // f16): the region builder would produce the same payload, so retype the
  // block arguments and results where they are.
  FloatType uniform;
  bool isUniform = true;
  for (Value v : op->getOperands()) {
    if (!isAutocastFloat(v.getType()))
      continue;
    auto elem = cast<FloatType>(getElementTypeOrSelf(v.getType()));
    isUniform &= !uniform || uniform == elem;
    uniform = elem;
  }
  Block *payload = op.getBlock();
  auto payloadIsUniform = [&] {
    Type seen;
    auto check = [&](Type t) {
      if (!isa<FloatType>(t))
        return true;
      if (!isAutocastFloat(t) || (seen && seen != t))
        return false;
      seen = t;
      return true;
    };
    for (BlockArgument arg : payload->getArguments())
      if (!check(arg.getType()))
        return false;
    for (Operation &inner : *payload)
      if (inner.getNumRegions() || isa<arith::ConstantOp>(inner) ||
          !llvm::all_of(inner.getResultTypes(), check))
        return false;
    return true;
  };
  if (uniform && isUniform && payloadIsUniform()) {
    SmallVector<std::pair<Value, Type>> retyped;
    auto retype = [&](Value v) {
      if (!isAutocastFloat(v.getType()))
        return;
      retyped.emplace_back(v, v.getType());
      v.setType(uniform);
    };
    for (BlockArgument arg : payload->getArguments())
      retype(arg);
    for (Operation &inner : *payload)
      for (OpResult result : inner.getResults())
        retype(result);
    if (succeeded(verifier.verify(op)))
      return success();
    // Not expected; undo, and let the region builder below rebuild the
    // payload from scratch.
    for (auto [value, type] : retyped)
      value.setType(type);
  }

  Region &region = op->getRegion(0);
  Block *oldBody = &region.front();
  region.getBlocks().remove(oldBody);
  SmallVector<Type> argTypes;
  SmallVector<Location> argLocs;
  for (Value v : op->getOperands()) {
    argTypes.push_back(getElementTypeOrSelf(v.getType()));
    argLocs.push_back(v.getLoc());
  }
  OpBuilder::InsertionGuard guard(b);
  Block *body = b.createBlock(&region, region.end(), argTypes, argLocs);
  ImplicitLocOpBuilder ib(op->getLoc(), b);
  ib.setInsertionPointToStart(body);
  op.getRegionBuilder()(ib, *body, op->getAttrs(),
                        [&] { return op->emitError(); });
  if (succeeded(verifier.verify(op))) {
    oldBody->dropAllReferences();
    delete oldBody;
    return success();
  }
  body->dropAllReferences();
  body->erase();
  region.push_back(oldBody);
  op->setOperands(oldOperands);
  for (auto [result, type] : llvm::zip(op->getResults(), oldTypes))
    result.setType(type);
  return failure();
}
} // namespace

Operation *mlir::amp::rebuildStructuredOp(OpBuilder &b, linalg::LinalgOp op,
                                          ValueRange inputs, ValueRange inits,
                                          FloatType payloadType, CastFn castTo,
                                          RetypeVerifier &verifier) {
  if (op.getRegionBuilder())
    return succeeded(rebuildNamedOpInPlace(b, op, inputs, inits, verifier))
               ? op.getOperation()
               : nullptr;

  // User payload: rebuilt on a clone, so that a failure leaves `op` intact.
  Operation *newOp = b.clone(*op);
  auto newLinalg = cast<linalg::LinalgOp>(newOp);
  setStructuredOperands(newLinalg, inputs, inits);

  Block *body = newLinalg.getBlock();
  {
    DenseMap<Operation *, FloatType> explicitConversions =
        getExplicitConversions(*body);
    // User payload: block arguments follow their operands.
    for (OpOperand &operand : newOp->getOpOperands()) {
      BlockArgument arg = newLinalg.getMatchingBlockArgument(&operand);
      if (arg && isAutocastFloat(arg.getType()))
        arg.setType(getElementTypeOrSelf(operand.get().getType()));
    }
    b.setInsertionPoint(newOp);
    if (failed(retypePayload(newOp, *body, payloadType, castTo,
                             explicitConversions))) {
      newOp->erase();
      return nullptr;
    }
    // Results of the payload go to inits of their own element type.
    auto yield = cast<linalg::YieldOp>(body->getTerminator());
    OpBuilder yb(yield);
    for (OpOperand &operand : yield->getOpOperands()) {
      Type want =
          getElementTypeOrSelf(inits[operand.getOperandNumber()].getType());
      Value v = operand.get();
      if (v.getType() == want || !isa<FloatType>(want) ||
          !isa<FloatType>(v.getType()))
        continue;
      operand.set(
          convertScalarFloat(yb, yield.getLoc(), v, cast<FloatType>(want)));
    }
  }
  if (failed(verifier.verify(newOp))) {
    newOp->erase();
    return nullptr;
  }
  return newOp;
}

namespace {
/// Retypes the float attributes that must carry the element type.
void retypeAttributes(Operation *op, FloatType compute) {
  if (auto clamp = dyn_cast<tosa::ClampOp>(op)) {
    for (StringRef name : {"min_val", "max_val"}) {
      auto attr = op->getAttrOfType<FloatAttr>(name);
      if (attr && attr.getType() != compute)
        op->setAttr(name,
                    FloatAttr::get(compute,
                                   roundToFloatType(attr.getValue(), compute)));
    }
  }
}

FailureOr<Operation *> retypeStructuredOp(linalg::LinalgOp op,
                                          FloatType compute, CastFn castTo,
                                          RetypeVerifier &verifier) {
  bool changed = false;
  OpBuilder b(op);
  SmallVector<Value> inputs, inits;
  DpsInitRange initRange(op);
  for (OpOperand &operand : op->getOpOperands()) {
    Value v = operand.get();
    if (needsRetype(v, compute)) {
      v = castTo(v, compute, op);
      changed = true;
    }
    (initRange.contains(operand) ? inits : inputs).push_back(v);
  }
  // An operand retyped in place before this op was met (a fill painted low
  // that is also this op's input and init) leaves the payload behind: its
  // block arguments no longer match the operands.
  if (!changed)
    for (OpOperand &operand : op->getOpOperands())
      if (BlockArgument arg = op.getMatchingBlockArgument(&operand))
        changed |=
            isAutocastFloat(operand.get().getType()) &&
            arg.getType() != getElementTypeOrSelf(operand.get().getType());
  // Captured float scalars of another type, or a payload computing in
  // another type, also need a rebuild.
  if (!changed && !op.getRegionBuilder()) {
    op.getBlock()->walk([&](Operation *inner) {
      for (Value v : inner->getOperands())
        if (needsRetype(v, compute))
          changed = true;
      for (Value v : inner->getResults())
        if (needsRetype(v, compute))
          changed = true;
    });
  }
  if (!changed)
    return op.getOperation();
  Operation *newOp =
      rebuildStructuredOp(b, op, inputs, inits, compute, castTo, verifier);
  if (!newOp)
    return failure();
  if (newOp != op.getOperation()) {
    op->replaceAllUsesWith(newOp->getResults());
    op->erase();
  }
  return newOp;
}
} // namespace

/// Dominance is not re-checked (retyping does not move values); checking it
/// would recompute the order of the enclosing block on every call, quadratic
/// in the size of a function.
LogicalResult RetypeVerifier::verify(Operation *op) {
  auto verifyOne = [&](Operation *nested) { return verifiesCached(nested); };
  if (auto linalgOp = getStructuredOp(op))
    return success(structuredOpIsConsistent(linalgOp, verifyOne));
  WalkResult result = op->walk<WalkOrder::PostOrder>([&](Operation *nested) {
    return verifyOne(nested) ? WalkResult::advance() : WalkResult::interrupt();
  });
  return failure(result.wasInterrupted());
}

bool RetypeVerifier::verifiesCached(Operation *op) {
  // Terminators check their operands against their parent (linalg.yield
  // against the structured op's inits), which the key does not describe.
  if (op->getNumRegions() || op->getNumSuccessors() ||
      op->hasTrait<OpTrait::IsTerminator>())
    return verifiesQuietly(op);
  key.clear();
  key.push_back(op->getName().getAsOpaquePointer());
  key.push_back(op->getAttrDictionary().getAsOpaquePointer());
  for (Value v : op->getOperands()) {
    key.push_back(v.getType().getAsOpaquePointer());
    Attribute cst;
    if (Operation *def = v.getDefiningOp();
        def && def->hasTrait<OpTrait::ConstantLike>())
      matchPattern(v, m_Constant(&cst));
    key.push_back(cst.getAsOpaquePointer());
  }
  for (Type t : op->getResultTypes())
    key.push_back(t.getAsOpaquePointer());
  if (verified.count(key))
    return true;
  if (!verifiesQuietly(op))
    return false;
  verified.insert(key);
  return true;
}

FailureOr<Operation *> mlir::amp::retypeOp(Operation *op, FloatType compute,
                                           CastFn castTo,
                                           RetypeVerifier &verifier) {
  if (auto linalgOp = getStructuredOp(op))
    return retypeStructuredOp(linalgOp, compute, castTo, verifier);

  // Nothing to do when no operand or result changes type (and no padding
  // value, for tensor.pad), unless the op also has float values autocast
  // cannot retype (unranked tensors, memrefs, vectors): an operand retyped
  // upstream may no longer match them, so such an op is always verified.
  auto changes = [&](Value v) { return needsRetype(v, compute); };
  auto opaqueFloat = [](Value v) {
    return !isAutocastFloat(v.getType()) &&
           isa<FloatType>(getElementTypeOrSelf(v.getType()));
  };
  bool padChanges = false;
  if (auto pad = dyn_cast<tensor::PadOp>(op))
    padChanges = changes(pad.getBody()->getTerminator()->getOperand(0));
  if (!padChanges && llvm::none_of(op->getOperands(), changes) &&
      llvm::none_of(op->getResults(), changes) &&
      llvm::none_of(op->getOperands(), opaqueFloat) &&
      llvm::none_of(op->getResults(), opaqueFloat))
    return op;

  // In place: remember what to restore if the result does not verify.
  SmallVector<Value> oldOperands(op->getOperands());
  SmallVector<Type> oldResultTypes(op->getResultTypes());
  DictionaryAttr oldAttrs = op->getAttrDictionary();
  for (OpOperand &operand : op->getOpOperands()) {
    Value v = operand.get();
    if (needsRetype(v, compute))
      operand.set(castTo(v, compute, op));
  }
  for (OpResult result : op->getResults())
    if (isAutocastFloat(result.getType()))
      result.setType(withElementType(result.getType(), compute));
  retypeAttributes(op, compute);

  // tensor.pad yields its padding value from a region.
  Operation *padYield = nullptr;
  Value oldPadValue;
  if (auto pad = dyn_cast<tensor::PadOp>(op)) {
    auto yield = cast<tensor::YieldOp>(pad.getBody()->getTerminator());
    Value v = yield.getValue();
    padYield = yield;
    oldPadValue = v;
    if (needsRetype(v, compute)) {
      if (pad->isAncestor(v.getParentRegion()->getParentOp())) {
        OpBuilder yb(yield);
        yield->setOperand(0,
                          convertElementType(yb, yield.getLoc(), v, compute));
      } else {
        yield->setOperand(0, castTo(v, compute, op));
      }
    }
  }

  if (succeeded(verifier.verify(op)))
    return op;
  op->setOperands(oldOperands);
  for (auto [result, type] : llvm::zip(op->getResults(), oldResultTypes))
    result.setType(type);
  op->setAttrs(oldAttrs);
  if (padYield)
    padYield->setOperand(0, oldPadValue);
  return failure();
}
