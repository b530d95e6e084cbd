//===- ReadOnlyArguments.cpp - public functions do not write their inputs --===//
//
// The `amp-cpu-read-only-arguments` pass: the tensor arguments of public
// functions get `bufferization.writable = false`, so one-shot bufferization
// never writes a caller's buffer in place (it allocates where it would have),
// and the function gets `amp_cpu.read_only_args`. The Python package then passes
// numpy arrays to such a function without copying them first.
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPCPUREADONLYARGUMENTS
#include "amp/Codegen/CPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

namespace {

struct AmpCpuReadOnlyArgumentsPass
    : public amp::impl::AmpCpuReadOnlyArgumentsBase<
          AmpCpuReadOnlyArgumentsPass> {
  void runOnOperation() override {
    Builder b(&getContext());
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      // A function that declares which arguments it writes in place (a
      // managed entry point's stand-in, amp.may_write_args) keeps them
      // writable.
      if (!func.isPublic() || func.isExternal() ||
          func->hasAttr("amp.may_write_args"))
        continue;
      for (BlockArgument arg : func.getArguments())
        if (isa<TensorType>(arg.getType()))
          func.setArgAttr(arg.getArgNumber(),
                          bufferization::BufferizationDialect::kWritableAttrName,
                          b.getBoolAttr(false));
      func->setAttr("amp_cpu.read_only_args", b.getUnitAttr());
    }
  }
};

} // namespace
