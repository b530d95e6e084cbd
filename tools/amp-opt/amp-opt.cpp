//===- amp-opt.cpp - amp-mlir optimizer driver ----------------------------===//
//
// `mlir-opt` with the amp dialect and passes: every upstream dialect, pass
// and extension is registered, so every mlir-opt flag works and amp passes
// chain with upstream ones in one pipeline.
//
//===----------------------------------------------------------------------===//

#include "amp/InitAmp.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::amp::registerAllAmpPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::amp::registerAllAmpDialects(registry);

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "amp-mlir optimizer driver\n", registry));
}
