//===- InitAmp.cpp - register everything amp-mlir provides ----------------===//

#include "amp/InitAmp.h"

#include "amp/Dialect/Amp/IR/Amp.h"
#include "amp/Dialect/Amp/Policy/CastPolicy.h"
#include "amp/Codegen/CPU/Passes.h"
#include "amp/Codegen/Common/Passes.h"
#include "amp/Codegen/GPU/Passes.h"
#include "amp/Conversion/Passes.h"
#include "amp/Distributed/Passes.h"
#include "amp/Dialect/Amp/Transforms/Passes.h"
#include "amp/Pipelines/Pipelines.h"

#include "mlir/IR/DialectRegistry.h"

void mlir::amp::registerAllAmpDialects(DialectRegistry &registry) {
  registry.insert<AmpDialect>();
  registerCastPolicyExternalModels(registry);
  registerMpiMemoryEffectModels(registry);
}

void mlir::amp::registerAllAmpPasses() {
  registerAmpTransformsPasses();
  registerAmpConversionPasses();
  registerAmpDistributedPasses();
  registerAmpCodegenCommonPasses();
  registerAmpCodegenCPUPasses();
  registerAmpCodegenGPUPasses();
  registerCpuPipeline();
  registerCudaPipeline();
}
