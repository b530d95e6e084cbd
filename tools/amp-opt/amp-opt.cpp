//===- amp-opt.cpp - amp-mlir optimizer driver ----------------------------===//
//
// `mlir-opt` with the amp dialect and passes: every upstream dialect, pass
// and extension is registered, so every mlir-opt flag works and amp passes
// chain with upstream ones in one pipeline. With `-mlir-pass-statistics`,
// the amp passes' counters are printed after the run (Debian's MLIR keeps no
// statistics of its own; see amp/Support/Statistics.h).
//
//===----------------------------------------------------------------------===//

#include "amp/Dialect/Amp/Policy/CastPolicy.h"
#include "amp/InitAmp.h"
#include "amp/Support/Statistics.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"

#ifdef AMP_INCLUDE_TESTS
#include "TestDialect.h"
#include "TestPasses.h"
#endif

namespace {
llvm::cl::opt<bool> printPolicyTable(
    "amp-print-policy-table",
    llvm::cl::desc("Print the default cast-policy table (markdown rows: op, "
                   "cuda, cpu, anchor) and exit"),
    llvm::cl::init(false));

/// Whether `-mlir-pass-statistics` was given.
bool passStatisticsRequested() {
  auto &options = llvm::cl::getRegisteredOptions();
  auto it = options.find("mlir-pass-statistics");
  if (it == options.end())
    return false;
  return static_cast<llvm::cl::opt<bool> *>(it->second)->getValue();
}
} // namespace

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::amp::registerAllAmpPasses();
#ifdef AMP_INCLUDE_TESTS
  // Test-only passes (amp-randomize-weights), as mlir-opt has MLIR's.
  mlir::amp::registerAmpTestPasses();
#endif

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::amp::registerAllAmpDialects(registry);
#ifdef AMP_INCLUDE_TESTS
  // The amp_test dialect: ops of a "user" dialect that implement
  // CastPolicyOpInterface, for lit tests.
  registry.insert<mlir::amp::test::AmpTestDialect>();
#endif
  // gpu-module-to-binary translates kernels to LLVM IR inside the pipeline.
  mlir::registerAllToLLVMIRTranslations(registry);

  auto [inputFile, outputFile] = mlir::registerAndParseCLIOptions(
      argc, argv, "amp-mlir optimizer driver\n", registry);
  if (printPolicyTable) {
    for (const mlir::amp::DefaultPolicyEntry &row :
         mlir::amp::getDefaultPolicyTable())
      llvm::outs() << "| `" << row.opName << "` | "
                   << mlir::amp::stringifyCastCategory(row.cuda) << " | "
                   << mlir::amp::stringifyCastCategory(row.cpu) << " | "
                   << row.anchor << " |\n";
    return 0;
  }
  bool printStatistics = passStatisticsRequested();
  mlir::LogicalResult result =
      mlir::MlirOptMain(argc, argv, inputFile, outputFile, registry);
  if (printStatistics)
    mlir::amp::printStatistics(llvm::errs());
  return mlir::asMainReturnCode(result);
}
