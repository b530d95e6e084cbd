//===- ScopeRewriter.cpp - the per-op rewrite of amp-autocast -------------===//
//
// ScopeRewriter's walk over a scope: it meets the ops in program order,
// decides each one's compute type from the cast policy (graph mode reads
// the colours painted beforehand), retypes it, gives keep ops and
// terminators the types they were written with. See ScopeRewriter.h.
//
//===----------------------------------------------------------------------===//

#include "ScopeRewriter.h"

#include "amp/Dialect/Amp/IR/Amp.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::autocast;

LogicalResult ScopeRewriter::run() {
  if (mode == Mode::graph)
    paintGraph();
  if (failed(processRegion(*scope.region)))
    return failure();
  if (mode == Mode::graph)
    carryLowValues();
  return success();
}

void ScopeRewriter::collect(Region &region, SmallVectorImpl<Operation *> &ops,
                            SmallVectorImpl<CastCategory> &cats) {
  for (Block *block : getBlocksInDominanceOrder(region))
    for (Operation &op : *block) {
      if (isa<AutocastOp>(op) || isSourceOp(&op) ||
          op.hasTrait<OpTrait::IsTerminator>())
        continue;
      if (isStructural(&op)) {
        for (Region &r : op.getRegions())
          collect(r, ops, cats);
        continue;
      }
      if (std::optional<CastCategory> cat = policy.classify(&op)) {
        ops.push_back(&op);
        cats.push_back(*cat);
      }
    }
}

void ScopeRewriter::paintGraph() {
  SmallVector<Operation *> ops;
  SmallVector<CastCategory> cats;
  collect(*scope.region, ops, cats);
  Operation *terminator = scope.region->front().getTerminator();
  paintedColours = paintOps(ops, cats, terminator, scope.region);
  paintedOps = std::move(ops);
  paintedCategories = std::move(cats);
}

std::optional<std::pair<CastCategory, Paint>>
ScopeRewriter::findDecision(Operation *op) {
  if (nextPainted == paintedOps.size() || paintedOps[nextPainted] != op)
    return std::nullopt;
  size_t i = nextPainted++;
  return std::make_pair(paintedCategories[i], paintedColours[i]);
}

Attribute ScopeRewriter::getConstantValue(Value v) {
  Operation *def = v.getDefiningOp();
  if (!def || !def->hasTrait<OpTrait::ConstantLike>())
    return {};
  auto [it, inserted] = constantValues.try_emplace(v);
  if (inserted)
    matchPattern(v, m_Constant(&it->second));
  return it->second;
}

bool ScopeRewriter::isSourceOp(Operation *op) {
  if (!isa<linalg::FillOp>(op))
    return isSource(op);
  auto [it, inserted] = sourceFills.try_emplace(op, false);
  if (inserted)
    it->second = isSource(op);
  return it->second;
}

LogicalResult ScopeRewriter::processRegion(Region &region) {
  for (Block *block : getBlocksInDominanceOrder(region))
    for (Operation &op : llvm::make_early_inc_range(*block))
      if (failed(processOp(&op)))
        return failure();
  return success();
}

void ScopeRewriter::noteRegions(Operation *op) {
  if (op->getNumRegions())
    unprocessedRegionOps.push_back(op);
}

LogicalResult ScopeRewriter::processOp(Operation *op) {
  if (isa<AutocastOp>(op)) {
    noteRegions(op); // a scope of its own
    return success();
  }
  if (isSourceOp(op))
    return success(); // a fill's payload is a yield
  if (op->hasTrait<OpTrait::IsTerminator>())
    return processTerminator(op);
  if (isStructural(op)) {
    if (mode == Mode::graph && isa<scf::ForOp, scf::IfOp>(op))
      carryCandidates.push_back(op);
    if (mode == Mode::eager && enabled)
      if (auto forOp = dyn_cast<scf::ForOp>(op))
        return processEagerLoop(forOp);
    castEntryOperands(op);
    for (Region &region : op->getRegions())
      if (failed(processRegion(region)))
        return failure();
    return success();
  }
  // Graph mode classified the op already while painting.
  std::optional<CastCategory> cat;
  Paint paint = Paint::none;
  if (mode == Mode::graph) {
    if (std::optional<std::pair<CastCategory, Paint>> decision =
            findDecision(op))
      std::tie(cat, paint) = *decision;
  } else {
    cat = policy.classify(op);
  }
  if (!cat) {
    noteRegions(op);
    return success();
  }
  if (*cat == CastCategory::keep)
    return processKeep(op);
  return processDecided(op, *cat, paint);
}

FloatType ScopeRewriter::decideComputeType(Operation *op, CastCategory cat,
                                           Paint paint) {
  if (!enabled)
    return widestOf(getDataOperands(op)); // policy off: input types rule
  if (cat == CastCategory::lower)
    return low;
  if (cat == CastCategory::fp32)
    return f32;
  if (cat == CastCategory::promote || mode == Mode::eager)
    return widestOf(getDataOperands(op));
  // Graph mode, infer and clear: the painted colour; unpainted ops run in
  // f32 (they are not between low ops).
  return paint == Paint::low ? low : f32;
}

