//===- TestRandomizeWeights.cpp - seeded random values for splat weights --===//
//
// The `amp-randomize-weights` pass: splat weight constants (rank >= 2) get
// He-uniform values from a SplitMix64 stream, for numerics tests and
// benchmarks of model files exported with splat weights. A test-only pass:
// amp-opt has it when built with AMP_INCLUDE_TESTS (the default).
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <cmath>

namespace mlir::amp {
#define GEN_PASS_DEF_AMPRANDOMIZEWEIGHTS
#include "TestPasses.h.inc"
} // namespace mlir::amp

using namespace mlir;

namespace {

/// SplitMix64 (Steele, Lea, Flood 2014): fully specified, so the values do
/// not depend on the C++ library.
struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [-1, 1), 24 random bits.
  float symmetric() {
    return static_cast<float>(next() >> 40) * (2.0f / 16777216.0f) - 1.0f;
  }
};

/// The random replacement of `splat`, or null when it is not a weight.
DenseElementsAttr randomWeights(DenseElementsAttr splat, SplitMix64 &rng) {
  auto type = dyn_cast<RankedTensorType>(splat.getType());
  if (!type || !splat.isSplat() || type.getRank() < 2 ||
      !type.hasStaticShape() || type.getNumElements() == 0)
    return {};
  auto elem = dyn_cast<FloatType>(type.getElementType());
  if (!elem || !(elem.isF32() || elem.isF16() || elem.isBF16()))
    return {};
  int64_t fanIn = type.getNumElements() / type.getDimSize(0);
  float bound = std::sqrt(6.0f / static_cast<float>(std::max<int64_t>(fanIn, 1)));
  SmallVector<APFloat> values;
  values.reserve(type.getNumElements());
  for (int64_t i = 0, e = type.getNumElements(); i < e; ++i) {
    APFloat v(bound * rng.symmetric());
    bool losesInfo;
    v.convert(elem.getFloatSemantics(), APFloat::rmNearestTiesToEven,
              &losesInfo);
    values.push_back(v);
  }
  return DenseElementsAttr::get(type, values);
}

struct AmpRandomizeWeightsPass
    : public amp::impl::AmpRandomizeWeightsBase<AmpRandomizeWeightsPass> {
  using Base::Base;

  void runOnOperation() override {
    // Constants are numbered per function (per closest symbol table or
    // function-like op), so copies of one function get the same weights.
    DenseMap<Operation *, uint64_t> counters;
    getOperation()->walk([&](Operation *op) {
      if (!isa<arith::ConstantOp, tosa::ConstOp>(op))
        return;
      auto attr = dyn_cast<DenseElementsAttr>(
          isa<arith::ConstantOp>(op) ? cast<arith::ConstantOp>(op).getValue()
                                     : cast<tosa::ConstOp>(op).getValues());
      if (!attr)
        return;
      // One stream per constant: its values do not depend on the others.
      Operation *scope = op->getParentOfType<FunctionOpInterface>();
      if (!scope)
        scope = op->getParentOp();
      uint64_t index = ++counters[scope];
      SplitMix64 rng{seed * 0x2545F4914F6CDD1Dull + index};
      DenseElementsAttr random = randomWeights(attr, rng);
      if (!random)
        return;
      if (auto c = dyn_cast<arith::ConstantOp>(op))
        c.setValueAttr(random);
      else
        cast<tosa::ConstOp>(op).setValuesAttr(random);
    });
  }
};

} // namespace
