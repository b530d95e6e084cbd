//===- GpuScalarKernels.cpp - linalg ops without parallel dims on the GPU -===//
//
// The `amp-gpu-scalar-kernels` pass: linalg ops on buffers with no parallel
// dimension, which `convert-linalg-to-parallel-loops` would leave as host
// code reading and writing managed memory, become GPU kernels:
//
// - a full reduction (every loop a reduction, one output, a single combiner
//   op that gpu.all_reduce knows): one block of 1024 threads, each folding
//   a strided share of the iteration space (consecutive threads, consecutive
//   elements) from the combiner's neutral element, then `gpu.all_reduce`,
//   and thread 0 combines the result with the output's value;
// - an op without loops (arithmetic on 0-d buffers): one thread.
//
// Passes.td has the why and the limits.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "GpuUtils.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPGPUSCALARKERNELS
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

/// Threads of a reduction kernel's one block.
constexpr int64_t kReductionThreads = 1024;

/// The gpu.all_reduce operation of a combiner op, if it has one.
std::optional<gpu::AllReduceOperation> allReduceKind(Operation *combiner) {
  using K = gpu::AllReduceOperation;
  return llvm::TypeSwitch<Operation *, std::optional<K>>(combiner)
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

/// Whether every result of `map` is a constant: the output of an op without
/// parallel dimensions is one element.
bool isConstantMap(AffineMap map) {
  return llvm::all_of(map.getResults(), llvm::IsaPred<AffineConstantExpr>);
}

/// The indices `map` gives for the loop indices `ivs` (affine.apply).
SmallVector<Value> applyMap(OpBuilder &b, Location loc, AffineMap map,
                            ValueRange ivs) {
  SmallVector<Value> indices;
  for (AffineExpr expr : map.getResults()) {
    if (auto c = dyn_cast<AffineConstantExpr>(expr)) {
      indices.push_back(arith::ConstantIndexOp::create(b, loc, c.getValue()));
      continue;
    }
    indices.push_back(affine::AffineApplyOp::create(
        b, loc, AffineMap::get(map.getNumDims(), 0, expr), ivs));
  }
  return indices;
}

/// Maps the body's block arguments to the operands' elements at the loop
/// indices `ivs` (loads of memref operands, scalars as they are) and clones
/// the body's ops but the terminator; `linalg.index` gives `ivs`. The output
/// arguments are mapped by the caller first and not loaded here. Returns the
/// values the body yields.
SmallVector<Value> inlineBody(OpBuilder &b, Location loc, linalg::LinalgOp op,
                              ValueRange ivs, IRMapping &mapping) {
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
  return llvm::map_to_vector(body->getTerminator()->getOperands(),
                             [&](Value v) { return mapping.lookup(v); });
}

/// The buffer a memref value is a view of (through view-like ops).
Value rootBuffer(Value v) {
  return memref::skipViewLikeOps(cast<MemrefValue>(v));
}

/// Why `op` (a linalg op on buffers without parallel loops) must stay on
/// the host, or nothing.
std::optional<StringRef> whyHost(linalg::LinalgOp op) {
  if (!llvm::all_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
        return isConstantMap(op.getMatchingIndexingMap(&init));
      }))
    return StringRef("an output element depends on a reduction index");
  // Loops of the user's own that scf/affine parallel mappings or
  // amp-gpu-map-parallel-loops turn into kernels: no launch inside them.
  if (isInParallelLoop(op))
    return StringRef("inside a parallel loop");
  for (Value operand : op->getOperands())
    if (isa<MemRefType>(operand.getType()) &&
        rootBuffer(operand).getDefiningOp<memref::AllocaOp>())
      return StringRef("a stack buffer operand");
  // A call in the body would go into the kernel, where host functions
  // cannot be called.
  if (op.getBlock()
          ->walk([](CallOpInterface) { return WalkResult::interrupt(); })
          .wasInterrupted())
    return StringRef("a call in its body");
  for (int64_t size : op.getStaticLoopRanges())
    if (size == 0)
      return StringRef("an empty loop");
  return std::nullopt;
}

