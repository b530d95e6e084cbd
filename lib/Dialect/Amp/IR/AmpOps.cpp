//===- AmpOps.cpp - amp dialect operations --------------------------------===//
//
// `amp.autocast` (custom syntax, verifier, region-branch interface),
// `amp.yield`, `amp.cast` (verifier and folders) and the dynamic
// loss-scaling ops (verifiers, result types).
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/Amp.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::amp;

//===----------------------------------------------------------------------===//
// AutocastOp
//===----------------------------------------------------------------------===//

void AutocastOp::build(OpBuilder &builder, OperationState &state,
                       TypeRange resultTypes, AutocastAttr config) {
  state.addTypes(resultTypes);
  state.addAttribute(getConfigAttrName(state.name), config);
  Region *body = state.addRegion();
  body->push_back(new Block());
  if (resultTypes.empty()) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToEnd(&body->front());
    YieldOp::create(builder, state.location);
  }
}

YieldOp AutocastOp::getYield() {
  return cast<YieldOp>(getBodyBlock()->getTerminator());
}

namespace {
/// Parses `(true)` / `(false)` after a keyword.
ParseResult parseParenBool(OpAsmParser &parser, bool &value) {
  StringRef word;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseLParen() || parser.parseKeyword(&word) ||
      parser.parseRParen())
    return failure();
  if (word != "true" && word != "false")
    return parser.emitError(loc, "expected 'true' or 'false'");
  value = word == "true";
  return success();
}
} // namespace

// amp.autocast device_type(cuda) [dtype(T)] [enabled(B)] [cache_enabled(B)]
//              [-> types] [attributes {...}] region
ParseResult AutocastOp::parse(OpAsmParser &parser, OperationState &result) {
  MLIRContext *ctx = parser.getContext();
  SMLoc opLoc = parser.getCurrentLocation();
  std::optional<DeviceType> device;
  Type dtype;
  bool enabled = true, cacheEnabled = true;
  llvm::StringSet<> seen;

  StringRef keyword;
  while (true) {
    SMLoc kwLoc = parser.getCurrentLocation();
    if (failed(parser.parseOptionalKeyword(
            &keyword, {"device_type", "dtype", "enabled", "cache_enabled"})))
      break;
    if (!seen.insert(keyword).second)
      return parser.emitError(kwLoc) << "'" << keyword << "' given twice";
    if (keyword == "device_type") {
      StringRef name;
      SMLoc nameLoc;
      if (parser.parseLParen())
        return failure();
      nameLoc = parser.getCurrentLocation();
      if (parser.parseKeyword(&name) || parser.parseRParen())
        return failure();
      device = symbolizeDeviceType(name);
      if (!device)
        return parser.emitError(nameLoc)
               << "unknown autocast device type '" << name
               << "', expected 'cuda' or 'cpu'";
    } else if (keyword == "dtype") {
      if (parser.parseLParen() || parser.parseType(dtype) ||
          parser.parseRParen())
        return failure();
    } else if (keyword == "enabled") {
      if (parseParenBool(parser, enabled))
        return failure();
    } else if (parseParenBool(parser, cacheEnabled)) {
      return failure();
    }
  }
  if (!device)
    return parser.emitError(opLoc, "expected 'device_type(cuda|cpu)'");
  // The device default is not stored, so that `dtype(f16)` on cuda and no
  // dtype at all are the same op.
  if (dtype && dtype == getDefaultLowerPrecisionType(ctx, *device))
    dtype = Type();
  auto config =
      AutocastAttr::getChecked([&] { return parser.emitError(opLoc); }, ctx,
                               *device, dtype, enabled, cacheEnabled);
  if (!config)
    return failure();
  result.addAttribute(getConfigAttrName(result.name), config);

  if (parser.parseOptionalArrowTypeList(result.types) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();

  Region *body = result.addRegion();
  if (parser.parseRegion(*body, /*arguments=*/{}))
    return failure();
  if (body->empty())
    body->push_back(new Block());
  if (result.types.empty()) {
    OpBuilder builder(ctx);
    AutocastOp::ensureTerminator(*body, builder, result.location);
  }
  return success();
}

void AutocastOp::print(OpAsmPrinter &p) {
  AutocastAttr config = getConfig();
  p << " device_type(" << stringifyDeviceType(config.getDeviceType()) << ")";
  if (Type dtype = config.getDtype();
      dtype && dtype != getDefaultLowerPrecisionType(getContext(),
                                                     config.getDeviceType()))
    p << " dtype(" << dtype << ")";
  if (!config.getEnabled())
    p << " enabled(false)";
  if (!config.getCacheEnabled())
    p << " cache_enabled(false)";
  p.printOptionalArrowTypeList(getResultTypes());
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(),
                                     {getConfigAttrName()});
  p << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/!getResults().empty());
}

