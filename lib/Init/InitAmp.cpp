//===- InitAmp.cpp - register everything amp-mlir provides ----------------===//

#include "amp/InitAmp.h"

#include "amp/Dialect/Amp/IR/Amp.h"

#include "mlir/IR/DialectRegistry.h"

void mlir::amp::registerAllAmpDialects(DialectRegistry &registry) {
  registry.insert<AmpDialect>();
}

void mlir::amp::registerAllAmpPasses() {}
