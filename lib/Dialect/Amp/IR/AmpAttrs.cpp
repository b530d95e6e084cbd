//===- AmpAttrs.cpp - amp dialect attributes ------------------------------===//
//
// Verifiers and helpers of `#amp.autocast` and `#amp.policy`.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/Amp.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
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

namespace {
constexpr StringLiteral kAutocastKeys =
    "device_type, dtype, enabled, cache_enabled";
constexpr StringLiteral kPolicyKeys =
    "lower, fp32, promote, infer, clear, keep";

/// Parses `true` or `false` for `key`, with a plain-words error.
ParseResult parseBool(AsmParser &parser, StringRef key, bool &value) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef word;
  if (failed(parser.parseOptionalKeyword(&word)) ||
      (word != "true" && word != "false"))
    return parser.emitError(loc)
           << "#amp.autocast: " << key << " must be true or false";
  value = word == "true";
  return success();
}

/// Parses `< key = value (, key = value)* >` (or `<>`), calling
/// `parseValue(key, keyLoc)` for each key; unknown keys are reported by it.
ParseResult
parseKeyValues(AsmParser &parser, StringRef attrName, StringRef validKeys,
               function_ref<ParseResult(StringRef, SMLoc)> parseValue) {
  if (parser.parseLess())
    return failure();
  if (succeeded(parser.parseOptionalGreater()))
    return success();
  llvm::StringSet<> seen;
  do {
    SMLoc keyLoc = parser.getCurrentLocation();
    StringRef key;
    if (failed(parser.parseOptionalKeyword(&key)))
      return parser.emitError(keyLoc)
             << attrName << ": expected a key (" << validKeys << ")";
    if (!seen.insert(key).second)
      return parser.emitError(keyLoc)
             << attrName << ": key '" << key << "' is given twice";
    if (parser.parseEqual() || parseValue(key, keyLoc))
      return failure();
  } while (succeeded(parser.parseOptionalComma()));
  if (failed(parser.parseOptionalGreater()))
    return parser.emitError(parser.getCurrentLocation())
           << attrName << ": expected ',' or '>' after a value";
  return success();
}
} // namespace

Attribute AutocastAttr::parse(AsmParser &parser, Type) {
  SMLoc start = parser.getCurrentLocation();
  std::optional<DeviceType> device;
  Type dtype;
  bool enabled = true, cacheEnabled = true;
  auto parseValue = [&](StringRef key, SMLoc keyLoc) -> ParseResult {
    SMLoc loc = parser.getCurrentLocation();
    if (key == "device_type") {
      StringRef word;
      if (succeeded(parser.parseOptionalKeyword(&word)))
        device = symbolizeDeviceType(word);
      if (!device)
        return parser.emitError(loc)
               << "#amp.autocast: device_type must be cuda or cpu"
               << (word.empty() ? "" : (", got '" + word + "'").str());
      return success();
    }
    if (key == "dtype") {
      // The verifier names a type other than f16/bf16.
      return parser.parseType(dtype);
    }
    if (key == "enabled")
      return parseBool(parser, key, enabled);
    if (key == "cache_enabled")
      return parseBool(parser, key, cacheEnabled);
    return parser.emitError(keyLoc) << "#amp.autocast: unknown key '" << key
                                    << "'; valid keys: " << kAutocastKeys;
  };
  if (parseKeyValues(parser, "#amp.autocast", kAutocastKeys, parseValue))
    return {};
  if (!device) {
    parser.emitError(start)
        << "#amp.autocast: device_type (cuda or cpu) is required";
    return {};
  }
  return parser.getChecked<AutocastAttr>(parser.getContext(), *device, dtype,
                                         enabled, cacheEnabled);
}

void AutocastAttr::print(AsmPrinter &printer) const {
  printer << "<device_type = " << stringifyDeviceType(getDeviceType());
  if (getDtype())
    printer << ", dtype = " << getDtype();
  if (!getEnabled())
    printer << ", enabled = false";
  if (!getCacheEnabled())
    printer << ", cache_enabled = false";
  printer << ">";
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

Attribute PolicyAttr::parse(AsmParser &parser, Type) {
  SmallVector<ArrayAttr, 6> lists(6);
  StringRef keys[] = {"lower", "fp32", "promote", "infer", "clear", "keep"};
  auto parseValue = [&](StringRef key, SMLoc keyLoc) -> ParseResult {
    auto *it = llvm::find(keys, key);
    if (it == std::end(keys))
      return parser.emitError(keyLoc)
             << "#amp.policy: unknown category '" << key
             << "'; valid categories: " << kPolicyKeys;
    SMLoc loc = parser.getCurrentLocation();
    Attribute value;
    OptionalParseResult parsed = parser.parseOptionalAttribute(value);
    if (parsed.has_value() && failed(*parsed))
      return failure();
    auto list = dyn_cast_or_null<ArrayAttr>(value);
    if (!list || !llvm::all_of(list, llvm::IsaPred<StringAttr>))
      return parser.emitError(loc)
             << "#amp.policy: " << key
             << " must be a list of op names in quotes, e.g. " << key
             << " = [\"math.exp\"]";
    lists[it - std::begin(keys)] = list;
    return success();
  };
  if (parseKeyValues(parser, "#amp.policy", kPolicyKeys, parseValue))
    return {};
  return parser.getChecked<PolicyAttr>(parser.getContext(), lists[0], lists[1],
                                       lists[2], lists[3], lists[4], lists[5]);
}

void PolicyAttr::print(AsmPrinter &printer) const {
  printer << "<";
  StringRef keys[] = {"lower", "fp32", "promote", "infer", "clear", "keep"};
  ArrayAttr lists[] = {getLower(), getFp32(),  getPromote(),
                       getInfer(), getClear(), getKeep()};
  bool first = true;
  for (auto [key, list] : llvm::zip(keys, lists)) {
    if (!list)
      continue;
    printer << (first ? "" : ", ") << key << " = " << list;
    first = false;
  }
  printer << ">";
}

std::optional<StringRef> mlir::amp::whyNeverDecided(OperationName name) {
  if (name.hasTrait<OpTrait::IsTerminator>())
    return StringRef("a terminator");
  StringRef full = name.getStringRef();
  if (llvm::is_contained({"scf.for", "scf.while", "scf.if",
                          "scf.execute_region", "scf.index_switch"},
                         full))
    return StringRef("control flow whose body autocast processes op by op");
  if (name.hasTrait<OpTrait::SymbolTable>() ||
      name.hasInterface<FunctionOpInterface>())
    return StringRef("a module or function");
  if (name.hasTrait<OpTrait::ConstantLike>() || full == "tensor.empty")
    return StringRef("a constant, converted where its users need it");
  if (full == "amp.autocast" || full == "amp.cast")
    return StringRef("an amp op");
  return std::nullopt;
}

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
      std::optional<RegisteredOperationName> op =
          RegisteredOperationName::lookup(name.getValue(), ctx);
      if (!op)
        return emitError() << "policy names unknown op '" << name.getValue()
                           << "'";
      if (std::optional<StringRef> why = whyNeverDecided(*op))
        return emitError() << "policy names op '" << name.getValue()
                           << "', which the cast policy never decides (" << *why
                           << "): naming it has no effect";
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
