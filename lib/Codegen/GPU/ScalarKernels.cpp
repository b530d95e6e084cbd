//===- ScalarKernels.cpp - linalg ops without parallel dims on the GPU ----===//
//
// The `amp-gpu-scalar-kernels` pass: linalg ops on buffers with no parallel
// dimension, which `convert-linalg-to-parallel-loops` would leave as host
// code reading and writing managed memory, become GPU kernels:
//
// - a full reduction (every loop a reduction, one output, a single combiner
//   op that gpu.all_reduce knows): one block of 1024 threads, each folding
//   a strided share of the iteration space (consecutive threads, consecutive
//   elements) from the combiner's neutral element, then `gpu.all_reduce`,
//   and thread 0 combines the result with the output's value; above 65536
//   elements (or a dynamic count), up to 256 such blocks store partial
//   results, which one more block combines with the output's value;
// - an op without loops (arithmetic on 0-d buffers): one thread.
//
// A full reduction right after a linalg.fill of its output combines with
// the fill's value instead of loading the output, and the fill goes. A run
// of one-block full reductions into the same output with the same combiner
// (the inf/NaN checks of a loss-scaled step's gradients, each or-ed into
// one flag) is one kernel: each thread folds its share of each op in turn.
// Ops without loops right after a kernel (a loss's mean after its sum) run
// at its end, on thread 0.
//
// Passes.td has the why and the limits.
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/GPU/Passes.h"

#include "GpuUtils.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPGPUSCALARKERNELS
#include "amp/Codegen/GPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

/// Threads of a reduction kernel's blocks.
constexpr int64_t kReductionThreads = 1024;
/// Up to this many elements (static sizes), a full reduction is one block;
/// above it, or with a dynamic size, the grid-wide form: each of up to
/// kMaxPartialBlocks blocks reduces a strided share to a partial result
/// (each thread folding at least kMinShare elements), then one block of
/// kPartialThreads threads reduces the partial results.
constexpr int64_t kOneBlockElements = 1 << 16;
constexpr int64_t kMaxPartialBlocks = 256;
constexpr int64_t kMinShare = 16;
constexpr int64_t kPartialThreads = 256;

/// Why `op` (a linalg op on buffers without parallel loops) must stay on
/// the host, or nothing.
std::optional<std::string> whyHost(linalg::LinalgOp op) {
  if (!llvm::all_of(op.getDpsInitsMutable(), [&](OpOperand &init) {
        return llvm::all_of(op.getMatchingIndexingMap(&init).getResults(),
                            llvm::IsaPred<AffineConstantExpr>);
      }))
    return "an output element depends on a reduction index";
  return whyNoKernel(op);
}

/// An op to turn into a kernel: an op without loops, or a full reduction
/// with its combiner and the fill of its output it absorbs (or null).
struct Kernel {
  linalg::LinalgOp op;
  std::optional<ReductionCombiner> combiner;
  linalg::FillOp fill;
};

