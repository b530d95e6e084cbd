//===- FlattenPairTransfers.cpp - 1-D transfers of VNNI pairs -------------===//
//
// The `amp-cpu-flatten-pair-transfers` pass: vector transfers whose
// innermost vector dimension holds at most 32 bits (the bf16 pairs of the
// AVX512-BF16 register tiles: a B row of 16 x 2 bf16) become one 1-D
// transfer of the contiguous memory they cover (upstream
// populateFlattenVectorTransferPatterns). Unrolled to 1-D by
// convert-vector-to-scf instead, such a read was 16 loads of 4 bytes and a
// chain of permutes per zmm register.
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Interfaces/VectorInterfaces.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPCPUFLATTENPAIRTRANSFERS
#include "amp/Codegen/CPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;

namespace {

struct AmpCpuFlattenPairTransfersPass
    : public amp::impl::AmpCpuFlattenPairTransfersBase<
          AmpCpuFlattenPairTransfersPass> {
  void runOnOperation() override {
    // Only transfers with a non-unit vector dimension: on a vector of unit
    // dimensions only (vector<1x1xf32>) MLIR 22's vector::isContiguousSlice
    // drops the front of an empty shape and compares -1 elements (a
    // memcmp of size -8, found by amp-fuzz under ASan on
    // test/Integration/CPU/c01-f16-dot.mlir); such a transfer is one
    // element and gains nothing from flattening.
    SmallVector<Operation *> transfers;
    getOperation()->walk([&](VectorTransferOpInterface op) {
      if (llvm::any_of(op.getVectorType().getShape(),
                       [](int64_t size) { return size != 1; }))
        transfers.push_back(op);
    });
    RewritePatternSet patterns(&getContext());
    vector::populateFlattenVectorTransferPatterns(patterns,
                                                  /*targetVectorBitwidth=*/64);
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingOps);
    if (failed(applyOpPatternsGreedily(transfers, std::move(patterns), config)))
      return signalPassFailure();
  }
};

} // namespace
