//===- ManagedMemory.cpp - host buffers GPU kernels can read --------------===//
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
// - `memref.get_global` (constants) -> a managed copy (`gpu.memcpy`);
// - public functions keep a host-memory ABI: each becomes a wrapper that
//   copies its memref arguments into managed buffers, calls the managed body
//   (now a private `<name>__amp_managed`, which calls inside the module use
//   directly), copies back the arguments the body may write, copies the
//   results out to `memref.alloc` (malloc) buffers, and frees every managed
//   allocation once. The copies between identity-layout buffers are
//   `gpu.memcpy`s (the driver's copy engine; managed pages stay on the
//   device). Callers (the JIT runner, the Python package) pass and
//   free ordinary host memory;
// - the managed body `<name>__amp_managed` stays public (with the C
//   interface `<name>` had): callers that keep their buffers in managed
//   memory across calls (the Python package's device arrays) call it
//   directly, without copies. It may write its arguments in place (one-shot
//   bufferization's function arguments are writable; `amp.may_write_args`
//   lists those the alias walk cannot rule out), and it returns buffers the
//   caller frees, or its arguments themselves.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/Amp.h"
#include "amp/Codegen/GPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPGPUMANAGEDMEMORY
#include "amp/Codegen/GPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

/// The sizes of the dynamic dimensions of the ranked memref `value`.
SmallVector<Value> dynamicSizesOf(OpBuilder &b, Location loc, Value value) {
  auto type = cast<MemRefType>(value.getType());
  SmallVector<Value> sizes;
  for (int64_t i = 0, e = type.getRank(); i < e; ++i)
    if (type.isDynamicDim(i))
      sizes.push_back(memref::DimOp::create(b, loc, value, i));
  return sizes;
}

