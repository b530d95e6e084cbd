//===- FrontEnd.cpp - the device-independent start of the amp pipelines ---===//
//
// Shared by amp-cpu-pipeline and amp-cuda-pipeline: validation of the TOSA
// input (against the target it declares), the cast policy, the
// amp ops to upstream dialects, tosa / arith-on-tensors to linalg on
// tensors with elementwise fusion; and the bufferization stage.
//
//===----------------------------------------------------------------------===//

#include "amp/Pipelines/FrontEnd.h"

#include "amp/Codegen/Common/Passes.h"
#include "amp/Conversion/Passes.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Conversion/TosaToSCF/TosaToSCF.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::amp;

LogicalResult mlir::amp::addPassList(OpPassManager &pm, StringRef passes,
                                     std::string &errorMessage) {
  llvm::raw_string_ostream os(errorMessage);
  return parsePassPipeline(passes, pm, os);
}

LogicalResult mlir::amp::checkAutocastMode(StringRef pipeline, StringRef mode,
                                           std::string &errorMessage) {
  if (mode == "graph" || mode == "eager")
    return success();
  errorMessage = (pipeline + ": mode must be 'graph' or 'eager', got '" +
                  mode + "'")
                     .str();
  return failure();
}

LogicalResult mlir::amp::addAmpFrontEnd(OpPassManager &pm, bool autocast,
                                        StringRef mode,
                                        std::string &errorMessage) {
  // 0. The TOSA input is validated as the user wrote it (against the target
  // it declares), so that no error names an op a later pass inserted; the
  // TOSA lowering below does not validate again.
  pm.addPass(createAmpValidateTosaInput());

  // 1. The cast policy, then upstream dialects only.
  if (autocast) {
    // Callees of calls inside autocast regions fall under the region's
    // policy (PyTorch's autocast covers everything a region calls).
    pm.addPass(createAmpSpecializeCalls());
    AmpAutocastOptions autocastOptions;
    autocastOptions.mode = mode.str();
    pm.addPass(createAmpAutocast(autocastOptions));
    // A weight's f16/bf16 copy is made where it is first used, not at the
    // start of the function (with the CPU pipeline's liveness, a buffer is
    // held from its first use to its last).
    pm.addNestedPass<func::FuncOp>(createAmpSinkArgumentCasts());
  }
  pm.addNestedPass<func::FuncOp>(createAmpFp32Accumulation());
  pm.addPass(createAmpLowerCast());
  pm.addPass(createAmpLowerLossScaling());
  pm.addNestedPass<func::FuncOp>(createAmpDecomposeAggregatedOps());
  pm.addPass(createCanonicalizerPass());

  // 2. To linalg on tensors (tosa-to-tensor: reshape, slice, concat and
  // pad, which the upstream tosa-to-linalg pipeline leaves; tosa-to-arith:
  // tosa.const to arith.constant, and the tosa.apply_scale that
  // tosa-to-linalg makes of tosa.rescale to integer arithmetic), then
  // elementwise fusion (which
  // folds loss scaling's unscaled gradients, moved into the optimizer
  // update's branch by amp-lower-loss-scaling, into the update), and the
  // fusions of producers with other uses too (the momentum and weight
  // updates become one op).
  // tosa-to-scf first: tosa.cond_if and tosa.while_loop become scf.if and
  // scf.while, whose bodies the passes below then lower like any others.
  pm.addPass(createTosaToSCFPass());
  TosaToLinalgOptions tosaOptions;
  tosaOptions.aggressiveReduceConstant = true;
  tosa::addTosaToLinalgPasses(pm, tosaOptions, TosaToLinalgNamedOptions(),
                              /*validationOptions=*/std::nullopt);
  if (failed(addPassList(pm,
                         "func.func(tosa-to-tensor,tosa-to-arith{include-apply-rescale},"
                         "convert-"
                         "elementwise-to-linalg,"
                         "amp-fuse-elementwise,"
                         "amp-fuse-multi-use-elementwise,canonicalize,cse)",
                         errorMessage)))
    return failure();

  return success();
}

LogicalResult mlir::amp::addAmpBufferization(OpPassManager &pm,
                                             std::string &errorMessage) {
  // Loops may yield new tensors (autocast puts casts of loop-carried values
  // inside scf.for bodies): allow-return-allocs-from-loops.
  // One fill per destination first (amp-duplicate-fills: no copies of a
  // shared zero-filled buffer).
  return addPassList(pm,
                     "func.func(amp-duplicate-fills),"
                     "one-shot-bufferize{bufferize-function-boundaries "
                     "function-boundary-type-conversion=identity-layout-map "
                     "allow-return-allocs-from-loops},"
                     "func.func(buffer-hoisting,buffer-loop-hoisting),"
                     "buffer-deallocation-pipeline,"
                     "convert-bufferization-to-memref,canonicalize,cse",
                     errorMessage);
}