struct AmpGpuScalarKernelsPass
    : public amp::impl::AmpGpuScalarKernelsBase<AmpGpuScalarKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    // The ops to turn into kernels, in program order.
    SmallVector<Kernel> kernels;
    DenseSet<Operation *> absorbed;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.getNumParallelLoops() != 0 || !op.hasPureBufferSemantics() ||
          op->getParentOfType<gpu::LaunchOp>())
        return;
      if (std::optional<std::string> why = whyHost(op)) {
        op.emitRemark() << "amp-gpu-scalar-kernels: this op without parallel "
                           "dimensions runs on the host ("
                        << *why << ")";
        return;
      }
      if (op.getNumLoops() == 0) {
        kernels.push_back({op, std::nullopt, nullptr});
        return;
      }
      FailureOr<ReductionCombiner> combiner = matchFullReduction(op);
      if (failed(combiner))
        return; // Host loops (remark emitted).
      linalg::FillOp fill = getFillOfOutput(op);
      if (fill)
        absorbed.insert(fill);
      kernels.push_back({op, *combiner, fill});
    });
    IRRewriter rewriter(&getContext());
    for (size_t i = 0; i < kernels.size(); ++i) {
      Kernel &kernel = kernels[i];
      // A fill that a full reduction absorbs goes with it (below).
      if (absorbed.contains(kernel.op))
        continue;
      // The full reductions after it that join its kernel.
      SmallVector<linalg::LinalgOp> group{kernel.op};
      if (kernel.combiner)
        while (i + 1 < kernels.size() &&
               joinsKernel(kernels[i + 1], group.back(), *kernel.combiner))
          group.push_back(kernels[++i].op);
      // The ops without loops right after those, which its last thread
      // runs at the end.
      SmallVector<linalg::LinalgOp> tail;
      while (i + 1 < kernels.size() &&
             joinsTail(kernels[i + 1],
                       tail.empty() ? group.back() : tail.back(), absorbed))
        tail.push_back(kernels[++i].op);
      // Built where the last one was: the values the others use dominate
      // it, and only ops without memory effects (or that only allocate)
      // lie in between.
      rewriter.setInsertionPoint(tail.empty() ? group.back() : tail.back());
      auto all = llvm::concat<linalg::LinalgOp>(group, tail);
      if (kernel.combiner)
        buildReductionKernel(rewriter, group, *kernel.combiner,
                             kernel.fill ? kernel.fill.value() : Value(), tail);
      else
        buildScalarKernel(rewriter, llvm::to_vector(all));
      for (linalg::LinalgOp op : all)
        rewriter.eraseOp(op);
      if (kernel.fill)
        rewriter.eraseOp(kernel.fill);
    }
  }

  /// Whether `next`, an op without loops, runs at the end of the kernel of
  /// `previous` (the last op that kernel runs), on its last thread 0, after
  /// `previous`: it follows `previous` in its block with only ops without
  /// memory effects or that only allocate (a fresh buffer `previous`
  /// cannot use) in between, and is not a fill a later reduction absorbs.
  /// A loss's mean and the seed of its gradient (the loss scale over the
  /// batch size) join the kernel of the loss's sum this way. Thread 0 runs
  /// them after the block's `gpu.all_reduce`, which every thread reaches
  /// once it has read its share: nothing they write is read by another
  /// thread afterwards.
  static bool joinsTail(const Kernel &next, Operation *previous,
                        const DenseSet<Operation *> &absorbed) {
    if (next.combiner || absorbed.contains(next.op) ||
        next.op->getBlock() != previous->getBlock())
      return false;
    return onlyOpsBetween(previous, next.op, [](Operation *op) {
      return isMemoryEffectFree(op) || onlyAllocates(op);
    });
  }

  /// Whether `last` follows `first` in its block and every op between them
  /// is `allowed`.
  static bool onlyOpsBetween(Operation *first, Operation *last,
                             function_ref<bool(Operation *)> allowed) {
    for (Operation *op = first->getNextNode(); op != last;
         op = op->getNextNode())
      if (!op || !allowed(op))
        return false;
    return true;
  }

  /// Whether the only memory effects of `op` are allocations (of its
  /// results: `memref.alloc`).
  static bool onlyAllocates(Operation *op) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects || op->getNumRegions() != 0)
      return false;
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    return llvm::all_of(instances, [](const MemoryEffects::EffectInstance &e) {
      return isa<MemoryEffects::Allocate>(e.getEffect());
    });
  }

  /// Whether the full reduction of `next` joins the one-block kernel of
  /// `previous` (a full reduction with `combiner`): both fit one block,
  /// `next` follows `previous` in its block with only ops without memory
  /// effects in between, writes the same element of the same output value
  /// with the same combiner, and absorbs no fill (it reads the output
  /// `previous` wrote).
  static bool joinsKernel(Kernel next, linalg::LinalgOp previous,
                          const ReductionCombiner &combiner) {
    if (!next.combiner || next.fill ||
        next.op->getBlock() != previous->getBlock() ||
        next.op.getDpsInits()[0] != previous.getDpsInits()[0] ||
        outputElement(next.op) != outputElement(previous) ||
        reductionBlocks(next.op) != 1 || reductionBlocks(previous) != 1)
      return false;
    const ReductionCombiner &other = *next.combiner;
    if (other.op->getName() != combiner.op->getName() ||
        other.type != combiner.type || other.neutral != combiner.neutral ||
        other.allReduce != combiner.allReduce)
      return false;
    return onlyOpsBetween(previous, next.op,
                          [](Operation *op) { return isMemoryEffectFree(op); });
  }

  /// The indices of the one output element of the full reduction `op` (its
  /// output map's constant results, see whyHost).
  static SmallVector<int64_t> outputElement(linalg::LinalgOp op) {
    SmallVector<int64_t> indices;
    for (AffineExpr e :
         op.getMatchingIndexingMap(&op.getDpsInitsMutable()[0]).getResults())
      indices.push_back(cast<AffineConstantExpr>(e).getValue());
    return indices;
  }

  /// The blocks of the full reduction `op`'s first launch: 1 for a static
  /// iteration space of up to kOneBlockElements elements; else enough that
  /// each thread folds kMinShare elements, at most kMaxPartialBlocks (all
  /// of them for a dynamic size).
  static int64_t reductionBlocks(linalg::LinalgOp op) {
    uint64_t total = 1;
    for (int64_t size : op.getStaticLoopRanges()) {
      if (ShapedType::isDynamic(size))
        return kMaxPartialBlocks;
      total = llvm::SaturatingMultiply<uint64_t>(total, size);
    }
    if (total <= kOneBlockElements)
      return 1;
    uint64_t perBlock = kReductionThreads * kMinShare;
    return std::min<uint64_t>(kMaxPartialBlocks,
                              total / perBlock + (total % perBlock != 0));
  }

  /// Ops without loops, in order: one thread runs them (buildScalarOp).
  void buildScalarKernel(OpBuilder &b, ArrayRef<linalg::LinalgOp> ops) {
    OpBuilder::InsertionGuard guard(b);
    createLaunch(b, ops.front()->getLoc(), b.getIndexAttr(1), 1);
    for (linalg::LinalgOp op : ops)
      buildScalarOp(b, op);
  }

  /// The op without loops `op` at the builder's insertion point: loads its
  /// operands, runs its body and stores its outputs.
  static void buildScalarOp(OpBuilder &b, linalg::LinalgOp op) {
    Location loc = op.getLoc();
    IRMapping mapping;
    SmallVector<Value> yielded = inlineBody(b, loc, op, {}, mapping);
    for (auto [init, value] : llvm::zip(op.getDpsInitsMutable(), yielded))
      memref::StoreOp::create(
          b, loc, value, init.get(),
          applyMap(b, loc, op.getMatchingIndexingMap(&init), {}));
  }

  /// The combiner of the full reduction `op`, or a remark on why it stays
  /// on the host.
  FailureOr<ReductionCombiner> matchFullReduction(linalg::LinalgOp op) {
    auto fail = [&](const auto &...why) {
      InFlightDiagnostic remark = op.emitRemark();
      remark << "amp-gpu-scalar-kernels: this reduction to a scalar runs on "
                "the host (";
      (remark << ... << why);
      remark << ")";
      return failure();
    };
    std::string why;
    FailureOr<ReductionCombiner> combiner = matchReductionCombiner(op, why);
    if (failed(combiner))
      return fail(why);
    if (!combiner->allReduce)
      return fail("combiner '", combiner->op->getName(), "' on ",
                  combiner->type, " has no gpu.all_reduce form here");
    // The threads read the inputs while thread 0 writes the output at the
    // end: an input on the output's buffer would be read stale.
    if (mayReadOutputBuffer(op))
      return fail("an input on the output's buffer");
    return combiner;
  }

  /// Full reductions with `combiner` into one output, one op or a run of
  /// one-block ones (`joinsKernel`): see the file comment. `filled`: the
  /// value of the output's fill (`getFillOfOutput`), which the result is
  /// combined with instead of the output, or null. `tail`: ops without
  /// loops (`joinsTail`) that thread 0 runs after the combine.
  void buildReductionKernel(OpBuilder &b, ArrayRef<linalg::LinalgOp> ops,
                            const ReductionCombiner &combiner, Value filled,
                            ArrayRef<linalg::LinalgOp> tail) {
    linalg::LinalgOp op = ops.front();
    Location loc = op.getLoc();
    // The iteration space, linearized.
    SmallVector<Value> sizes = loopSizes(b, loc, op);
    Value total = product(b, loc, sizes);
    int64_t blocks = reductionBlocks(op);
    assert((ops.size() == 1 || blocks == 1) &&
           "only one-block reductions share a kernel");
    auto index = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    // Folds the elements first, first + step, ... of the iteration space
    // of each op of `ops` in turn (or of `partials`, a partial results
    // buffer, up to `blocks`, when given) from the neutral element, and
    // combines the block's; returns the block's result with the builder
    // inside an scf.if of thread 0 (`tid` == 0).
    auto foldShare = [&](Value first, Value step, Value tid, Value partials) {
      Value acc = arith::ConstantOp::create(b, loc, combiner.neutral);
      if (partials) {
        acc =
            scf::ForOp::create(
                b, loc, first, index(blocks), step, ValueRange{acc},
                [&](OpBuilder &lb, Location l, Value linear, ValueRange iter) {
                  Value partial = memref::LoadOp::create(lb, l, partials,
                                                         ValueRange{linear});
                  scf::YieldOp::create(
                      lb, l, combiner.combine(lb, iter.front(), partial));
                })
                .getResult(0);
      } else {
        for (linalg::LinalgOp folded : ops) {
          SmallVector<Value> foldedSizes =
              folded == op ? sizes : loopSizes(b, loc, folded);
          Value end = folded == op ? total : product(b, loc, foldedSizes);
          // Each op's own body, its output argument taking the accumulator.
          BlockArgument out =
              folded.getMatchingBlockArgument(&folded.getDpsInitsMutable()[0]);
          acc = scf::ForOp::create(
                    b, loc, first, end, step, ValueRange{acc},
                    [&](OpBuilder &lb, Location l, Value linear,
                        ValueRange iter) {
                      auto ivs = affine::AffineDelinearizeIndexOp::create(
                          lb, l, linear, foldedSizes, /*hasOuterBound=*/true);
                      IRMapping mapping;
                      mapping.map(out, iter.front());
                      scf::YieldOp::create(
                          lb, l,
                          inlineBody(lb, l, folded, ivs.getResults(), mapping));
                    })
                    .getResult(0);
        }
      }
      Value all = combiner.allReduceInBlock(b, loc, acc);
      Value first0 = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           tid, index(0));
      auto ifFirst = scf::IfOp::create(b, loc, first0);
      b.setInsertionPointToStart(ifFirst.thenBlock());
      return all;
    };
    OpBuilder::InsertionGuard guard(b);
    if (blocks == 1) {
      // One block: thread t folds t, t + 1024, ...
      Value tid = createLaunch(b, loc, b.getIndexAttr(1), kReductionThreads)
                      .getThreadIds()
                      .x;
      combiner.combineIntoOutput(
          b, loc, op, {},
          foldShare(tid, index(kReductionThreads), tid, Value()), filled);
      for (linalg::LinalgOp scalar : tail)
        buildScalarOp(b, scalar);
      return;
    }
    // Grid-wide: block k's thread t folds k * 1024 + t, then every
    // blocks * 1024 elements on; thread 0 stores the block's result to
    // partials[k]; one more block combines them with the output.
    auto partialsType = MemRefType::get({blocks}, combiner.type);
    Value partials = memref::AllocOp::create(b, loc, partialsType);
    {
      OpBuilder::InsertionGuard inner(b);
      gpu::LaunchOp first =
          createLaunch(b, loc, b.getIndexAttr(blocks), kReductionThreads);
      Value tid = first.getThreadIds().x;
      Value block = first.getBlockIds().x;
      AffineExpr d0 = b.getAffineDimExpr(0), d1 = b.getAffineDimExpr(1);
      Value start = affine::AffineApplyOp::create(
          b, loc, AffineMap::get(2, 0, d0 * kReductionThreads + d1),
          ValueRange{block, tid});
      Value share =
          foldShare(start, index(blocks * kReductionThreads), tid, Value());
      memref::StoreOp::create(b, loc, share, partials, ValueRange{block});
    }
    {
      OpBuilder::InsertionGuard inner(b);
      Value tid = createLaunch(b, loc, b.getIndexAttr(1), kPartialThreads)
                      .getThreadIds()
                      .x;
      combiner.combineIntoOutput(
          b, loc, op, {}, foldShare(tid, index(kPartialThreads), tid, partials),
          filled);
      for (linalg::LinalgOp scalar : tail)
        buildScalarOp(b, scalar);
    }
    memref::DeallocOp::create(b, loc, partials);
  }
};

} // namespace
