//===- FrontEnd.cpp - the device-independent start of the amp pipelines ---===//
//
// Shared by amp-cpu-pipeline and amp-cuda-pipeline: the cast policy, the
// amp ops to upstream dialects, and tosa / arith-on-tensors to linalg on
// tensors with elementwise fusion.
//
//===----------------------------------------------------------------------===//

#include "amp/Pipelines/Pipelines.h"

#include "amp/Dialect/Amp/Transforms/Passes.h"

#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
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

LogicalResult mlir::amp::addAmpFrontEnd(OpPassManager &pm, bool autocast,
                                        StringRef mode,
                                        std::string &errorMessage) {
  // 1. The cast policy, then upstream dialects only.
  if (autocast) {
    AmpAutocastOptions autocastOptions;
    autocastOptions.mode = mode.str();
    pm.addPass(createAmpAutocast(autocastOptions));
  }
  pm.addNestedPass<func::FuncOp>(createAmpFp32Accumulation());
  pm.addPass(createAmpLowerCast());
  pm.addPass(createAmpLowerLossScaling());
  pm.addNestedPass<func::FuncOp>(createAmpDecomposeAggregatedOps());
  pm.addPass(createCanonicalizerPass());

  // 2. To linalg on tensors (tosa.const to arith.constant: the upstream
  // tosa-to-linalg pipeline leaves it).
  TosaToLinalgOptions tosaOptions;
  tosaOptions.aggressiveReduceConstant = true;
  tosa::addTosaToLinalgPasses(pm, tosaOptions);
  if (failed(addPassList(pm,
                       "func.func(tosa-to-arith,convert-elementwise-to-linalg,"
                       "linalg-fuse-elementwise-ops,canonicalize,cse)",
                       errorMessage)))
    return failure();

  return success();
}