LogicalResult AutocastOp::verify() {
  auto yield = dyn_cast<YieldOp>(getBodyBlock()->getTerminator());
  if (!yield)
    return emitOpError("region must end with amp.yield");
  if (yield.getNumOperands() != getNumResults())
    return emitOpError("yields ")
           << yield.getNumOperands() << " values but declares "
           << getNumResults() << " results";
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(yield.getOperandTypes(), getResultTypes()))) {
    auto [yielded, declared] = pair;
    if (yielded != declared)
      return emitOpError("yield operand #")
             << i << " has type " << yielded << " but result #" << i
             << " is declared as " << declared;
  }
  return success();
}

void AutocastOp::getSuccessorRegions(
    RegionBranchPoint point, SmallVectorImpl<RegionSuccessor> &regions) {
  // The body runs exactly once: parent -> body -> parent.
  if (point.isParent()) {
    regions.push_back(RegionSuccessor(&getBody()));
    return;
  }
  regions.push_back(RegionSuccessor(getOperation(), getResults()));
}

void AutocastOp::getRegionInvocationBounds(
    ArrayRef<Attribute> operands, SmallVectorImpl<InvocationBounds> &bounds) {
  bounds.emplace_back(1, 1);
}

void mlir::amp::inlineAutocastRegion(AutocastOp autocast) {
  YieldOp yield = autocast.getYield();
  autocast->replaceAllUsesWith(yield.getOperands());
  yield->erase();
  autocast->getBlock()->getOperations().splice(
      autocast->getIterator(), autocast.getBodyBlock()->getOperations());
  autocast->erase();
}

void mlir::amp::inlineAutocastRegions(Operation *root) {
  // Post-order: inner regions are inlined before the ones around them.
  root->walk([](Operation *op) {
    if (auto autocast = dyn_cast<AutocastOp>(op))
      inlineAutocastRegion(autocast);
    else if (isa<FunctionOpInterface>(op))
      op->removeAttr(AmpDialect::getAutocastAttrName());
  });
}

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

LogicalResult CastOp::verify() {
  auto in = dyn_cast<RankedTensorType>(getIn().getType());
  auto out = dyn_cast<RankedTensorType>(getOut().getType());
  if (in && out && in.getEncoding() != out.getEncoding()) {
    auto describe = [](Attribute encoding) -> std::string {
      if (!encoding)
        return "no encoding";
      std::string text;
      llvm::raw_string_ostream os(text);
      os << encoding;
      return text;
    };
    return emitOpError("changes the tensor encoding (")
           << describe(in.getEncoding()) << " to "
           << describe(out.getEncoding())
           << "); amp.cast changes the element type only";
  }
  return success();
}

bool CastOp::areCastCompatible(TypeRange inputs, TypeRange outputs) {
  if (inputs.size() != 1 || outputs.size() != 1)
    return false;
  auto inShaped = dyn_cast<ShapedType>(inputs.front());
  auto outShaped = dyn_cast<ShapedType>(outputs.front());
  if (static_cast<bool>(inShaped) != static_cast<bool>(outShaped))
    return false;
  if (inShaped && inShaped.getShape() != outShaped.getShape())
    return false;
  return isa<FloatType>(getElementTypeOrSelf(inputs.front())) &&
         isa<FloatType>(getElementTypeOrSelf(outputs.front()));
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  Type outType = getOut().getType();
  auto outElem = cast<FloatType>(getElementTypeOrSelf(outType));

  // cast(x : T to T) -> x
  if (getIn().getType() == outType)
    return getIn();

  // Constants fold with run-time rounding.
  if (auto scalar = dyn_cast_if_present<FloatAttr>(adaptor.getIn()))
    return FloatAttr::get(outType,
                          roundToFloatType(scalar.getValue(), outElem));
  if (auto dense = dyn_cast_if_present<DenseFPElementsAttr>(adaptor.getIn())) {
    auto outShaped = cast<ShapedType>(outType);
    if (dense.isSplat())
      return DenseElementsAttr::get(
          outShaped, roundToFloatType(dense.getSplatValue<APFloat>(), outElem));
    return dense.mapValues(outElem, [&](const APFloat &v) {
      return roundToFloatType(v, outElem).bitcastToAPInt();
    });
  }

  // cast(cast(x : A to B) : B to C) -> cast(x : A to C) when A -> B is exact.
  if (auto inner = getIn().getDefiningOp<CastOp>()) {
    auto a = cast<FloatType>(getElementTypeOrSelf(inner.getIn().getType()));
    auto b = cast<FloatType>(getElementTypeOrSelf(inner.getOut().getType()));
    if (isExactFloatConversion(a, b)) {
      if (inner.getIn().getType() == outType)
        return inner.getIn();
      getInMutable().assign(inner.getIn());
      return getOut();
    }
  }
  return {};
}

