//===- InitAmp.cpp - register everything amp-mlir provides ----------------===//

#include "amp/InitAmp.h"

#include "amp/Dialect/Amp/IR/Amp.h"
#include "amp/Dialect/Amp/Policy/CastPolicy.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"
#include "amp/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"

void mlir::amp::registerAllAmpDialects(DialectRegistry &registry) {
  registry.insert<AmpDialect>();
  registerCastPolicyExternalModels(registry);
}

void mlir::amp::registerAllAmpPasses() {
  registerAmpPasses();
  registerCpuPipeline();
  registerCudaPipeline();
}
