//===- AmpToArith.cpp - amp.cast to arith ---------------------------------===//
//
// The `amp-lower-cast` pass: `amp.cast` becomes `arith.extf` / `arith.truncf`
// (on scalars and tensors), and autocast regions left in the IR are inlined,
// so that only upstream dialects remain for the lowering pipelines.
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/IR/Amp.h"
#include "amp/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/TypeUtilities.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPLOWERCAST
#include "amp/Conversion/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

/// `in` converted to `type` with arith ops.
Value lowerCast(OpBuilder &b, Location loc, Value in, Type type) {
  auto from = cast<FloatType>(getElementTypeOrSelf(in.getType()));
  auto to = cast<FloatType>(getElementTypeOrSelf(type));
  if (from == to)
    return in;
  if (isExactFloatConversion(from, to))
    return arith::ExtFOp::create(b, loc, type, in);
  if (isExactFloatConversion(to, from))
    return arith::TruncFOp::create(b, loc, type, in);
  // f16 <-> bf16: through f32, exactly first, rounding once.
  Type wide = withElementType(type, Float32Type::get(b.getContext()));
  Value ext = arith::ExtFOp::create(b, loc, wide, in);
  return arith::TruncFOp::create(b, loc, type, ext);
}

struct AmpLowerCastPass : public amp::impl::AmpLowerCastBase<AmpLowerCastPass> {
  using Base::Base;

  void runOnOperation() override {
    inlineAutocastRegions(getOperation());
    getOperation()->walk([](CastOp cast) {
      OpBuilder b(cast);
      Value repl =
          lowerCast(b, cast.getLoc(), cast.getIn(), cast.getOut().getType());
      cast.getOut().replaceAllUsesWith(repl);
      cast->erase();
    });
  }
};

} // namespace
