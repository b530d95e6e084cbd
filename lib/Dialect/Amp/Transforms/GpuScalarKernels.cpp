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

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPGPUSCALARKERNELS
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

/// Threads of a reduction kernel's one block.
constexpr int64_t kReductionThreads = 1024;

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

struct AmpGpuScalarKernelsPass
    : public amp::impl::AmpGpuScalarKernelsBase<AmpGpuScalarKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
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
    std::string why;
    FailureOr<ReductionCombiner> combiner = matchReductionCombiner(op, why);
    if (failed(combiner))
      return fail(why);
    if (!combiner->allReduce)
      return fail("combiner '", combiner->op->getName(), "' on ",
                  combiner->type, " has no gpu.all_reduce form here");
    OpOperand &init = op.getDpsInitsMutable()[0];
    // The threads read the inputs while thread 0 writes the output at the
    // end: an input on the output's buffer would be read stale.
    if (mayReadOutputBuffer(op))
      return fail("an input on the output's buffer");

    // The iteration space, linearized: thread t folds t, t + 1024, ...
    SmallVector<Value> sizes = loopSizes(b, loc, op);
    Value total = product(b, loc, sizes);

    OpBuilder::InsertionGuard guard(b);
    Value tid = launch(b, loc, kReductionThreads);
    Value step = arith::ConstantIndexOp::create(b, loc, kReductionThreads);
    Value start = arith::ConstantOp::create(b, loc, combiner->neutral);
    auto loop = scf::ForOp::create(
        b, loc, tid, total, step, ValueRange{start},
        [&](OpBuilder &lb, Location l, Value linear, ValueRange acc) {
          auto ivs = affine::AffineDelinearizeIndexOp::create(
              lb, l, linear, sizes, /*hasOuterBound=*/true);
          IRMapping mapping;
          mapping.map(combiner->out, acc.front());
          SmallVector<Value> yielded =
              inlineBody(lb, l, op, ivs.getResults(), mapping);
          scf::YieldOp::create(lb, l, yielded);
        });
    Value all = combiner->allReduceInBlock(b, loc, loop.getResult(0));
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value first =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, zero);
    auto store = scf::IfOp::create(b, loc, first);
    b.setInsertionPointToStart(store.thenBlock());
    SmallVector<Value> at =
        applyMap(b, loc, op.getMatchingIndexingMap(&init), {});
    Value old = memref::LoadOp::create(b, loc, init.get(), at);
    memref::StoreOp::create(b, loc, combiner->combine(b, old, all), init.get(),
                            at);
    return success();
  }
};

} // namespace
