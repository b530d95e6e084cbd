//===- SpecializeCalls.cpp - callees of autocast regions ------------------===//
//
// The `amp-specialize-calls` pass: the callees of `func.call` ops inside
// autocast regions get the region's configuration as their decorator, in
// place or on a private clone, so that `amp-autocast` applies the region's
// cast policy to them (PyTorch's autocast covers everything a region calls;
// issue 29 item 2).
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/Amp.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"

#include <deque>

namespace mlir::amp {
#define GEN_PASS_DEF_AMPSPECIALIZECALLS
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

/// The decorator of `func`, or null.
AutocastAttr getDecorator(Operation *func) {
  return func->getAttrOfType<AutocastAttr>(AmpDialect::getAutocastAttrName());
}

/// The configuration of the innermost autocast region holding `op` (an
/// amp.autocast op or a decorated function), or null when there is none.
AutocastAttr getEnclosingConfig(Operation *op) {
  for (Operation *parent = op->getParentOp(); parent;
       parent = parent->getParentOp()) {
    if (auto region = dyn_cast<AutocastOp>(parent))
      return region.getConfig();
    if (isa<func::FuncOp>(parent))
      return getDecorator(parent);
  }
  return {};
}

/// `@f__autocast_<device>_<dtype>[_nocache]`.
std::string getSpecializedName(StringRef callee, AutocastAttr config) {
  std::string name =
      (callee + "__autocast_" + stringifyDeviceType(config.getDeviceType()))
          .str();
  llvm::raw_string_ostream os(name);
  os << "_" << config.getLowerPrecisionType();
  if (!config.getCacheEnabled())
    os << "_nocache";
  return name;
}

struct AmpSpecializeCallsPass
    : public amp::impl::AmpSpecializeCallsBase<AmpSpecializeCallsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    // (callee, configuration) -> the decorated function calls go to.
    DenseMap<std::pair<Operation *, Attribute>, func::FuncOp> specialized;
    std::deque<func::FuncOp> work;

    auto processCall = [&](func::CallOp call) {
      AutocastAttr config = getEnclosingConfig(call);
      if (!config || !config.getEnabled())
        return;
      auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
      if (!callee || getDecorator(callee))
        return; // not a function here, or under its own configuration
      if (callee.isExternal()) {
        call.emitWarning()
            << "callee '@" << callee.getSymName()
            << "' is an external declaration: the autocast region's cast "
               "policy cannot be applied to it; it runs as it was compiled";
        return;
      }
      auto key = std::make_pair(callee.getOperation(), Attribute(config));
      auto it = specialized.find(key);
      if (it == specialized.end()) {
        func::FuncOp target = callee;
        if (!isOnlyCalledUnder(callee, config)) {
          target = callee.clone();
          target.setSymName(getSpecializedName(callee.getSymName(), config));
          target.setPrivate();
          symbols.insert(target, std::next(Block::iterator(callee)));
        }
        target->setAttr(AmpDialect::getAutocastAttrName(), config);
        it = specialized.try_emplace(key, target).first;
        work.push_back(target);
      }
      if (it->second != callee)
        call.setCallee(it->second.getSymName());
    };

    // The calls of every region there is, then those of the functions
    // specialised on the way (their callees in turn).
    SmallVector<func::CallOp> calls;
    module.walk([&](func::CallOp call) { calls.push_back(call); });
    for (func::CallOp call : calls)
      processCall(call);
    while (!work.empty()) {
      func::FuncOp func = work.front();
      work.pop_front();
      calls.clear();
      func.walk([&](func::CallOp call) { calls.push_back(call); });
      for (func::CallOp call : calls)
        processCall(call);
    }
  }

  /// Whether `callee` is private and every use of its symbol is a call
  /// inside an autocast region of configuration `config` (or inside the
  /// callee itself): then it can take the decorator itself.
  bool isOnlyCalledUnder(func::FuncOp callee, AutocastAttr config) {
    if (!callee.isPrivate())
      return false;
    std::optional<SymbolTable::UseRange> uses =
        SymbolTable::getSymbolUses(callee, getOperation());
    if (!uses)
      return false;
    return llvm::all_of(*uses, [&](const SymbolTable::SymbolUse &use) {
      Operation *user = use.getUser();
      // A recursive call inside the callee goes wherever the callee goes.
      return isa<func::CallOp>(user) &&
             (callee->isAncestor(user) || getEnclosingConfig(user) == config);
    });
  }
};

} // namespace
