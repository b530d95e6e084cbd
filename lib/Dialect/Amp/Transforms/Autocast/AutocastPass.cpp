//===- AutocastPass.cpp - the amp-autocast pass ---------------------------===//
// The `amp-autocast` pass: for every enabled autocast region (amp.autocast op
// or decorated function), decide each op's compute type from the cast policy
// (eager: op by op as PyTorch; graph: dataflow painting as OneFlow and
// TensorFlow), insert amp.cast where a value changes type (once per value and
// type with the weight-cast cache), rebuild the ops at their new types, and
// inline the region. The algorithm is documented step by step in
// docs/Autocast.md.
//
//
// This file holds the pass: its options, the scopes it visits (outermost
// first), the cleanup and the statistics. The rewrite of one scope is
// ScopeRewriter (ScopeRewriter.h), the graph-mode painting GraphPainter.h,
// the per-op helpers Decision.h, the retyping of an op ../Retype.h.
//
//===----------------------------------------------------------------------===//

#include "ScopeRewriter.h"

#include "amp/Dialect/Amp/IR/Amp.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"
#include "amp/Support/Statistics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <deque>

namespace mlir::amp {
#define GEN_PASS_DEF_AMPAUTOCAST
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;
using namespace mlir::amp::autocast;

namespace {

struct AmpAutocastPass : public amp::impl::AmpAutocastBase<AmpAutocastPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *ctx) override {
    overrides.clear();
    conflict.clear();
    auto noteConflict = [&](const Twine &message) {
      if (conflict.empty())
        conflict = ("amp-autocast: " + message).str();
    };
    auto add = [&](ArrayRef<std::string> names, CastCategory cat) {
      for (const std::string &name : names) {
        CastPolicyOverride &entry = overrides[name];
        if (entry.set && *entry.set != cat)
          noteConflict(Twine("options put op '") + name +
                       "' in two categories (" +
                       stringifyCastCategory(*entry.set) + " and " +
                       stringifyCastCategory(cat) + ")");
        entry.set = cat;
      }
    };
    auto remove = [&](ArrayRef<std::string> names, CastCategory cat) {
      for (const std::string &name : names)
        overrides[name].removedFrom |= 1u << static_cast<unsigned>(cat);
    };
    // Moving an op (remove it from one list, add it to another) gives it
    // the new category; adding it to the list it is removed from is a
    // contradiction.
    using Lists =
        std::tuple<ArrayRef<std::string>, ArrayRef<std::string>, CastCategory>;
    const Lists lists[] = {
        {lowerOps, removeLowerOps, CastCategory::lower},
        {fp32Ops, removeFp32Ops, CastCategory::fp32},
        {promoteOps, removePromoteOps, CastCategory::promote},
        {inferOps, removeInferOps, CastCategory::infer},
        {clearOps, removeClearOps, CastCategory::clear},
        {keepOps, removeKeepOps, CastCategory::keep}};
    for (const auto &[added, removed, cat] : lists)
      remove(removed, cat);
    for (const auto &[added, removed, cat] : lists)
      add(added, cat);
    for (auto &entry : overrides) {
      const CastPolicyOverride &o = entry.getValue();
      if (o.set && (o.removedFrom & (1u << static_cast<unsigned>(*o.set))))
        noteConflict(Twine("options both add op '") + entry.getKey() +
                     "' to the " + stringifyCastCategory(*o.set) +
                     " list and remove it from it");
    }
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    // Option errors point at the input file (there is no better place).
    if (!conflict.empty()) {
      emitError(module.getLoc()) << conflict;
      return signalPassFailure();
    }
    if (mode != "graph" && mode != "eager") {
      emitError(module.getLoc())
          << "amp-autocast: mode must be 'graph' or 'eager', got '" << mode
          << "'";
      return signalPassFailure();
    }
    for (auto &entry : overrides) {
      StringRef name = entry.getKey();
      std::optional<RegisteredOperationName> op =
          RegisteredOperationName::lookup(name, ctx);
      if (!op) {
        emitError(module.getLoc())
            << "amp-autocast: policy option names unknown op '" << name
            << "' (options name ops as dialect.op, e.g. linalg.matmul)";
        return signalPassFailure();
      }
      if (std::optional<StringRef> why = whyNeverDecided(*op))
        emitWarning(module.getLoc())
            << "amp-autocast: policy option names '" << name << "' (" << *why
            << "), which the cast policy never decides; the option has no "
               "effect";
    }

    // Outermost scopes first; the scopes nested in one are collected only
    // after it is processed (its rewrite may rebuild the ops around them).
    std::deque<Scope> worklist;
    // The scope owners in the order they are processed (outermost first),
    // with the decorated declarations.
    SmallVector<Operation *> processed;
    collectChildScopes(module.getBodyRegion(), worklist, processed);
    Counters counters;
    RetypeVerifier verifier;
    Mode parsedMode = mode == "eager" ? Mode::eager : Mode::graph;
    while (!worklist.empty()) {
      Scope scope = worklist.front();
      worklist.pop_front();
      ScopeRewriter rewriter(scope, parsedMode, annotate, overrides, counters,
                             originalTypes, verifier);
      if (failed(rewriter.run()))
        return signalPassFailure();
      processed.push_back(scope.owner);
      // The scope's own ops are known to the rewriter: only ops with regions
      // can open or hold the nested scopes.
      for (Operation *op : rewriter.getUnprocessedRegionOps())
        collectScopesAt(op, worklist, processed);
    }
    originalTypes.clear();

