//===- GpuUtils.cpp - shared pieces of the GPU passes ---------------------===//

#include "GpuUtils.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace mlir::amp;

Value mlir::amp::rootBuffer(Value memref) {
  return memref::skipViewLikeOps(cast<MemrefValue>(memref));
}

/// The buffers `memref` may be a view of: through view-like ops,
/// memref.transpose and both values of an arith.select; the walk stops at
/// any other value (an argument, an allocation, a global, a call's or a
/// region's result: `mayBeSameBuffer` says which are known distinct).
static SmallVector<Value> possibleBuffers(Value memref) {
  SmallVector<Value> buffers, worklist{memref};
  DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    Operation *def = v.getDefiningOp();
    if (auto view = dyn_cast_or_null<ViewLikeOpInterface>(def))
      worklist.push_back(view.getViewSource());
    else if (auto transpose = dyn_cast_or_null<memref::TransposeOp>(def))
      worklist.push_back(transpose.getIn());
    else if (auto select = dyn_cast_or_null<arith::SelectOp>(def))
      worklist.append({select.getTrueValue(), select.getFalseValue()});
    else
      buffers.push_back(v);
  }
  return buffers;
}

/// The memrefs `op` reads: its memref inputs, and memrefs defined outside
/// it that its body uses.
static SmallVector<Value> readMemrefs(linalg::LinalgOp op) {
  SmallVector<Value> memrefs;
  for (OpOperand *input : op.getDpsInputOperands())
    if (isa<MemRefType>(input->get().getType()))
      memrefs.push_back(input->get());
  op.getBlock()->walk([&](Operation *inner) {
    for (Value v : inner->getOperands())
      if (isa<BaseMemRefType>(v.getType()) &&
          !op->isAncestor(v.getParentRegion()->getParentOp()))
        memrefs.push_back(v);
  });
  return memrefs;
}

/// Whether the buffer `v` (a `possibleBuffers` value) is known to be a
/// buffer of its own: an allocation, a global (named by its symbol) or an
/// argument of a function (the project's calling convention: distinct
/// arguments are distinct buffers). Anything else (a region's result, a
/// block argument of a loop or branch, a call's result) may be any buffer.
static bool isIdentifiedBuffer(Value v) {
  if (auto arg = dyn_cast<BlockArgument>(v))
    return arg.getOwner()->isEntryBlock() &&
           isa<FunctionOpInterface>(arg.getOwner()->getParentOp());
  return isa_and_nonnull<memref::AllocOp, memref::AllocaOp,
                         memref::GetGlobalOp>(v.getDefiningOp());
}

/// Whether the buffers `a` and `b` (`possibleBuffers` values) may be one.
static bool mayBeSameBuffer(Value a, Value b) {
  if (a == b || !isIdentifiedBuffer(a) || !isIdentifiedBuffer(b))
    return true;
  auto globalA = a.getDefiningOp<memref::GetGlobalOp>();
  auto globalB = b.getDefiningOp<memref::GetGlobalOp>();
  return globalA && globalB && globalA.getName() == globalB.getName();
}

bool mlir::amp::mayReadOutputBuffer(linalg::LinalgOp op) {
  SmallVector<Value> outputs;
  for (OpOperand &init : op.getDpsInitsMutable())
    if (isa<MemRefType>(init.get().getType()))
      llvm::append_range(outputs, possibleBuffers(init.get()));
  for (Value read : readMemrefs(op))
    for (Value buffer : possibleBuffers(read))
      if (llvm::any_of(outputs, [&](Value output) {
            return mayBeSameBuffer(buffer, output);
          }))
        return true;
  return false;
}

std::optional<std::string> mlir::amp::whyNoKernel(linalg::LinalgOp op) {
  if (op->getParentOfType<gpu::LaunchOp>() ||
      op->getParentOfType<gpu::GPUFuncOp>())
    return "inside device code";
  if (isInParallelLoop(op))
    return "inside a parallel loop";
  SmallVector<Value> memrefs = readMemrefs(op);
  for (OpOperand &init : op.getDpsInitsMutable())
    memrefs.push_back(init.get());
  for (Value memref : memrefs)
    if (isa<MemRefType>(memref.getType()) &&
        llvm::any_of(possibleBuffers(memref), [](Value buffer) {
          return buffer.getDefiningOp<memref::AllocaOp>();
        }))
      return "a stack buffer operand";
  if (op.getBlock()
          ->walk([](CallOpInterface) { return WalkResult::interrupt(); })
          .wasInterrupted())
    return "a call in its body";
  if (llvm::is_contained(op.getStaticLoopRanges(), 0))
    return "an empty loop";
  return std::nullopt;
}