struct AmpGpuScalarKernelsPass
    : public amp::impl::AmpGpuScalarKernelsBase<AmpGpuScalarKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.getNumParallelLoops() != 0 || !op.hasPureBufferSemantics() ||
          op->getParentOfType<gpu::LaunchOp>())
        return;
      if (std::optional<StringRef> why = whyHost(op)) {
        op.emitRemark() << "amp-gpu-scalar-kernels: this op without parallel "
                           "dimensions runs on the host ("
                        << *why << ")";
        return;
      }
      ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      rewriter.setInsertionPoint(op);
      if (op.getNumLoops() == 0) {
        buildScalarKernel(rewriter, op);
        rewriter.eraseOp(op);
        continue;
      }
      if (succeeded(buildReductionKernel(rewriter, op)))
        rewriter.eraseOp(op);
      // Otherwise the op stays, as host loops (remark emitted).
    }
  }

  /// A gpu.launch of `blockSize` threads in one block; the builder is left
  /// inside it, before its terminator. Returns the thread index.
  Value launch(OpBuilder &b, Location loc, int64_t blockSize) {
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    Value threads = arith::ConstantIndexOp::create(b, loc, blockSize);
    auto kernel =
        gpu::LaunchOp::create(b, loc, one, one, one, threads, one, one);
    b.setInsertionPointToStart(&kernel.getBody().front());
    gpu::TerminatorOp::create(b, loc);
    b.setInsertionPointToStart(&kernel.getBody().front());
    return kernel.getThreadIds().x;
  }

  /// An op without loops: one thread loads its operands, runs the body and
  /// stores the outputs.
  void buildScalarKernel(OpBuilder &b, linalg::LinalgOp op) {
    Location loc = op.getLoc();
    OpBuilder::InsertionGuard guard(b);
    launch(b, loc, 1);
    IRMapping mapping;
    SmallVector<Value> yielded = inlineBody(b, loc, op, {}, mapping);
    for (auto [init, value] : llvm::zip(op.getDpsInitsMutable(), yielded))
      memref::StoreOp::create(
          b, loc, value, init.get(),
          applyMap(b, loc, op.getMatchingIndexingMap(&init), {}));
  }

  /// A full reduction: see the file comment.
  LogicalResult buildReductionKernel(OpBuilder &b, linalg::LinalgOp op) {
    Location loc = op.getLoc();
    auto fail = [&](const auto &...why) {
      InFlightDiagnostic remark = op.emitRemark();
      remark << "amp-gpu-scalar-kernels: this reduction to a scalar runs on "
                "the host (";
      (remark << ... << why);
      remark << ")";
      return failure();
    };
    if (op.getNumDpsInits() != 1)
      return fail("more than one output");
    SmallVector<Operation *> combiners;
    Value reduced = matchReduction(op.getRegionOutputArgs(), 0, combiners);
    if (!reduced || combiners.size() != 1)
      return fail("no single combiner op");
    Operation *combiner = combiners.front();
    std::optional<gpu::AllReduceOperation> kind = allReduceKind(combiner);
    std::optional<TypedAttr> neutral = arith::getNeutralElement(combiner);
    Type type = reduced.getType();
    bool isBool = type.isInteger(1);
    if (!kind || !neutral ||
        !(type.isF32() || type.isF64() || type.isInteger(32) ||
          type.isInteger(64) ||
          (isBool && llvm::is_contained({gpu::AllReduceOperation::AND,
                                         gpu::AllReduceOperation::OR,
                                         gpu::AllReduceOperation::XOR},
                                        *kind))))
      return fail("combiner '", combiner->getName(), "' on ", type,
                  " has no gpu.all_reduce form here");
    OpOperand &init = op.getDpsInitsMutable()[0];
    BlockArgument outArg = op.getMatchingBlockArgument(&init);
    // The threads read the inputs while thread 0 writes the output at the
    // end: an input on the output's buffer would be read stale.
    Value outRoot = rootBuffer(init.get());
    for (OpOperand *input : op.getDpsInputOperands())
      if (isa<MemRefType>(input->get().getType()) &&
          rootBuffer(input->get()) == outRoot)
        return fail("an input on the output's buffer");
    // x + -0.0 == x for every x, -0.0 included: the sum's neutral element
    // (getNeutralElement gives +0.0, which turns an all -0.0 sum into +0.0).
    if (auto addf = dyn_cast<arith::AddFOp>(combiner);
        addf && !arith::bitEnumContainsAll(addf.getFastmath(),
                                           arith::FastMathFlags::nsz))
      neutral = b.getFloatAttr(type, -0.0);

    // The iteration space, linearized: thread t folds t, t + 1024, ...
    SmallVector<Value> sizes =
        llvm::map_to_vector(op.createLoopRanges(b, loc), [&](Range r) {
          return getValueOrCreateConstantIndexOp(b, loc, r.size);
        });
    Value total = sizes.front();
    for (Value size : ArrayRef(sizes).drop_front())
      total = arith::MulIOp::create(b, loc, total, size);

    OpBuilder::InsertionGuard guard(b);
    Value tid = launch(b, loc, kReductionThreads);
    Value step = arith::ConstantIndexOp::create(b, loc, kReductionThreads);
    Value start = arith::ConstantOp::create(b, loc, *neutral);
    auto loop = scf::ForOp::create(
        b, loc, tid, total, step, ValueRange{start},
        [&](OpBuilder &lb, Location l, Value linear, ValueRange acc) {
          auto ivs = affine::AffineDelinearizeIndexOp::create(
              lb, l, linear, sizes, /*hasOuterBound=*/true);
          IRMapping mapping;
          mapping.map(outArg, acc.front());
          SmallVector<Value> yielded =
              inlineBody(lb, l, op, ivs.getResults(), mapping);
          scf::YieldOp::create(lb, l, yielded);
        });
    Value partial = loop.getResult(0);
    // Sub-word integers go through i32 (the shuffles move 32-bit values).
    if (isBool)
      partial = arith::ExtUIOp::create(b, loc, b.getI32Type(), partial);
    Value all = gpu::AllReduceOp::create(
        b, loc, partial,
        gpu::AllReduceOperationAttr::get(b.getContext(), *kind),
        b.getUnitAttr());
    if (isBool)
      all = arith::TruncIOp::create(b, loc, type, all);
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value first =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, zero);
    auto store = scf::IfOp::create(b, loc, first);
    b.setInsertionPointToStart(store.thenBlock());
    SmallVector<Value> at =
        applyMap(b, loc, op.getMatchingIndexingMap(&init), {});
    Value old = memref::LoadOp::create(b, loc, init.get(), at);
    // The combiner, with the output's value and the block's result.
    IRMapping mapping;
    for (Value operand : combiner->getOperands())
      mapping.map(operand, operand == outArg ? old : all);
    Value result = b.clone(*combiner, mapping)->getResult(0);
    memref::StoreOp::create(b, loc, result, init.get(), at);
    return success();
  }
};

} // namespace
