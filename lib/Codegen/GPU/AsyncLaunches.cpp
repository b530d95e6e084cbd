//===- AsyncLaunches.cpp - kernels queued on one stream -------------------===//
//
// The `amp-gpu-async-launches` pass: in each block of host code, kernel
// launches and the waited-for copies and frees that amp-gpu-managed-memory
// emits are queued in order on one stream (an async token chain), and the
// host waits for the stream only before an op that may touch memory or
// whose effects are unknown, before ops with regions and before the block's
// terminator. Synchronous `gpu.launch_func` costs a stream, a launch and a
// synchronization each in MLIR 22's gpu-to-llvm (Passes.td has the rules).
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/Amp.h"
#include "amp/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPGPUASYNCLAUNCHES
#include "amp/Codegen/GPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

/// `gpu.wait async` with no dependencies: the start of a new stream.
bool isStreamStart(Operation *op) {
  auto wait = dyn_cast<gpu::WaitOp>(op);
  return wait && wait.getAsyncToken() && wait.getAsyncDependencies().empty();
}

/// The waited-for async op of amp-gpu-managed-memory's pattern
///   %s = gpu.wait async
///   %t = <gpu.memcpy | gpu.dealloc | gpu.memset> async [%s] ...
///   gpu.wait [%t]
/// as `op` (the middle op): its start and its wait, or nothing.
std::optional<std::pair<gpu::WaitOp, gpu::WaitOp>>
matchWaitedAsyncOp(Operation *op) {
  if (!isa<gpu::MemcpyOp, gpu::DeallocOp, gpu::MemsetOp>(op))
    return std::nullopt;
  auto async = cast<gpu::AsyncOpInterface>(op);
  Value token = async.getAsyncToken();
  if (!token || !token.hasOneUse() || async.getAsyncDependencies().size() != 1)
    return std::nullopt;
  auto start = async.getAsyncDependencies()[0].getDefiningOp<gpu::WaitOp>();
  auto done = dyn_cast<gpu::WaitOp>(*token.getUsers().begin());
  if (!start || !isStreamStart(start) || !start.getAsyncToken().hasOneUse() ||
      start->getBlock() != op->getBlock() || !done || done.getAsyncToken() ||
      done.getAsyncDependencies().size() != 1 ||
      done->getBlock() != op->getBlock())
    return std::nullopt;
  return std::make_pair(start, done);
}