SmallVector<Value> mlir::amp::applyMap(OpBuilder &b, Location loc,
                                       AffineMap map, ValueRange ivs) {
  SmallVector<Value> indices;
  for (AffineExpr expr : map.getResults()) {
    if (auto c = dyn_cast<AffineConstantExpr>(expr)) {
      indices.push_back(arith::ConstantIndexOp::create(b, loc, c.getValue()));
      continue;
    }
    if (auto d = dyn_cast<AffineDimExpr>(expr)) {
      indices.push_back(ivs[d.getPosition()]);
      continue;
    }
    indices.push_back(affine::AffineApplyOp::create(
        b, loc, AffineMap::get(map.getNumDims(), 0, expr), ivs));
  }
  return indices;
}

SmallVector<Value> mlir::amp::inlineBody(OpBuilder &b, Location loc,
                                         linalg::LinalgOp op, ValueRange ivs,
                                         IRMapping &mapping) {
  Block *body = op.getBlock();
  for (OpOperand &operand : op->getOpOperands()) {
    BlockArgument arg = op.getMatchingBlockArgument(&operand);
    if (mapping.contains(arg))
      continue;
    Value value = operand.get();
    if (isa<MemRefType>(value.getType()))
      value = memref::LoadOp::create(
          b, loc, value,
          applyMap(b, loc, op.getMatchingIndexingMap(&operand), ivs));
    mapping.map(arg, value);
  }
  for (Operation &inner : body->without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      mapping.map(index.getResult(), ivs[index.getDim()]);
      continue;
    }
    b.clone(inner, mapping);
  }
  return llvm::map_to_vector(
      body->getTerminator()->getOperands(),
      [&](Value v) { return mapping.lookupOrDefault(v); });
}

/// The gpu.all_reduce operation of a combiner op, if it has one.
static std::optional<gpu::AllReduceOperation> allReduceKind(Operation *op) {
  using K = gpu::AllReduceOperation;
  return llvm::TypeSwitch<Operation *, std::optional<K>>(op)
      .Case<arith::AddFOp, arith::AddIOp>([](auto) { return K::ADD; })
      .Case<arith::MulFOp, arith::MulIOp>([](auto) { return K::MUL; })
      .Case<arith::MaximumFOp>([](auto) { return K::MAXIMUMF; })
      .Case<arith::MinimumFOp>([](auto) { return K::MINIMUMF; })
      .Case<arith::MaxNumFOp>([](auto) { return K::MAXNUMF; })
      .Case<arith::MinNumFOp>([](auto) { return K::MINNUMF; })
      .Case<arith::MaxSIOp>([](auto) { return K::MAXSI; })
      .Case<arith::MinSIOp>([](auto) { return K::MINSI; })
      .Case<arith::MaxUIOp>([](auto) { return K::MAXUI; })
      .Case<arith::MinUIOp>([](auto) { return K::MINUI; })
      .Case<arith::AndIOp>([](auto) { return K::AND; })
      .Case<arith::OrIOp>([](auto) { return K::OR; })
      .Case<arith::XOrIOp>([](auto) { return K::XOR; })
      .Default([](Operation *) { return std::nullopt; });
}

FailureOr<ReductionCombiner>
mlir::amp::matchReductionCombiner(linalg::LinalgOp op, std::string &why) {
  if (op.getNumDpsInits() != 1) {
    why = "more than one output";
    return failure();
  }
  SmallVector<Operation *> combiners;
  Value reduced = matchReduction(op.getRegionOutputArgs(), 0, combiners);
  if (!reduced || combiners.size() != 1) {
    why = "no single combiner op";
    return failure();
  }
  if (!reduced.getType().isIntOrIndexOrFloat()) {
    why = "a reduction of " + llvm::formatv("{0}", reduced.getType()).str() +
          " elements (scalars only)";
    return failure();
  }
  ReductionCombiner result;
  result.op = combiners.front();
  result.out = op.getRegionOutputArgs().front();
  result.type = reduced.getType();
  std::optional<TypedAttr> neutral = arith::getNeutralElement(result.op);
  if (!neutral || result.op->getNumOperands() != 2 ||
      result.op->getNumResults() != 1 ||
      !llvm::is_contained(result.op->getOperands(), result.out)) {
    why = ("combiner '" + result.op->getName().getStringRef() +
           "' has no neutral element")
              .str();
    return failure();
  }
  result.neutral = *neutral;
  if (auto addf = dyn_cast<arith::AddFOp>(result.op);
      addf &&
      !arith::bitEnumContainsAll(addf.getFastmath(), arith::FastMathFlags::nsz))
    result.neutral = FloatAttr::get(result.type, -0.0);

  Type type = result.type;
  std::optional<gpu::AllReduceOperation> kind = allReduceKind(result.op);
  using K = gpu::AllReduceOperation;
  if (kind && (type.isF32() || type.isF64() || type.isInteger(32) ||
               type.isInteger(64) ||
               (type.isInteger(1) &&
                llvm::is_contained({K::AND, K::OR, K::XOR}, *kind))))
    result.allReduce = kind;
  return result;
}

