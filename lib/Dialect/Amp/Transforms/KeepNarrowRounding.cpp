//===- KeepNarrowRounding.cpp - f16/bf16 rounding between ops -------------===//
//
// The `amp-keep-narrow-rounding` pass clears the `contract` fast-math flag
// of the f16/bf16 truncations and extensions that
// math-extend-to-supported-types puts around each f16/bf16 math op, so that
// arith's folders cannot drop the rounding between two such ops (Passes.td
// has the why).
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPKEEPNARROWROUNDING
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

bool isNarrowFloat(Type type) {
  return isa<Float16Type, BFloat16Type>(getElementTypeOrSelf(type));
}

/// Clears `contract` from the fast-math flags of `op`.
template <typename OpTy>
void clearContract(OpTy op) {
  std::optional<arith::FastMathFlags> flags = op.getFastmath();
  if (!flags ||
      !arith::bitEnumContainsAny(*flags, arith::FastMathFlags::contract))
    return;
  arith::FastMathFlags rest = *flags & ~arith::FastMathFlags::contract;
  if (rest == arith::FastMathFlags::none)
    op->removeAttr(op.getFastmathAttrName());
  else
    op.setFastmath(rest);
}

struct AmpKeepNarrowRoundingPass
    : public amp::impl::AmpKeepNarrowRoundingBase<AmpKeepNarrowRoundingPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation().walk([](Operation *op) {
      if (auto trunc = dyn_cast<arith::TruncFOp>(op)) {
        if (isNarrowFloat(trunc.getType()))
          clearContract(trunc);
      } else if (auto ext = dyn_cast<arith::ExtFOp>(op)) {
        if (isNarrowFloat(ext.getIn().getType()))
          clearContract(ext);
      }
    });
  }
};

} // namespace
