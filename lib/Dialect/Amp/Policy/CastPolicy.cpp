//===- CastPolicy.cpp - cast policy of autocast regions -------------------===//
//
// The CastPolicyOpInterface, its default external models on upstream ops
// (the table in DefaultPolicy.def), the body classifier of linalg.generic,
// linalg.map, linalg.reduce and linalg.elementwise, and the resolution of
// overrides (pass options, then `#amp.policy` attributes, then the interface).
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/Policy/CastPolicy.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;
using namespace mlir::amp;

#include "amp/Dialect/Amp/Policy/CastPolicyInterface.cpp.inc"

bool mlir::amp::isAutocastFloat(Type type) {
  // Scalars and ranked tensors only: memrefs, vectors and unranked tensors
  // are left as they are (amp.cast does not take them).
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    type = tensor.getElementType();
  return isa<Float32Type, Float16Type, BFloat16Type>(type);
}

//===----------------------------------------------------------------------===//
// Default table
//===----------------------------------------------------------------------===//

namespace {
using CC = CastCategory;

/// Model of an op with a fixed category per device (one row of the table).
template <typename OpTy, CastCategory Cuda, CastCategory Cpu>
struct TableModel
    : public CastPolicyOpInterface::ExternalModel<TableModel<OpTy, Cuda, Cpu>,
                                                  OpTy> {
  CastCategory getCastCategory(Operation *op, DeviceType device) const {
    return device == DeviceType::cuda ? Cuda : Cpu;
  }
};

/// Model of ops classified by their payload (linalg.generic and friends).
template <typename OpTy>
struct BodyModel
    : public CastPolicyOpInterface::ExternalModel<BodyModel<OpTy>, OpTy> {
  CastCategory getCastCategory(Operation *op, DeviceType device) const {
    return classifyStructuredBody(op, device);
  }
};

const DefaultPolicyEntry kDefaultTable[] = {
#define AMP_POLICY(NS, OP, CUDA, CPU, ANCHOR)                                  \
  {NS::OP::getOperationName(), CC::CUDA, CC::CPU, ANCHOR},
#include "DefaultPolicy.def"
};
} // namespace

ArrayRef<DefaultPolicyEntry> mlir::amp::getDefaultPolicyTable() {
  return kDefaultTable;
}

namespace {
/// Attaches the table rows of dialect namespace `ns` to their ops (called
/// when that dialect is loaded).
void attachTableModels(MLIRContext *ctx, StringRef ns) {
#define AMP_POLICY(NS, OP, CUDA, CPU, ANCHOR)                                  \
  if (ns == #NS)                                                               \
    NS::OP::attachInterface<TableModel<NS::OP, CC::CUDA, CC::CPU>>(*ctx);
#include "DefaultPolicy.def"
}
} // namespace

void mlir::amp::registerCastPolicyExternalModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, tosa::TosaDialect *) {
    attachTableModels(ctx, "tosa");
  });
  registry.addExtension(+[](MLIRContext *ctx, linalg::LinalgDialect *) {
    attachTableModels(ctx, "linalg");
    linalg::GenericOp::attachInterface<BodyModel<linalg::GenericOp>>(*ctx);
    linalg::MapOp::attachInterface<BodyModel<linalg::MapOp>>(*ctx);
    linalg::ReduceOp::attachInterface<BodyModel<linalg::ReduceOp>>(*ctx);
    linalg::ElementwiseOp::attachInterface<BodyModel<linalg::ElementwiseOp>>(
        *ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, arith::ArithDialect *) {
    attachTableModels(ctx, "arith");
  });
  registry.addExtension(+[](MLIRContext *ctx, math::MathDialect *) {
    attachTableModels(ctx, "math");
  });
  registry.addExtension(+[](MLIRContext *ctx, tensor::TensorDialect *) {
    attachTableModels(ctx, "tensor");
  });
}

//===----------------------------------------------------------------------===//
// Body classifier
//===----------------------------------------------------------------------===//

