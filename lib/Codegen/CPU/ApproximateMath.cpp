//===- ApproximateMath.cpp - vectorizable f32 math functions --------------===//
//
// The `amp-cpu-approximate-math` pass: f32 `math.erf`, `math.tanh` and
// `math.exp` become upstream's polynomial approximations (arith ops only),
// which LLVM's loop vectorizer vectorizes with the loop around them; as libm
// calls (convert-math-to-libm) they stayed one scalar call per element (17%
// of a transformer block's time was libm's erff; softmax's exp was a third of
// nn.MultiheadAttention's). exp is within 3 ulp of the exact result where
// that is a normal f32 and flushes results below 2^-126 to zero.
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPCPUAPPROXIMATEMATH
#include "amp/Codegen/CPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

namespace {

struct AmpCpuApproximateMathPass
    : public amp::impl::AmpCpuApproximateMathBase<AmpCpuApproximateMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(
        patterns, [](StringRef name) {
          name.consume_front("math.");
          return llvm::is_contained({"erf", "tanh", "exp"}, name);
        });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
