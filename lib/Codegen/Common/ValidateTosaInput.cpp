//===- ValidateTosaInput.cpp - tosa-validate on the input, as declared ----===//
//
// The `amp-validate-tosa-input` pass: upstream's `tosa-validate` run on the
// module before any pass rewrites it, against the `tosa.target_env` the
// module declares or, without one, against everything the pipelines compile
// (Passes.td has the why). Errors get a note naming that target.
//
//===----------------------------------------------------------------------===//

#include "amp/Codegen/Common/Passes.h"

#include "mlir/Dialect/Tosa/IR/TargetEnv.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/Tosa/Transforms/Passes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/STLExtras.h"

namespace mlir::amp {
#define GEN_PASS_DEF_AMPVALIDATETOSAINPUT
#include "amp/Codegen/Common/Passes.h.inc"
} // namespace mlir::amp

using namespace mlir;
using namespace mlir::amp;

namespace {

/// What amp-cpu-pipeline and amp-cuda-pipeline compile: every profile and
/// the extensions whose ops and types tosa-to-scf, tosa-to-linalg,
/// tosa-to-tensor and tosa-to-arith lower, at level none (no size limits) and the 1.1 draft
/// (the first with dynamic dimensions).
tosa::TargetEnvAttr getCompiledTargetEnv(MLIRContext *context) {
  using tosa::Extension;
  return tosa::TargetEnvAttr::get(
      context, tosa::SpecificationVersion::V_1_1_DRAFT, tosa::Level::none,
      {tosa::Profile::pro_int, tosa::Profile::pro_fp},
      {Extension::int16, Extension::int4, Extension::int64, Extension::bf16,
       Extension::fp8e4m3, Extension::fp8e5m2, Extension::fft,
       Extension::controlflow, Extension::doubleround,
       Extension::inexactround, Extension::dynamic, Extension::shape});
}

bool hasTosaOps(ModuleOp module) {
  return module
      .walk([](Operation *op) {
        return isa<tosa::TosaDialect>(op->getDialect()) ? WalkResult::interrupt()
                                                        : WalkResult::advance();
      })
      .wasInterrupted();
}

struct AmpValidateTosaInputPass
    : public amp::impl::AmpValidateTosaInputBase<AmpValidateTosaInputPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!hasTosaOps(module))
      return;

    tosa::TargetEnvAttr target = tosa::lookupTargetEnv(module);
    bool declared = static_cast<bool>(target);
    if (!declared) {
      // tosa-validate reads the target from the module; attach ours for the
      // run and take it off again.
      target = getCompiledTargetEnv(module.getContext());
      module->setAttr(tosa::TargetEnvAttr::name, target);
    }

    std::string targetText;
    llvm::raw_string_ostream(targetText) << target;
    ScopedDiagnosticHandler addNote(
        module.getContext(), [&](Diagnostic &diag) -> LogicalResult {
          if (diag.getSeverity() == DiagnosticSeverity::Error) {
            if (declared)
              diag.attachNote() << "checked against the module's "
                                << targetText;
            else
              diag.attachNote()
                  << "checked against what the amp pipelines compile, "
                  << targetText
                  << " (a tosa.target_env attribute on the module chooses "
                     "another target)";
          }
          return failure(); // on to the next handler
        });

    OpPassManager pm(ModuleOp::getOperationName());
    pm.addPass(tosa::createTosaValidation());
    LogicalResult result = runPipeline(pm, module);
    if (!declared)
      module->removeAttr(tosa::TargetEnvAttr::name);
    if (failed(result))
      signalPassFailure();
  }
};

} // namespace