/// A managed buffer with the shape of `like` (a ranked memref value).
Value allocManaged(OpBuilder &b, Location loc, Value like) {
  auto type = cast<MemRefType>(like.getType());
  auto plain = MemRefType::get(type.getShape(), type.getElementType());
  return gpu::AllocOp::create(b, loc, plain, /*asyncToken=*/Type(),
                              /*asyncDependencies=*/ValueRange{},
                              dynamicSizesOf(b, loc, like),
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

/// Copies `src` to `dst` (same shape and element type). Between identity-
/// layout buffers, with the driver's copy engine (`gpu.memcpy`, async and
/// waited for, as gpu-to-llvm lowers it): a managed buffer's pages stay on
/// the device, where a host loop (`memref.copy`) would pull them to the host
/// and the next kernel would fault them back. Other layouts: `memref.copy`.
/// Returns the op that copies.
Operation *copyBuffer(OpBuilder &b, Location loc, Value src, Value dst) {
  auto srcType = cast<MemRefType>(src.getType());
  auto dstType = cast<MemRefType>(dst.getType());
  if (!srcType.getLayout().isIdentity() || !dstType.getLayout().isIdentity())
    return memref::CopyOp::create(b, loc, src, dst);
  auto tokenType = gpu::AsyncTokenType::get(b.getContext());
  Value start =
      gpu::WaitOp::create(b, loc, tokenType, ValueRange{}).getAsyncToken();
  auto copy =
      gpu::MemcpyOp::create(b, loc, tokenType, ValueRange{start}, dst, src);
  gpu::WaitOp::create(b, loc, Type(), ValueRange{copy.getAsyncToken()});
  return copy;
}

/// Whether the aligned pointer `intptr` of a buffer is only compared or
/// stored as a number into an index buffer: the ownership checks of
/// bufferization's deallocation (pointer lists for its dealloc helper).
bool onlyComparedOrListed(Value intptr) {
  return llvm::all_of(intptr.getUses(), [](OpOperand &use) {
    if (isa<arith::CmpIOp>(use.getOwner()))
      return true;
    auto store = dyn_cast<memref::StoreOp>(use.getOwner());
    return store && use.get() == store.getValueToStore() &&
           store.getMemRefType().getElementType().isIndex();
  });
}

/// Whether the function body may write the memory of its argument `arg`:
/// a user of it or of an alias of it (a view, a value an `scf.for` carries
/// or an `scf.if` returns) that writes it, passes it to a call, another
/// region-carrying op, a terminator other than `func.return` and those
/// `scf.yield`s (a branch to a block argument), an op whose memory effects
/// are unknown, an op that makes a tensor of it, or an op without effects
/// on it that makes it into a value the walk cannot follow (a pointer, a
/// memref stored as a value).
/// Answers "may" when unsure; the wrapper then copies the argument back. A
/// `Free` is not a write: the body does not own its arguments, and the
/// ownership checks bufferization's deallocation puts around a carried
/// buffer's dealloc keep it from freeing one.
bool mayWrite(BlockArgument arg) {
  SmallVector<Value> work = {arg};
  llvm::SmallPtrSet<Value, 8> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (isa<func::ReturnOp>(user))
        continue; // returned: the caller gets a copy, nothing is written
      if (auto view = dyn_cast<ViewLikeOpInterface>(user)) {
        if (view.getViewSource() == v) {
          llvm::append_range(work, user->getResults());
          continue;
        }
      }
      if (auto loop = dyn_cast<scf::ForOp>(user)) {
        if (OpResult result = loop.getTiedLoopResult(&use)) {
          work.push_back(loop.getTiedLoopRegionIterArg(&use));
          work.push_back(result);
          continue;
        }
      }
      if (auto yield = dyn_cast<scf::YieldOp>(user)) {
        Operation *parent = yield->getParentOp();
        unsigned i = use.getOperandNumber();
        if (auto loop = dyn_cast<scf::ForOp>(parent)) {
          work.push_back(loop.getRegionIterArgs()[i]);
          work.push_back(loop->getResult(i));
          continue;
        }
        if (isa<scf::IfOp>(parent)) {
          work.push_back(parent->getResult(i));
          continue;
        }
        return true;
      }
      if (user->getNumRegions() != 0 || user->hasTrait<OpTrait::IsTerminator>())
        return true;
      auto effects = dyn_cast<MemoryEffectOpInterface>(user);
      if (!effects)
        return true;
      SmallVector<MemoryEffects::EffectInstance> instances;
      effects.getEffectsOnValue(v, instances);
      if (llvm::any_of(instances, [](const MemoryEffects::EffectInstance &e) {
            return isa<MemoryEffects::Write>(e.getEffect());
          }))
        return true;
      // An op that returns memrefs may return aliases of `v`; one with no
      // effect on `v` and no memref result may turn it into something the
      // walk cannot follow, unless it only reads its shape or its address
      // for the ownership checks.
      bool memrefResult = false;
      for (Value result : user->getResults())
        if (isa<BaseMemRefType>(result.getType())) {
          work.push_back(result);
          memrefResult = true;
        }
      // A tensor made from it (bufferization.to_tensor) may become the same
      // buffer again.
      if (llvm::any_of(user->getResultTypes(), llvm::IsaPred<TensorType>))
        return true;
      if (instances.empty() && !memrefResult &&
          !isa<memref::DimOp, memref::RankOp>(user)) {
        auto intptr = dyn_cast<memref::ExtractAlignedPointerAsIndexOp>(user);
        if (!intptr || !onlyComparedOrListed(intptr.getAlignedPointer()))
          return true;
      }
    }
  }
  return false;
}

/// Whether `value` (or a view of it) is used inside a gpu.launch.
bool reachesKernel(Value value) {
  SmallVector<Value> work = {value};
  llvm::SmallPtrSet<Value, 8> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second)
      continue;
    for (Operation *user : v.getUsers()) {
      if (user->getParentOfType<gpu::LaunchOp>() || isa<gpu::LaunchOp>(user))
        return true;
      if (isa<ViewLikeOpInterface>(user))
        llvm::append_range(work, user->getResults());
    }
  }
  return false;
}