//===----------------------------------------------------------------------===//
// Loss scaling
//===----------------------------------------------------------------------===//

LogicalResult InitLossScaleOp::verify() {
  APFloat scale = getInitScaleAttr().getValue();
  if (!scale.isFiniteNonZero() || scale.isNegative())
    return emitOpError("init_scale must be finite and positive, got ")
           << scale.convertToFloat();
  return success();
}

LogicalResult UnscaleOp::inferReturnTypes(
    MLIRContext *ctx, std::optional<Location>, ValueRange operands,
    DictionaryAttr, OpaqueProperties, RegionRange,
    SmallVectorImpl<Type> &inferred) {
  // Operands: the gradients, then the scale.
  if (operands.empty())
    return failure();
  for (Value grad : operands.drop_back())
    inferred.push_back(grad.getType());
  inferred.push_back(IntegerType::get(ctx, 1));
  return success();
}

LogicalResult UnscaleOp::verify() {
  for (auto [i, grad] : llvm::enumerate(getGrads())) {
    auto type = cast<RankedTensorType>(grad.getType());
    if (!type.getElementType().isF32())
      return emitOpError("gradient #")
             << i << " has type " << type
             << "; gradients of f32 master weights must be f32 (GradScaler: "
                "\"Attempting to unscale FP16 gradients.\")";
  }
  return success();
}

LogicalResult UpdateScaleOp::verify() {
  double growth = getGrowthFactorAttr().getValueAsDouble();
  double backoff = getBackoffFactorAttr().getValueAsDouble();
  if (!(growth > 1.0))
    return emitOpError("growth_factor must be above 1 (GradScaler), got ")
           << growth;
  if (!(backoff > 0.0 && backoff < 1.0))
    return emitOpError("backoff_factor must be in (0, 1) (GradScaler), got ")
           << backoff;
  if (getGrowthInterval() < 1)
    return emitOpError("growth_interval must be at least 1, got ")
           << getGrowthInterval();
  return success();
}

LogicalResult StepIfFiniteOp::inferReturnTypes(
    MLIRContext *, std::optional<Location>, ValueRange operands,
    DictionaryAttr, OpaqueProperties, RegionRange,
    SmallVectorImpl<Type> &inferred) {
  // Operands: found_inf, then the kept values.
  if (operands.empty())
    return failure();
  llvm::append_range(inferred, operands.drop_front().getTypes());
  return success();
}

YieldOp StepIfFiniteOp::getYield() {
  return cast<YieldOp>(getBody().front().getTerminator());
}

LogicalResult StepIfFiniteOp::verify() {
  Block &body = getBody().front();
  if (body.getNumArguments() != 0)
    return emitOpError("region must not have arguments");
  // Not getTerminator(): the block may be empty (the verifier of the
  // region's terminator runs after this one).
  auto yield = body.empty() ? YieldOp() : dyn_cast<YieldOp>(body.back());
  if (!yield)
    return emitOpError("region must end with amp.yield");
  if (yield.getOperandTypes() != getKeep().getTypes())
    return emitOpError("yields (")
           << yield.getOperandTypes() << ") but keeps (" << getKeep().getTypes()
           << "); the update must yield one value of each kept type";
  return success();
}

#define GET_OP_CLASSES
#include "amp/Dialect/Amp/IR/AmpOps.cpp.inc"
