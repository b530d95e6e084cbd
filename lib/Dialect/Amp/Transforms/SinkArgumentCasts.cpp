//===- SinkArgumentCasts.cpp - weight casts next to their first user ------===//
//
// The `amp-sink-argument-casts` pass moves every amp.cast of a function
// argument down to right before its first user in its block, so that a
// weight's f16/bf16 copy is held from its first use, not from the start of
// the function (Passes.td has the why).
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "amp/Dialect/Amp/IR/Amp.h"
#include "amp/Support/Sinking.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPSINKARGUMENTCASTS
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

struct AmpSinkArgumentCastsPass
    : public amp::impl::AmpSinkArgumentCastsBase<AmpSinkArgumentCastsPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    Block *entry = &func.getBody().front();
    SmallVector<CastOp> casts;
    func.walk([&](CastOp cast) {
      auto arg = dyn_cast<BlockArgument>(cast->getOperand(0));
      if (arg && arg.getOwner() == entry)
        casts.push_back(cast);
    });
    for (CastOp cast : casts)
      sinkToFirstUser(cast);
  }
};

} // namespace