/// The buffer a memref lives in (its base buffer) and that buffer's aligned
/// pointer as an index, to tell at run time whether two memrefs share an
/// allocation.
std::pair<Value, Value> baseBuffer(OpBuilder &b, Location loc, Value memref) {
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, memref);
  Value base = meta.getBaseBuffer();
  return {base, memref::ExtractAlignedPointerAsIndexOp::create(b, loc, base)};
}

struct AmpGpuManagedMemoryPass
    : public amp::impl::AmpGpuManagedMemoryBase<AmpGpuManagedMemoryPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> funcs;
    for (auto func : module.getOps<func::FuncOp>())
      if (!func.isExternal())
        funcs.push_back(func);
    // 1. Inside every function: managed buffers.
    for (func::FuncOp func : funcs)
      if (failed(convert(func)))
        return signalPassFailure();
    // 2. Public functions with memref arguments or results keep a
    // host-memory ABI through a wrapper; calls inside the module go to the
    // managed body directly.
    for (func::FuncOp func : funcs)
      if (func.isPublic() && failed(wrap(func)))
        return signalPassFailure();
  }

  LogicalResult convert(func::FuncOp func) {
    IRRewriter rewriter(func.getContext());
    // Managed copies of constants, made at entry, freed before returns.
    SmallVector<Value> scoped;
    Block &entry = func.getBody().front();

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
        auto symbol = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
            global, global.getNameAttr());
        if (symbol && !symbol.getConstant())
          return global.emitError("amp-gpu-managed-memory: mutable globals "
                                  "are not supported (kernels would update "
                                  "a copy)");
        // One managed copy per use site, made at function entry (the
        // constant does not change), freed before the returns.
        global->moveBefore(&entry, entry.begin());
        rewriter.setInsertionPointAfter(global);
        Value copy = allocManaged(rewriter, global.getLoc(), global);
        Operation *copyOp = copyBuffer(rewriter, global.getLoc(), global, copy);
        rewriter.replaceAllUsesExcept(global, copy, copyOp);
        scoped.push_back(copy);
        return WalkResult::advance();
      }
      if (auto alloca = dyn_cast<memref::AllocaOp>(op)) {
        if (reachesKernel(alloca))
          return op->emitError("amp-gpu-managed-memory: stack buffers cannot "
                               "be shared with GPU kernels");
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();

    // A copy the function returns (or a view of it) goes to the caller,
    // which frees it.
    func.walk([&](func::ReturnOp ret) {
      llvm::SmallPtrSet<Value, 4> returned;
      for (Value v : ret.getOperands()) {
        while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
          v = view.getViewSource();
        returned.insert(v);
      }
      rewriter.setInsertionPoint(ret);
      for (Value v : scoped)
        if (!returned.contains(v))
          deallocManaged(rewriter, ret.getLoc(), v);
    });
    return success();
  }

  /// Makes `func` a host-memory wrapper around a public managed copy of
  /// its body: arguments are copied into managed buffers (and back after
  /// the call when the body may write them), results are copied out to
  /// malloc'ed buffers, and each managed allocation is freed once.
  LogicalResult wrap(func::FuncOp func) {
    auto isMemRef = [](Type t) { return isa<BaseMemRefType>(t); };
    if (llvm::none_of(func.getArgumentTypes(), isMemRef) &&
        llvm::none_of(func.getResultTypes(), isMemRef))
      return success();
    for (Type t : llvm::concat<const Type>(func.getArgumentTypes(),
                                           func.getResultTypes())) {
      auto m = dyn_cast<BaseMemRefType>(t);
      if (!m)
        continue;
      auto ranked = dyn_cast<MemRefType>(m);
      if (!ranked || !ranked.getLayout().isIdentity() ||
          ranked.getMemorySpace())
        return func.emitError("amp-gpu-managed-memory: public function "
                              "arguments and results must be ranked memrefs "
                              "with the identity layout in the default "
                              "memory space, got ")
               << t;
    }

    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    IRRewriter rewriter(ctx);
    // The managed body under a new name; calls in the module go there. It
    // stays public, with the C interface the function had, as the entry
    // point for callers that keep their buffers in managed memory across
    // calls (the Python package's device arrays): no copies.
    auto body = cast<func::FuncOp>(func->clone());
    std::string name = (func.getName() + "__amp_managed").str();
    if (SymbolTable::lookupSymbolIn(module, name))
      return func.emitError("amp-gpu-managed-memory: the managed body of @")
             << func.getName() << " would be @" << name
             << ", a symbol the module already has";
    body.setName(name);
    module.insert(std::next(func->getIterator()), body);
    if (failed(SymbolTable::replaceAllSymbolUses(
            func.getNameAttr(), StringAttr::get(ctx, name), module)))
      return func.emitError("amp-gpu-managed-memory: cannot redirect calls");

    // The wrapper.
    func.getBody().dropAllReferences();
    func.getBody().getBlocks().clear();
    Block *block = func.addEntryBlock();
    Location loc = func.getLoc();
    rewriter.setInsertionPointToStart(block);
    SmallVector<Value> args, copies;
    for (BlockArgument arg : block->getArguments()) {
      if (!isa<MemRefType>(arg.getType())) {
        args.push_back(arg);
        continue;
      }
      Value copy = allocManaged(rewriter, loc, arg);
      copyBuffer(rewriter, loc, arg, copy);
      args.push_back(copy);
      copies.push_back(copy);
    }
    auto call = func::CallOp::create(rewriter, loc, body, args);
    // Write-back of the arguments the body may have written in place; the
    // body records them for its direct callers (`amp.may_write_args`, which
    // the LLVM lowering keeps on the function).
    SmallVector<int64_t> written;
    for (auto [arg, copy, bodyArg] :
         llvm::zip(block->getArguments(), args, body.getArguments())) {
      if (arg == copy || !mayWrite(bodyArg))
        continue;
      copyBuffer(rewriter, loc, copy, arg);
      written.push_back(bodyArg.getArgNumber());
    }
    body->setAttr(AmpDialect::getMayWriteArgsAttrName(),
                  rewriter.getDenseI64ArrayAttr(written));
    SmallVector<Value> results, freedPointers;
    for (Value copy : copies)
      freedPointers.push_back(baseBuffer(rewriter, loc, copy).second);
    // Copy every result out before freeing anything (results may share an
    // allocation).
    for (Value r : call.getResults()) {
      auto type = dyn_cast<MemRefType>(r.getType());
      if (!type) {
        results.push_back(r);
        continue;
      }
      Value host = memref::AllocOp::create(rewriter, loc, type,
                                           dynamicSizesOf(rewriter, loc, r));
      copyBuffer(rewriter, loc, r, host);
      results.push_back(host);
    }
    // Free each allocation behind the results once, unless it is one of the
    // argument copies (freed below) or an earlier result's.
    for (Value r : call.getResults()) {
      if (!isa<MemRefType>(r.getType()))
        continue;
      auto [base, ptr] = baseBuffer(rewriter, loc, r);
      Value fresh = arith::ConstantOp::create(rewriter, loc,
                                              rewriter.getBoolAttr(true));
      for (Value other : freedPointers) {
        Value differs = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::ne, ptr, other);
        fresh = arith::AndIOp::create(rewriter, loc, fresh, differs);
      }
      auto ifOp = scf::IfOp::create(rewriter, loc, fresh);
      {
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPointToStart(ifOp.thenBlock());
        deallocManaged(rewriter, loc, base);
      }
      freedPointers.push_back(ptr);
    }
    for (Value copy : copies)
      deallocManaged(rewriter, loc, copy);
    func::ReturnOp::create(rewriter, loc, results);
    return success();
  }
};

} // namespace
