//===- SelectOnednn.cpp - choose the contractions oneDNN computes ---------===//
//
// The `amp-cpu-select-onednn` pass (amp-cpu-pipeline{gemm=onednn}, on
// tensors, before amp-cpu-tile-and-vectorize): marks every contraction and
// convolution that a oneDNN primitive computes on the target CPU with
// `amp_cpu.onednn` (the code generator leaves it alone, and
// amp-cpu-onednn-contractions makes it a call after bufferization); says in
// a remark, once per reason and function, why the others stay on code
// generation.
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/CPU/Passes.h"

#include "OnednnMatch.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/ADT/StringSet.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPCPUSELECTONEDNN
#include "amp/Codegen/CPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

struct AmpCpuSelectOnednnPass
    : public amp::impl::AmpCpuSelectOnednnBase<AmpCpuSelectOnednnPass> {
  using Base::Base;

  void runOnOperation() override {
    FailureOr<CpuTarget> target =
        getCpuTarget(cpuFeatures, getOperation(), "amp-cpu-select-onednn");
    if (failed(target))
      return signalPassFailure();
    llvm::StringSet<> said;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (!op.hasPureTensorSemantics())
        return;
      std::string whyNot;
      if (succeeded(matchOnednnCall(op, *target, whyNot))) {
        op->setAttr(kOnednnMarker, UnitAttr::get(op->getContext()));
        return;
      }
      if (!whyNot.empty() && said.insert(whyNot).second)
        op->emitRemark() << "amp-cpu-pipeline{gemm=onednn}: '"
                         << op->getName() << "' stays on code generation: "
                         << whyNot;
    });
  }
};

} // namespace
