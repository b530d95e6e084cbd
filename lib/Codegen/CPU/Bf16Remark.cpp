//===- Bf16Remark.cpp - say when bf16 compute cannot pay off --------------===//
//
// The `amp-cpu-bf16-remark` pass: on a target CPU without bf16 arithmetic
// (no AVX512-BF16 or AMX), a module that computes in bf16 after autocast
// gets one remark, at its first bf16 op: the bf16 compute is emulated (every
// bf16 value widened to f32 and rounded back), so it runs slower than f32,
// and what autocast still saves is memory.
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/CPU/Passes.h"

#include "CpuTarget.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/TypeUtilities.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPCPUBF16REMARK
#include "amp/Codegen/CPU/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

bool isBf16(Type t) { return getElementTypeOrSelf(t).isBF16(); }

/// Whether `op` computes in bf16: a contraction or convolution with a bf16
/// input (its products are bf16 x bf16), or an arith/math op other than a
/// cast or constant with a bf16 operand or result (in a linalg body or on
/// tensors). Data movement (copies, reshapes, transposes) is not compute.
bool computesInBf16(Operation *op) {
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
    return (linalg::isaContractionOpInterface(linalgOp) ||
            linalg::isaConvolutionOpInterface(linalgOp)) &&
           llvm::any_of(linalgOp.getDpsInputs(),
                        [](Value v) { return isBf16(v.getType()); });
  if (!op->getDialect() || (op->getDialect()->getNamespace() != "arith" &&
                            op->getDialect()->getNamespace() != "math"))
    return false;
  if (isa<arith::ExtFOp, arith::TruncFOp, arith::ConstantOp,
          arith::BitcastOp>(op))
    return false;
  return llvm::any_of(op->getResultTypes(), isBf16) ||
         llvm::any_of(op->getOperandTypes(), isBf16);
}

struct AmpCpuBf16RemarkPass
    : public amp::impl::AmpCpuBf16RemarkBase<AmpCpuBf16RemarkPass> {
  using Base::Base;

  void runOnOperation() override {
    FailureOr<CpuTarget> target = getCpuTarget(cpuFeatures);
    if (failed(target) || target->hasBf16Arithmetic())
      return;
    Operation *first = nullptr;
    getOperation().walk([&](Operation *op) {
      if (!computesInBf16(op))
        return WalkResult::advance();
      first = op;
      return WalkResult::interrupt();
    });
    if (!first)
      return;
    first->emitRemark()
        << "amp-cpu-pipeline: this CPU has no bf16 arithmetic ("
        << describeCpuTarget(*target)
        << "): bf16 compute is emulated (widened to f32 and rounded back "
           "after each op), so autocast runs slower than f32 here; it still "
           "halves the memory of the values it keeps in bf16 (activations "
           "between ops, weight copies)";
  }
};

} // namespace
