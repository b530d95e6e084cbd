//===- AmpDialect.cpp - amp dialect ---------------------------------------===//
//
// Dialect registration, constant materialization, the inliner interface
// (calls inside `amp.autocast` regions may be inlined, and amp ops may be
// inlined into callers), and the verifier of the dialect's discardable
// attributes (`amp.autocast` on functions, `amp.policy` on modules, functions
// and autocast ops).
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/Amp.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Transforms/InliningUtils.h"

using namespace mlir;
using namespace mlir::amp;

namespace {
/// Inlining and the amp dialect. An `amp.autocast` region is not isolated
/// from above and runs exactly once, so a call inside it may be replaced by
/// the callee's body: the inlined ops then fall under the region's cast
/// policy, as every op a function called inside `torch.autocast` runs does
/// (the PyTorch front end imports a `with torch.autocast(...)` block as a
/// region around a call of the block's body and inlines it). amp ops carry
/// no state tied to their function, so they may be inlined into callers.
struct AmpInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;

  /// Any region may be inlined into an amp op's region (an `amp.autocast`
  /// body, an `amp.step_if_finite` update).
  bool isLegalToInline(Region *dest, Region *src, bool wouldBeCloned,
                       IRMapping &valueMapping) const final {
    return true;
  }

  /// amp ops (casts, autocast regions, the loss-scaling ops) may be inlined
  /// into any region.
  bool isLegalToInline(Operation *op, Region *dest, bool wouldBeCloned,
                       IRMapping &valueMapping) const final {
    return true;
  }
};
} // namespace

#include "amp/Dialect/Amp/IR/AmpOpsDialect.cpp.inc"

void AmpDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "amp/Dialect/Amp/IR/AmpOps.cpp.inc"
      >();
  registerAttributes();
  addInterfaces<AmpInlinerInterface>();
}

Operation *AmpDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  auto typed = dyn_cast<TypedAttr>(value);
  if (!typed || typed.getType() != type)
    return nullptr;
  return arith::ConstantOp::create(builder, loc, type, typed);
}

LogicalResult AmpDialect::verifyOperationAttribute(Operation *op,
                                                   NamedAttribute attr) {
  if (attr.getName() == getAutocastAttrName()) {
    if (!isa<FunctionOpInterface>(op))
      return op->emitError()
             << "'" << getAutocastAttrName()
             << "' decorates functions only; use the amp.autocast op to mark "
                "a region inside other ops";
    if (!isa<AutocastAttr>(attr.getValue()))
      return op->emitError() << "'" << getAutocastAttrName()
                             << "' must be an #amp.autocast<...> attribute";
    return success();
  }
  if (attr.getName() == getPolicyAttrName()) {
    if (!isa<ModuleOp, FunctionOpInterface, AutocastOp>(op))
      return op->emitError()
             << "'" << getPolicyAttrName()
             << "' is valid on a module, a function or an amp.autocast op";
    if (!isa<PolicyAttr>(attr.getValue()))
      return op->emitError() << "'" << getPolicyAttrName()
                             << "' must be an #amp.policy<...> attribute";
    return success();
  }
  if (attr.getName() == getComputeTypeAttrName()) {
    auto type = dyn_cast<TypeAttr>(attr.getValue());
    if (!type || !isa<FloatType>(type.getValue()))
      return op->emitError()
             << "'" << getComputeTypeAttrName() << "' must be a float type";
    return success();
  }
  if (attr.getName() == getMayWriteArgsAttrName()) {
    auto func = dyn_cast<FunctionOpInterface>(op);
    auto args = dyn_cast<DenseI64ArrayAttr>(attr.getValue());
    if (!func || !args)
      return op->emitError() << "'" << getMayWriteArgsAttrName()
                             << "' must be an array<i64: ...> of argument "
                                "numbers on a function";
    for (int64_t i : args.asArrayRef())
      if (i < 0 || i >= static_cast<int64_t>(func.getNumArguments()))
        return op->emitError()
               << "'" << getMayWriteArgsAttrName() << "': argument " << i
               << " out of range (the function has " << func.getNumArguments()
               << ")";
    return success();
  }
  if (attr.getName() == getQueuedVariantAttrName()) {
    if (!isa<FunctionOpInterface>(op) ||
        !isa<FlatSymbolRefAttr>(attr.getValue()))
      return op->emitError() << "'" << getQueuedVariantAttrName()
                             << "' must be a symbol (@name) on a function";
    return success();
  }
  return op->emitError() << "unknown amp dialect attribute '"
                         << attr.getName().getValue() << "'";
}