namespace {
/// Category of a scalar payload op, from the same policy (math.exp -> fp32).
std::optional<CastCategory> payloadCategory(Operation *op, DeviceType device) {
  if (auto iface = dyn_cast<CastPolicyOpInterface>(op))
    return iface.getCastCategory(device);
  return std::nullopt;
}

/// The op that combines the accumulator block argument `acc` in a reduction
/// payload (e.g. the addf of `acc + x`), or null.
Operation *getCombiner(BlockArgument acc) {
  for (Operation *user : acc.getUsers())
    if (!isa<linalg::YieldOp>(user))
      return user;
  return nullptr;
}

CastCategory classifyElementwiseKind(linalg::ElementwiseKind kind) {
  using K = linalg::ElementwiseKind;
  switch (kind) {
  case K::exp:
  case K::log:
  case K::reciprocal:
  case K::rsqrt:
  case K::powf:
    return CastCategory::fp32; // PyTorch CUDA fp32 list.
  case K::select:
    return CastCategory::promote;
  default:
    return CastCategory::infer;
  }
}
} // namespace

CastCategory mlir::amp::classifyStructuredBody(Operation *op,
                                               DeviceType device) {
  if (auto elementwise = dyn_cast<linalg::ElementwiseOp>(op))
    return classifyElementwiseKind(elementwise.getKind());

  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp)
    return CastCategory::keep;

  // A contraction or convolution (mul-add over reduction dims) is a matmul
  // or conv in disguise: PyTorch lower_precision_fp.
  if (linalg::isaContractionOpInterface(linalgOp) ||
      linalg::isaConvolutionOpInterface(linalgOp))
    return CastCategory::lower;

  Block *body = linalgOp.getBlock();
  bool hasFloatArithmetic = false;
  for (Operation &inner : body->without_terminator()) {
    std::optional<CastCategory> cat = payloadCategory(&inner, device);
    if (cat == CastCategory::fp32)
      return CastCategory::fp32; // fp32-list op inside: the generic is fp32.
    if (cat == CastCategory::infer || cat == CastCategory::lower)
      if (!isa<arith::CmpFOp>(inner) &&
          llvm::any_of(inner.getResultTypes(), isAutocastFloat))
        hasFloatArithmetic = true;
  }

  // Reductions: sums and products are fp32 (PyTorch fp32_set_opt_dtype:
  // sum, prod); max/min reductions move data and are clear.
  if (linalgOp.getNumReductionLoops() > 0) {
    for (OpOperand &init : linalgOp.getDpsInitsMutable()) {
      Operation *combiner =
          getCombiner(linalgOp.getMatchingBlockArgument(&init));
      if (isa_and_nonnull<arith::AddFOp, arith::MulFOp, arith::SubFOp>(
              combiner))
        return CastCategory::fp32;
    }
    return hasFloatArithmetic ? CastCategory::infer : CastCategory::clear;
  }
  // Pure data movement (yield of inputs, relu as cmpf + select, max/min).
  return hasFloatArithmetic ? CastCategory::infer : CastCategory::clear;
}

//===----------------------------------------------------------------------===//
// CastPolicy
//===----------------------------------------------------------------------===//

ArrayRef<PolicyAttr> CastPolicy::getEnclosingPolicies(Operation *parent) const {
  if (parent != cachedParent) {
    cachedParent = parent;
    cachedPolicies.clear();
    for (; parent; parent = parent->getParentOp())
      if (auto policy = parent->getAttrOfType<PolicyAttr>(
              AmpDialect::getPolicyAttrName()))
        cachedPolicies.push_back(policy);
  }
  return cachedPolicies;
}

std::optional<CastCategory> CastPolicy::classify(Operation *op) const {
  bool touchesFloat = llvm::any_of(op->getOperandTypes(), isAutocastFloat) ||
                      llvm::any_of(op->getResultTypes(), isAutocastFloat);
  if (!touchesFloat)
    return std::nullopt;

  StringRef name = op->getName().getStringRef();
  const CastPolicyOverride *override = nullptr;
  if (!overrides.empty())
    if (auto it = overrides.find(name); it != overrides.end())
      override = &it->second;
  if (override && override->set)
    return *override->set;

  CastCategory cat = classifyWithoutOptions(op);
  if (override && (override->removedFrom & (1u << static_cast<unsigned>(cat))))
    return CastCategory::infer;
  return cat;
}

CastCategory CastPolicy::classifyWithoutOptions(Operation *op) const {
  StringRef name = op->getName().getStringRef();
  for (PolicyAttr policy : getEnclosingPolicies(op->getParentOp()))
    if (std::optional<CastCategory> cat = policy.lookup(name))
      return *cat;
  if (auto iface = dyn_cast<CastPolicyOpInterface>(op))
    return iface.getCastCategory(device);
  return CastCategory::keep;
}