LogicalResult ScopeRewriter::processDecided(Operation *op, CastCategory cat,
                                            Paint paint) {
  FloatType compute = decideComputeType(op, cat, paint);
  if (!compute) {
    noteRegions(op);
    return success(); // no float data: nothing to decide
  }
  if (compute != f32) {
    auto constantOf = [&](Value v) { return getConstantValue(v); };
    if (Attribute bad = findNonFittingConstant(op, compute, constantOf)) {
      emitRemark(op->getLoc())
          << "stays f32: constant " << bad << " does not fit in " << compute;
      ++counters.keptF32;
      compute = f32;
    }
  }
  SmallVector<Type> oldTypes(op->getResultTypes());
  auto castFn = [&](Value v, FloatType elem, Operation *user) {
    return castTo(v, elem, user);
  };
  FailureOr<Operation *> newOp = retypeOp(op, compute, castFn, verifier);
  if (failed(newOp) && compute != f32) {
    // Only a lower op is asked for low precision by the policy itself; an
    // infer or clear op painted low just stays f32.
    if (cat == CastCategory::lower)
      emitWarning(op->getLoc())
          << "'" << op->getName() << "' cannot be retyped to " << compute
          << " as the cast policy asks; it stays f32";
    ++counters.keptF32;
    compute = f32;
    newOp = retypeOp(op, compute, castFn, verifier);
  }
  if (failed(newOp)) {
    emitWarning(op->getLoc())
        << "'" << op->getName()
        << "' cannot be retyped; it keeps the types it was written with";
    return processKeep(op);
  }
  noteRegions(*newOp);
  if ((*newOp)->getNumRegions() &&
      !isa<linalg::LinalgOp, tensor::PadOp>(*newOp))
    restoreCapturedTypes(*newOp);
  for (auto [result, type] : llvm::zip((*newOp)->getResults(), oldTypes))
    if (result.getType() != type)
      originalTypes.record(result, type);
  if (annotate)
    (*newOp)->setAttr(AmpDialect::getComputeTypeAttrName(),
                      TypeAttr::get(compute));
  if (compute.isF16())
    ++counters.opsF16;
  else if (compute.isBF16())
    ++counters.opsBF16;
  else
    ++counters.opsF32;
  return success();
}

LogicalResult ScopeRewriter::processKeep(Operation *op) {
  noteRegions(op);
  for (OpOperand &operand : op->getOpOperands())
    restoreOriginalType(operand, op);
  restoreCapturedTypes(op);
  return success();
}

void ScopeRewriter::restoreOriginalType(OpOperand &operand, Operation *user) {
  Value v = operand.get();
  Type original = originalTypes.lookup(v);
  if (!original || original == v.getType())
    return;
  operand.set(castTo(v, cast<FloatType>(getElementTypeOrSelf(original)), user));
}

void ScopeRewriter::restoreCapturedTypes(Operation *op) {
  for (Region &region : op->getRegions())
    region.walk([&](Operation *nested) {
      for (OpOperand &operand : nested->getOpOperands())
        if (!op->isAncestor(operand.get().getParentRegion()->getParentOp()))
          restoreOriginalType(operand, op);
    });
}

void ScopeRewriter::castEntryOperands(Operation *op) {
  auto branch = dyn_cast<RegionBranchOpInterface>(op);
  if (!branch)
    return;
  SmallVector<RegionSuccessor> successors;
  branch.getSuccessorRegions(RegionBranchPoint::parent(), successors);
  for (RegionSuccessor &successor : successors) {
    OperandRange operands = branch.getEntrySuccessorOperands(successor);
    if (operands.empty())
      continue;
    unsigned begin = operands.getBeginOperandIndex();
    for (auto [i, pair] :
         llvm::enumerate(llvm::zip(operands, successor.getSuccessorInputs()))) {
      auto [value, input] = pair;
      if (value.getType() != input.getType())
        op->setOperand(begin + i, castToType(value, input.getType(), op));
    }
  }
}

LogicalResult ScopeRewriter::processTerminator(Operation *op) {
  if (isa<func::ReturnOp>(op) && op->getParentOp() == scope.owner) {
    auto func = cast<FunctionOpInterface>(scope.owner);
    for (auto [i, type] : llvm::enumerate(func.getResultTypes()))
      if (op->getOperand(i).getType() != type)
        op->setOperand(i, castToType(op->getOperand(i), type, op));
    return success();
  }
  auto term = dyn_cast<RegionBranchTerminatorOpInterface>(op);
  if (!term) {
    if (llvm::any_of(op->getOperandTypes(), isAutocastFloat))
      return processKeep(op);
    return success();
  }
  SmallVector<RegionSuccessor> successors;
  SmallVector<Attribute> noConstants(op->getNumOperands(), Attribute());
  term.getSuccessorRegions(noConstants, successors);
  for (RegionSuccessor &successor : successors) {
    MutableOperandRange operands = term.getMutableSuccessorOperands(successor);
    for (auto [i, input] : llvm::enumerate(successor.getSuccessorInputs())) {
      OpOperand &operand = operands[i];
      if (operand.get().getType() != input.getType())
        operand.set(castToType(operand.get(), input.getType(), op));
    }
  }
  return success();
}