/// Whether `op` is an `scf.if` that only frees buffers (amp-gpu-managed-
/// memory's waited-for `gpu.dealloc`s) and computes without memory
/// effects: its block gets its own chain, and the host need not wait for
/// the outer one first.
bool isConditionalFree(Operation *op) {
  if (!isa<scf::IfOp>(op))
    return false;
  WalkResult walk = op->walk([&](Operation *inner) {
    if (inner == op || isa<gpu::WaitOp, gpu::DeallocOp, scf::YieldOp>(inner) ||
        (inner->getNumRegions() == 0 && isMemoryEffectFree(inner)))
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return !walk.wasInterrupted();
}

/// The queued variant of `call`'s callee (`amp.queued_variant`), declared
/// in the module like the callee when it is not yet; null if it has none,
/// or (with a warning: the call then waits) if its name is another symbol
/// than a function of the callee's type.
func::FuncOp queuedVariant(func::CallOp call) {
  auto module = call->getParentOfType<ModuleOp>();
  auto callee = module ? module.lookupSymbol<func::FuncOp>(call.getCallee())
                       : func::FuncOp();
  auto name = callee ? callee->getAttrOfType<FlatSymbolRefAttr>(
                           AmpDialect::getQueuedVariantAttrName())
                     : FlatSymbolRefAttr();
  if (!name)
    return {};
  if (Operation *existing = module.lookupSymbol(name.getAttr())) {
    auto variant = dyn_cast<func::FuncOp>(existing);
    if (variant && variant.getFunctionType() == callee.getFunctionType())
      return variant;
    call.emitWarning("amp-gpu-async-launches: the queued variant ")
        << name << " of @" << callee.getName()
        << " is not a function of its type; this call waits for the device";
    return {};
  }
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  auto variant = cast<func::FuncOp>(b.clone(*callee));
  variant.setName(name.getValue());
  variant->removeAttr(AmpDialect::getQueuedVariantAttrName());
  return variant;
}

struct AmpGpuAsyncLaunchesPass
    : public amp::impl::AmpGpuAsyncLaunchesBase<AmpGpuAsyncLaunchesPass> {
  using Base::Base;

  void runOnOperation() override {
    // A module pass: a call's queued variant may have to be declared.
    SmallVector<Block *> blocks;
    for (auto func : getOperation().getOps<func::FuncOp>())
      func.walk([&](Block *block) { blocks.push_back(block); });
    for (Block *block : blocks)
      queueBlock(*block);
  }

  /// Chains the block's launches, copies and frees on one token; waits for
  /// it before the ops that the host runs on memory.
  void queueBlock(Block &block) {
    OpBuilder b(&getContext());
    auto tokenType = gpu::AsyncTokenType::get(&getContext());
    Value token; // the stream's last queued op, or null: nothing queued
    auto chainTo = [&](Operation *op) {
      b.setInsertionPoint(op);
      if (!token)
        token = gpu::WaitOp::create(b, op->getLoc(), tokenType, ValueRange{})
                    .getAsyncToken();
      return token;
    };
    auto waitBefore = [&](Operation *op) {
      if (!token)
        return;
      b.setInsertionPoint(op);
      gpu::WaitOp::create(b, op->getLoc(), Type(), ValueRange{token});
      token = nullptr;
    };

    // The ops as they are now: the loop erases the waits of the pattern
    // above, before and after the op it visits.
    SmallVector<Operation *> ops =
        llvm::map_to_vector(block, [](Operation &op) { return &op; });
    llvm::SmallPtrSet<Operation *, 8> erased;
    for (Operation *opPtr : ops) {
      if (erased.contains(opPtr))
        continue;
      Operation &op = *opPtr;
      // A synchronous launch: queued after the stream's last op.
      if (auto launch = dyn_cast<gpu::LaunchFuncOp>(&op)) {
        if (!launch.getAsyncToken() && launch.getAsyncDependencies().empty() &&
            !launch.getAsyncObject()) {
          Value dep = chainTo(launch);
          Operation *async = Operation::create(
              launch->getLoc(), launch->getName(), TypeRange{tokenType},
              launch->getOperands(), launch->getDiscardableAttrDictionary(),
              launch->getPropertiesStorage(), BlockRange{}, 0);
          b.insert(async);
          cast<gpu::AsyncOpInterface>(async).addAsyncDependency(dep);
          token = async->getResult(0);
          launch->erase();
          continue;
        }
      }
      // A runtime call with a queued variant (the cuBLAS GEMM): that one,
      // ordered on the device; a chain stays open so the host waits later.
      if (auto call = dyn_cast<func::CallOp>(&op)) {
        if (func::FuncOp variant = queuedVariant(call)) {
          call.setCallee(variant.getName());
          chainTo(call);
          continue;
        }
      }
      // A copy or free on a stream of its own, waited for at once: queued.
      if (auto waited = matchWaitedAsyncOp(&op)) {
        auto [start, done] = *waited;
        auto async = cast<gpu::AsyncOpInterface>(&op);
        if (token) {
          // Its only dependency: the stream's last op instead of the start.
          op.setOperand(async.getAsyncDependencies().getBeginOperandIndex(),
                        token);
          erased.insert(start);
          start->erase();
        }
        token = async.getAsyncToken();
        erased.insert(done);
        done->erase();
        continue;
      }
      // A stream start that a later copy or free may use (handled there),
      // an allocation (reused memory comes back in stream order), an op
      // without memory effects: nothing to wait for. A terminator always
      // waits: nothing stays queued past the block.
      if (!op.hasTrait<OpTrait::IsTerminator>() && op.getNumRegions() == 0 &&
          (isStreamStart(&op) ||
           hasSingleEffect<MemoryEffects::Allocate>(&op) ||
           isMemoryEffectFree(&op)))
        continue;
      // A conditional free (bufferization's ownership-based deallocation):
      // the host frees at once whatever the stream still runs.
      if (isConditionalFree(&op))
        continue;
      // The host touches memory, or may (a call, a terminator, an op with
      // regions, unknown effects): everything queued must be done.
      waitBefore(&op);
    }
    if (token) { // a block without terminator
      b.setInsertionPointToEnd(&block);
      gpu::WaitOp::create(b, block.back().getLoc(), Type(), ValueRange{token});
    }
  }
};

} // namespace
