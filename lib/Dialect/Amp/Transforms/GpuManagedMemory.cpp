//===- GpuManagedMemory.cpp - host buffers GPU kernels can read -----------===//
//
// The `amp-gpu-managed-memory` pass makes every buffer of the host code
// that `gpu.launch` kernels may touch device-accessible, with CUDA managed
// (unified) memory: `gpu.alloc host_shared`, which the host code between
// launches can also read and write (launches are synchronous until the
// pipeline makes them async).
//
// - `memref.alloc` -> `gpu.alloc host_shared`, `memref.dealloc` -> an async
//   `gpu.dealloc` that is waited for (MLIR 22's gpu-to-llvm cannot lower
//   the synchronous form);
// - `memref.get_global` (constants) -> a managed copy;
// - public functions keep a host-memory ABI: memref arguments are copied
//   into managed buffers on entry, and memref results are copied into
//   `memref.alloc` (malloc) buffers before the return, so callers (the JIT
//   runner, the Python package) pass and free ordinary host memory.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPGPUMANAGEDMEMORY
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

/// A managed buffer with the shape of `like` (a ranked memref value).
Value allocManaged(OpBuilder &b, Location loc, Value like) {
  auto type = cast<MemRefType>(like.getType());
  auto plain = MemRefType::get(type.getShape(), type.getElementType());
  SmallVector<Value> dynamicSizes;
  for (int64_t i = 0, e = type.getRank(); i < e; ++i)
    if (type.isDynamicDim(i))
      dynamicSizes.push_back(memref::DimOp::create(b, loc, like, i));
  return gpu::AllocOp::create(b, loc, plain, /*asyncToken=*/Type(),
                              /*asyncDependencies=*/ValueRange{}, dynamicSizes,
                              /*symbolOperands=*/ValueRange{},
                              /*hostShared=*/true)
      .getMemref();
}

/// Frees a managed buffer: async dealloc, then wait.
void deallocManaged(OpBuilder &b, Location loc, Value memref) {
  auto tokenType = gpu::AsyncTokenType::get(b.getContext());
  Value start = gpu::WaitOp::create(b, loc, tokenType, ValueRange{})
                    .getAsyncToken();
  Value done =
      gpu::DeallocOp::create(b, loc, tokenType, ValueRange{start}, memref)
          .getAsyncToken();
  gpu::WaitOp::create(b, loc, Type(), ValueRange{done});
}

struct AmpGpuManagedMemoryPass
    : public amp::impl::AmpGpuManagedMemoryBase<AmpGpuManagedMemoryPass> {
  using Base::Base;

  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      if (failed(convert(func)))
        return signalPassFailure();
    }
  }

  LogicalResult convert(func::FuncOp func) {
    IRRewriter rewriter(func.getContext());
    // Buffers to free before each return: managed copies of arguments and
    // globals.
    SmallVector<Value> scoped;

    WalkResult walk = func.walk([&](Operation *op) -> WalkResult {
      if (op->getParentOfType<gpu::LaunchOp>())
        return WalkResult::advance();
      rewriter.setInsertionPoint(op);
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        if (!alloc.getType().getLayout().isIdentity())
          return alloc.emitError("amp-gpu-managed-memory: only identity "
                                 "layouts can be managed allocations");
        auto managed = gpu::AllocOp::create(
            rewriter, alloc.getLoc(), alloc.getType(), Type(), ValueRange{},
            alloc.getDynamicSizes(), alloc.getSymbolOperands(), true);
        rewriter.replaceOp(alloc, managed.getMemref());
        return WalkResult::advance();
      }
      if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        deallocManaged(rewriter, dealloc.getLoc(), dealloc.getMemref());
        rewriter.eraseOp(dealloc);
        return WalkResult::advance();
      }
      if (auto global = dyn_cast<memref::GetGlobalOp>(op)) {
        rewriter.setInsertionPointAfter(global);
        Value copy = allocManaged(rewriter, global.getLoc(), global);
        memref::CopyOp::create(rewriter, global.getLoc(), global, copy);
        rewriter.replaceAllUsesExcept(global, copy,
                                      copy.getDefiningOp()->getNextNode());
        scoped.push_back(copy);
        return WalkResult::advance();
      }
      if (isa<memref::AllocaOp>(op))
        return op->emitError("amp-gpu-managed-memory: stack buffers cannot "
                             "be shared with GPU kernels");
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();

    // Arguments of public functions: host memory in, managed copies inside.
    Block &entry = func.getBody().front();
    if (func.isPublic()) {
      rewriter.setInsertionPointToStart(&entry);
      for (BlockArgument arg : entry.getArguments()) {
        if (!isa<MemRefType>(arg.getType()) || arg.use_empty())
          continue;
        // The copy sequences are inserted before `anchor`, the function's
        // first original op: they read the arguments themselves, every
        // original use reads the managed copy.
        Operation *anchor = &*rewriter.getInsertionPoint();
        Value copy = allocManaged(rewriter, arg.getLoc(), arg);
        memref::CopyOp::create(rewriter, arg.getLoc(), arg, copy);
        llvm::SmallPtrSet<Operation *, 8> created;
        for (Operation *op = anchor->getPrevNode(); op; op = op->getPrevNode())
          created.insert(op);
        rewriter.replaceUsesWithIf(arg, copy, [&](OpOperand &use) {
          return !created.contains(use.getOwner());
        });
        scoped.push_back(copy);
      }
    }

    // Returns: results back to host memory (public functions), then free
    // the managed buffers that leave the function's scope.
    SmallVector<func::ReturnOp> returns;
    func.walk([&](func::ReturnOp ret) { returns.push_back(ret); });
    for (func::ReturnOp ret : returns) {
      rewriter.setInsertionPoint(ret);
      llvm::SmallPtrSet<Value, 8> freed;
      if (func.isPublic()) {
        for (OpOperand &operand : ret->getOpOperands()) {
          Value v = operand.get();
          if (!isa<MemRefType>(v.getType()))
            continue;
          auto type = cast<MemRefType>(v.getType());
          SmallVector<Value> dynamicSizes;
          for (int64_t i = 0, e = type.getRank(); i < e; ++i)
            if (type.isDynamicDim(i))
              dynamicSizes.push_back(
                  memref::DimOp::create(rewriter, ret.getLoc(), v, i));
          Value host = memref::AllocOp::create(
              rewriter, ret.getLoc(),
              MemRefType::get(type.getShape(), type.getElementType()),
              dynamicSizes);
          memref::CopyOp::create(rewriter, ret.getLoc(), v, host);
          // A returned buffer is owned by the caller: it was managed and
          // allocated here (or is one of the scoped copies).
          if (!llvm::is_contained(scoped, v) && freed.insert(v).second)
            deallocManaged(rewriter, ret.getLoc(), v);
          operand.set(host);
        }
      }
      for (Value v : scoped)
        if (freed.insert(v).second)
          deallocManaged(rewriter, ret.getLoc(), v);
    }
    return success();
  }
};

} // namespace
