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

/// Whether `v`'s element type is a float that autocast never retypes (f64,
/// f8 types, ...).
bool isOtherFloat(Type type) {
  Type elem = getElementTypeOrSelf(type);
  return isa<FloatType>(elem) && !isAutocastFloat(elem);
}

/// The single non-terminator op of a structured op's body, or null.
Operation *getSingleBodyOp(linalg::LinalgOp op) {
  Block *body = op.getBlock();
  if (!body || !llvm::hasSingleElement(body->without_terminator()))
    return nullptr;
  return &body->front();
}

/// The input operand of `op` that block argument `v` of its body stands
/// for, or null.
OpOperand *getInputOfBlockArg(linalg::LinalgOp op, Value v) {
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg || arg.getOwner() != op.getBlock() ||
      arg.getArgNumber() >= op.getNumDpsInputs())
    return nullptr;
  return op.getDpsInputOperand(arg.getArgNumber());
}

/// A contraction that multiplies a value by itself (`mulf %a, %a`, or two
/// inputs that are the same tensor read through the same indexing map):
/// the sum of squares of a norm or a variance, after elementwise fusion,
/// not a matmul.
bool isSumOfSquares(linalg::LinalgOp op) {
  for (Operation &inner : op.getBlock()->without_terminator()) {
    auto mul = dyn_cast<arith::MulFOp>(inner);
    if (!mul)
      continue;
    if (mul.getLhs() == mul.getRhs())
      return true;
    OpOperand *a = getInputOfBlockArg(op, mul.getLhs());
    OpOperand *b = getInputOfBlockArg(op, mul.getRhs());
    if (a && b && a->get() == b->get() &&
        op.getMatchingIndexingMap(a) == op.getMatchingIndexingMap(b))
      return true;
  }
  return false;
}

/// Looks through the reshapes torch-mlir puts between the pieces of a
/// decomposition (expand_shape after a reduction, collapse_shape before a
/// batch_matmul).
Value skipReshapes(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(def))
      break;
    v = def->getOperand(0);
  }
  return v;
}

/// The users of `v`, looking through reshapes.
SmallVector<Operation *> usersThroughReshapes(Value v) {
  SmallVector<Operation *> users,
      work(v.getUsers().begin(), v.getUsers().end());
  while (!work.empty()) {
    Operation *user = work.pop_back_val();
    if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(user))
      work.append(user->getUsers().begin(), user->getUsers().end());
    else
      users.push_back(user);
  }
  return users;
}

/// A parallel elementwise generic whose body is one `arith.subf`, feeding a
/// generic that applies `math.exp`: the `x - max(x)` of a softmax or
/// log_softmax decomposed by torch-mlir.
bool isSoftmaxShift(Operation *op) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getNumReductionLoops() != 0 ||
      generic->getNumResults() != 1 ||
      !isa_and_nonnull<arith::SubFOp>(getSingleBodyOp(generic)))
    return false;
  return llvm::any_of(generic->getResult(0).getUsers(), [](Operation *user) {
    auto exp = dyn_cast<linalg::GenericOp>(user);
    return exp && isa_and_nonnull<math::ExpOp>(getSingleBodyOp(exp));
  });
}

/// A max reduction whose result (through reshapes) is subtracted by a
/// softmax shift (isSoftmaxShift): the `max(x)` of a softmax.
bool isSoftmaxMax(linalg::LinalgOp op) {
  if (op.getNumReductionLoops() == 0)
    return false;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    BlockArgument acc = op.getMatchingBlockArgument(&init);
    if (!isAutocastFloat(acc.getType()))
      continue;
    bool isMax = llvm::any_of(acc.getUsers(), [](Operation *user) {
      return isa<arith::MaximumFOp, arith::MaxNumFOp>(user);
    });
    if (isMax && llvm::any_of(usersThroughReshapes(op.getTiedOpResult(&init)),
                              isSoftmaxShift))
      return true;
  }
  return false;
}

/// The bias add of a linear layer as torch-mlir decomposes it: a parallel
/// generic whose body is one `arith.addf` of a contraction's result (a
/// matmul, batch_matmul or contraction generic, possibly reshaped) and a
/// bias read through a broadcasting map (fewer dimensions than the loops)
/// or broadcast by a generic that only yields its input. PyTorch runs
/// linear (addmm) as one lower-precision op, bias included.
bool isLinearBiasAdd(linalg::LinalgOp op) {
  auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
  if (!generic || generic.getNumReductionLoops() != 0 ||
      generic.getNumDpsInputs() != 2 ||
      !isa_and_nonnull<arith::AddFOp>(getSingleBodyOp(generic)))
    return false;
  auto isContraction = [](Value v) {
    auto producer = skipReshapes(v).getDefiningOp<linalg::LinalgOp>();
    return producer && linalg::isaContractionOpInterface(producer);
  };
  auto isBroadcastBias = [&](OpOperand *operand) {
    if (op.getMatchingIndexingMap(operand).getNumResults() < op.getNumLoops())
      return true;
    auto producer = operand->get().getDefiningOp<linalg::GenericOp>();
    if (!producer || producer.getNumDpsInputs() != 1 ||
        !producer.getBlock()->without_terminator().empty())
      return false;
    OpOperand *in = producer.getDpsInputOperand(0);
    return producer.getMatchingIndexingMap(in).getNumResults() <
           producer.getNumLoops();
  };
  OpOperand *a = op.getDpsInputOperand(0), *b = op.getDpsInputOperand(1);
  return (isContraction(a->get()) && isBroadcastBias(b)) ||
         (isContraction(b->get()) && isBroadcastBias(a));
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

  // Computation written in another float type (the f64 statistics of
  // torch-mlir's layer_norm: extf to f64, reductions, truncf back) reads and
  // writes the types it was written with, as an explicit `.double()` is not
  // autocast.
  if (llvm::any_of(op->getOperandTypes(), isOtherFloat) ||
      llvm::any_of(op->getResultTypes(), isOtherFloat))
    return CastCategory::keep;

  // A contraction or convolution (mul-add over reduction dims) is a matmul
  // or conv in disguise: PyTorch lower_precision_fp. One that multiplies a
  // value by itself is a sum of squares (a norm): fp32, as sum is.
  if (linalg::isaContractionOpInterface(linalgOp))
    return isSumOfSquares(linalgOp) ? CastCategory::fp32 : CastCategory::lower;
  if (linalg::isaConvolutionOpInterface(linalgOp))
    return CastCategory::lower;

  // The pieces of torch-mlir's decompositions that PyTorch runs as one op:
  // the max and the shift of a softmax / log_softmax (fp32 list: softmax,
  // log_softmax) stay f32 with its exp and sum; the bias add of a linear
  // is lower precision with its matmul.
  if (isSoftmaxMax(linalgOp) || isSoftmaxShift(op))
    return CastCategory::fp32;
  if (isLinearBiasAdd(linalgOp))
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