Value ReductionCombiner::combine(OpBuilder &b, Value acc, Value value) const {
  IRMapping mapping;
  for (Value operand : op->getOperands())
    mapping.map(operand, operand == out ? acc : value);
  return b.clone(*op, mapping)->getResult(0);
}

void ReductionCombiner::combineIntoOutput(OpBuilder &b, Location loc,
                                          linalg::LinalgOp op, ValueRange ivs,
                                          Value value, Value filled) const {
  OpOperand &init = op.getDpsInitsMutable()[0];
  SmallVector<Value> at =
      applyMap(b, loc, op.getMatchingIndexingMap(&init), ivs);
  Value old = filled ? filled : memref::LoadOp::create(b, loc, init.get(), at);
  memref::StoreOp::create(b, loc, combine(b, old, value), init.get(), at);
}

linalg::FillOp mlir::amp::getFillOfOutput(linalg::LinalgOp op) {
  auto fill = dyn_cast_or_null<linalg::FillOp>(op->getPrevNode());
  if (!fill || !fill.hasPureBufferSemantics() || op.getNumDpsInits() != 1)
    return nullptr;
  Value output = op.getDpsInits()[0];
  if (fill.getOutputs()[0] != output || !isa<MemRefType>(output.getType()) ||
      fill.value().getType() != getElementTypeOrSelf(output.getType()) ||
      mayReadOutputBuffer(op))
    return nullptr;
  // Each element of the output is an output element of `op` (one loop per
  // dimension, each once), so the kernel writes them all.
  AffineMap map = op.getMatchingIndexingMap(&op.getDpsInitsMutable()[0]);
  if (!map.isProjectedPermutation() ||
      map.getNumResults() != cast<MemRefType>(output.getType()).getRank())
    return nullptr;
  return fill;
}

gpu::LaunchOp mlir::amp::createLaunch(OpBuilder &b, Location loc,
                                      OpFoldResult blocks, int64_t threadsX,
                                      int64_t threadsY, TypeRange workgroup) {
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value grid = getValueOrCreateConstantIndexOp(b, loc, blocks);
  Value x = arith::ConstantIndexOp::create(b, loc, threadsX);
  Value y =
      threadsY == 1 ? one : arith::ConstantIndexOp::create(b, loc, threadsY);
  auto kernel = gpu::LaunchOp::create(
      b, loc, grid, one, one, x, y, one, /*dynamicSharedMemorySize=*/nullptr,
      /*asyncTokenType=*/nullptr, /*asyncDependencies=*/{}, workgroup);
  b.setInsertionPointToStart(&kernel.getBody().front());
  gpu::TerminatorOp::create(b, loc);
  b.setInsertionPointToStart(&kernel.getBody().front());
  return kernel;
}

Value ReductionCombiner::allReduceInBlock(OpBuilder &b, Location loc,
                                          Value value) const {
  assert(allReduce && "no gpu.all_reduce form");
  // Sub-word integers go through i32 (the shuffles move 32-bit values).
  bool isBool = type.isInteger(1);
  if (isBool)
    value = arith::ExtUIOp::create(b, loc, b.getI32Type(), value);
  Value all = gpu::AllReduceOp::create(
      b, loc, value,
      gpu::AllReduceOperationAttr::get(b.getContext(), *allReduce),
      b.getUnitAttr());
  if (isBool)
    all = arith::TruncIOp::create(b, loc, type, all);
  return all;
}

SmallVector<Value> mlir::amp::loopSizes(OpBuilder &b, Location loc,
                                        linalg::LinalgOp op) {
  return llvm::map_to_vector(op.createLoopRanges(b, loc), [&](Range r) {
    return getValueOrCreateConstantIndexOp(b, loc, r.size);
  });
}

Value mlir::amp::product(OpBuilder &b, Location loc, ValueRange values) {
  if (values.empty())
    return arith::ConstantIndexOp::create(b, loc, 1);
  Value total = values.front();
  for (Value v : values.drop_front())
    total = b.createOrFold<arith::MulIOp>(loc, total, v);
  return total;
}
