//===- Decision.cpp - what amp-autocast decides per op --------------------===//
//
// See Decision.h.
//
//===----------------------------------------------------------------------===//

#include "Decision.h"

#include "amp/Dialect/Amp/Policy/CastPolicy.h"

#include "../Retype.h"
#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::autocast;

namespace {

/// Whether `name` is one of `Ops`.
template <typename... Ops> bool isOneOf(OperationName name) {
  return ((name.getTypeID() == TypeID::get<Ops>()) || ...);
}

/// Zero points and pad constants of tosa ops (one-element tensors): they
/// carry none of the op's input data and have no counterpart in PyTorch, so
/// they do not decide the widest input type. Retyping casts them with the
/// op.
bool isTosaZeroPointOrPadConst(OpOperand &operand) {
  return TypeSwitch<Operation *, bool>(operand.getOwner())
      .Case([&](tosa::NegateOp op) {
        return &operand == &op.getInput1ZpMutable() ||
               &operand == &op.getOutputZpMutable();
      })
      .Case([&](tosa::AvgPool2dOp op) {
        return &operand == &op.getInputZpMutable() ||
               &operand == &op.getOutputZpMutable();
      })
      .Case(
          [&](tosa::PadOp op) { return &operand == &op.getPadConstMutable(); })
      .Case([&](tosa::MatMulOp op) {
        return &operand == &op.getAZpMutable() ||
               &operand == &op.getBZpMutable();
      })
      .Case<tosa::Conv2DOp, tosa::Conv3DOp, tosa::DepthwiseConv2DOp,
            tosa::TransposeConv2DOp>([&](auto op) {
        return &operand == &op.getInputZpMutable() ||
               &operand == &op.getWeightZpMutable();
      })
      .Default(false);
}

} // namespace

bool mlir::amp::autocast::isSource(Operation *op) {
  if (isa<arith::ConstantOp, tosa::ConstOp, tensor::EmptyOp>(op))
    return true;
  auto fill = dyn_cast<linalg::FillOp>(op);
  if (!fill || !isRematerializableInit(fill.getResult(0)))
    return false;
  return llvm::all_of(fill.getResult(0).getUses(), [](OpOperand &use) {
    auto dps = dyn_cast<DestinationStyleOpInterface>(use.getOwner());
    return dps && DpsInitRange(dps).contains(use);
  });
}

SmallVector<Block *>
mlir::amp::autocast::getBlocksInDominanceOrder(Region &region) {
  if (region.hasOneBlock())
    return {&region.front()};
  return llvm::to_vector(getBlocksSortedByDominance(region));
}

bool mlir::amp::autocast::isStructural(OperationName name) {
  return isOneOf<scf::ForOp, scf::WhileOp, scf::IfOp, scf::ExecuteRegionOp,
                 scf::IndexSwitchOp>(name);
}

SmallVector<Value> mlir::amp::autocast::getDataOperands(Operation *op) {
  SmallVector<Value> tensors, scalars;
  auto linalgOp = getStructuredOp(op);
  std::optional<DpsInitRange> inits;
  if (linalgOp)
    inits.emplace(cast<DestinationStyleOpInterface>(op));
  for (OpOperand &operand : op->getOpOperands()) {
    Value v = operand.get();
    if (!isAutocastFloat(v.getType()) || v.getDefiningOp<tensor::EmptyOp>() ||
        isTosaZeroPointOrPadConst(operand))
      continue;
    if (inits && inits->contains(operand)) {
      if (!linalgOp.payloadUsesValueFromOperand(&operand) ||
          isRematerializableInit(v))
        continue;
    }
    (isa<ShapedType>(v.getType()) ? tensors : scalars).push_back(v);
  }
  return tensors.empty() ? scalars : tensors;
}

FloatType mlir::amp::autocast::widestOf(ArrayRef<Value> values) {
  FloatType widest;
  for (Value v : values)
    widest = widestFloatType(
        widest, cast<FloatType>(getElementTypeOrSelf(v.getType())));
  return widest;
}

Attribute mlir::amp::autocast::findNonFittingConstant(
    Operation *op, FloatType type, function_ref<Attribute(Value)> constantOf) {
  auto matchConstant = [](Value v) {
    Attribute attr;
    matchPattern(v, m_Constant(&attr));
    return attr;
  };
  auto check = [&](Value v, auto lookup) -> Attribute {
    if (!isAutocastFloat(v.getType()))
      return {};
    if (Attribute attr = lookup(v))
      return constantFitsIn(attr, type) ? Attribute() : attr;
    if (auto fill = v.getDefiningOp<linalg::FillOp>())
      if (Attribute attr = lookup(fill.value()))
        if (!constantFitsIn(attr, type))
          return attr;
    return {};
  };
  for (Value v : op->getOperands())
    if (Attribute bad = check(v, constantOf))
      return bad;
  Attribute bad;
  for (Region &region : op->getRegions())
    region.walk([&](Operation *inner) {
      for (Value v : inner->getOperands())
        if (!bad)
          bad = check(v, matchConstant);
      return bad ? WalkResult::interrupt() : WalkResult::advance();
    });
  return bad;
}
