//===- AmpAttrs.cpp - amp dialect attributes ------------------------------===//
//
// Verifiers and helpers of `#amp.autocast` and `#amp.policy`.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/Amp.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::amp;

#include "amp/Dialect/Amp/IR/AmpEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "amp/Dialect/Amp/IR/AmpAttrs.cpp.inc"

void AmpDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "amp/Dialect/Amp/IR/AmpAttrs.cpp.inc"
      >();
}

FloatType mlir::amp::getDefaultLowerPrecisionType(MLIRContext *ctx,
                                                  DeviceType device) {
  switch (device) {
  case DeviceType::cuda:
    return Float16Type::get(ctx);
  case DeviceType::cpu:
    return BFloat16Type::get(ctx);
  }
  llvm_unreachable("unknown device type");
}

APFloat mlir::amp::roundToFloatType(APFloat value, FloatType type) {
  bool losesInfo = false;
  (void)value.convert(type.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                      &losesInfo);
  return value;
}

bool mlir::amp::isExactFloatConversion(FloatType from, FloatType to) {
  if (from == to)
    return true;
  // A format is contained in another when it has no more mantissa bits and
  // no wider exponent range. This orders f16, bf16 < f32 < f64; f16 and bf16
  // are incomparable.
  const llvm::fltSemantics &src = from.getFloatSemantics();
  const llvm::fltSemantics &dst = to.getFloatSemantics();
  return llvm::APFloat::isRepresentableBy(src, dst);
}

Type mlir::amp::withElementType(Type type, Type elem) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    return shaped.clone(elem);
  return elem;
}

//===----------------------------------------------------------------------===//
// AutocastAttr
//===----------------------------------------------------------------------===//

LogicalResult AutocastAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   DeviceType deviceType, Type dtype,
                                   bool enabled, bool cacheEnabled) {
  if (dtype && !isa<Float16Type, BFloat16Type>(dtype))
    return emitError() << "autocast dtype must be f16 or bf16, got " << dtype;
  return success();
}

FloatType AutocastAttr::getLowerPrecisionType() const {
  if (Type dtype = getDtype())
    return cast<FloatType>(dtype);
  return getDefaultLowerPrecisionType(getContext(), getDeviceType());
}

//===----------------------------------------------------------------------===//
// PolicyAttr
//===----------------------------------------------------------------------===//

namespace {
/// The lists of a policy with their category, in declaration order.
SmallVector<std::pair<CastCategory, ArrayAttr>>
getPolicyLists(ArrayAttr lower, ArrayAttr fp32, ArrayAttr promote,
               ArrayAttr infer, ArrayAttr clear, ArrayAttr keep) {
  return {{CastCategory::lower, lower},     {CastCategory::fp32, fp32},
          {CastCategory::promote, promote}, {CastCategory::infer, infer},
          {CastCategory::clear, clear},     {CastCategory::keep, keep}};
}
} // namespace

LogicalResult PolicyAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayAttr lower, ArrayAttr fp32,
                                 ArrayAttr promote, ArrayAttr infer,
                                 ArrayAttr clear, ArrayAttr keep) {
  llvm::StringMap<CastCategory> seen;
  for (auto [category, list] :
       getPolicyLists(lower, fp32, promote, infer, clear, keep)) {
    if (!list)
      continue;
    MLIRContext *ctx = list.getContext();
    for (Attribute entry : list) {
      auto name = dyn_cast<StringAttr>(entry);
      if (!name)
        return emitError() << "policy entries must be op names (strings), got "
                           << entry;
      auto [dialectName, opName] = name.getValue().split('.');
      if (opName.empty())
        return emitError() << "policy entry '" << name.getValue()
                           << "' is not a qualified op name (dialect.op)";
      // Load the dialect from the registry if needed so that its ops can be
      // checked; a dialect that is neither loaded nor registered is unknown.
      if (!ctx->getOrLoadDialect(dialectName))
        return emitError() << "policy names op '" << name.getValue()
                           << "' of unknown dialect '" << dialectName << "'";
      if (!RegisteredOperationName::lookup(name.getValue(), ctx))
        return emitError() << "policy names unknown op '" << name.getValue()
                           << "'";
      auto [it, inserted] = seen.try_emplace(name.getValue(), category);
      if (!inserted)
        return emitError() << "policy puts op '" << name.getValue()
                           << "' in two categories ("
                           << stringifyCastCategory(it->second) << " and "
                           << stringifyCastCategory(category) << ")";
    }
  }
  return success();
}

std::optional<CastCategory> PolicyAttr::lookup(StringRef opName) const {
  for (auto [category, list] :
       getPolicyLists(getLower(), getFp32(), getPromote(), getInfer(),
                      getClear(), getKeep())) {
    if (!list)
      continue;
    for (Attribute entry : list)
      if (cast<StringAttr>(entry).getValue() == opName)
        return category;
  }
  return std::nullopt;
}