    if (!keepRegions) {
      // Innermost first: the worklist ran outermost first.
      for (Operation *owner : llvm::reverse(processed)) {
        if (auto autocast = dyn_cast<AutocastOp>(owner))
          inlineAutocastRegion(autocast);
        else
          owner->removeAttr(AmpDialect::getAutocastAttrName());
      }
    }
    eraseDeadHelpers(module, counters.insertedCasts);
    recordStatistics(
        getArgument(),
        {{"ops-f16", "Ops computing in f16", counters.opsF16},
         {"ops-bf16", "Ops computing in bf16", counters.opsBF16},
         {"ops-f32", "Ops computing in f32", counters.opsF32},
         {"casts-inserted", "amp.cast ops inserted",
          uint64_t(counters.insertedCasts.size())},
         {"casts-cached", "Uses served by an existing cast (weight-cast cache)",
          counters.castsCached},
         {"casts-hoisted", "Casts placed outside the loop of their use",
          counters.castsHoisted},
         {"constants-narrowed", "Constants cast at compile time",
          counters.constantsNarrowed},
         {"kept-f32",
          "Ops the policy puts low that stay f32 (constant range, not "
          "retypable)",
          counters.keptF32}});
  }

  /// Erases the casts, constants, fills and empty tensors that retyping left
  /// without users, and the helpers that only they used. A fill of a buffer
  /// (no result: it writes memory) is not a helper. Erased casts leave
  /// `insertedCasts`.
  static void eraseDeadHelpers(ModuleOp module,
                               DenseSet<Operation *> &insertedCasts) {
    auto isDeadHelper = [](Operation *op) {
      return isa<CastOp, arith::ConstantOp, tosa::ConstOp, tensor::EmptyOp,
                 linalg::FillOp>(op) &&
             op->getNumResults() != 0 && op->use_empty();
    };
    SmallVector<Operation *> worklist;
    DenseSet<Operation *> queued;
    module.walk([&](Operation *op) {
      if (isDeadHelper(op) && queued.insert(op).second)
        worklist.push_back(op);
    });
    while (!worklist.empty()) {
      Operation *op = worklist.pop_back_val();
      SmallVector<Operation *> producers;
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp())
          producers.push_back(def);
      insertedCasts.erase(op);
      op->erase();
      for (Operation *def : producers)
        if (isDeadHelper(def) && queued.insert(def).second)
          worklist.push_back(def);
    }
  }

  /// The autocast scope `op` opens: an amp.autocast op, or a decorated
  /// function with a body.
  static std::optional<Scope> getScope(Operation *op) {
    if (auto autocast = dyn_cast<AutocastOp>(op))
      return Scope{op, &autocast.getBody(), autocast.getConfig()};
    auto func = dyn_cast<FunctionOpInterface>(op);
    if (!func || func.isExternal())
      return std::nullopt;
    auto config =
        op->getAttrOfType<AutocastAttr>(AmpDialect::getAutocastAttrName());
    if (!config)
      return std::nullopt;
    return Scope{op, &func.getFunctionBody(), config};
  }

  /// Appends the scopes in `region` that no other scope in it encloses, and
  /// the decorated function declarations (no body, nothing to rewrite) to
  /// `declarations`.
  static void collectChildScopes(Region &region, std::deque<Scope> &out,
                                 SmallVectorImpl<Operation *> &declarations) {
    region.walk<WalkOrder::PreOrder>([&](Operation *op) {
      // Scopes and function declarations have a region; most ops have none
      // and are not asked for interfaces.
      if (op->getNumRegions() == 0)
        return WalkResult::advance();
      return collectScope(op, out, declarations);
    });
  }

  /// collectChildScopes for `op` and the regions nested in it.
  static void collectScopesAt(Operation *op, std::deque<Scope> &out,
                              SmallVectorImpl<Operation *> &declarations) {
    if (collectScope(op, out, declarations).wasSkipped())
      return;
    for (Region &region : op->getRegions())
      collectChildScopes(region, out, declarations);
  }

  /// Appends `op` to `out` when it opens a scope (skip its regions), or to
  /// `declarations` when it is a decorated function declaration.
  static WalkResult collectScope(Operation *op, std::deque<Scope> &out,
                                 SmallVectorImpl<Operation *> &declarations) {
    if (std::optional<Scope> scope = getScope(op)) {
      out.push_back(*scope);
      return WalkResult::skip();
    }
    if (isa<FunctionOpInterface>(op) &&
        op->hasAttr(AmpDialect::getAutocastAttrName()))
      declarations.push_back(op);
    return WalkResult::advance();
  }

  CastPolicyOverrides overrides;
  /// An option conflict found by initialize(), reported by the run.
  std::string conflict;
  /// The type every retyped value had before the pass, shared by all scopes
  /// (a keep op in an inner region reads an outer value at its written type).
  OriginalTypes originalTypes;
};

} // namespace
