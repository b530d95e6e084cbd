//===- amp-runner.cpp - JIT runner for amp-cpu-pipeline output ------------===//
//
// mlir-runner for amp-mlir: the same flags (-e, --entry-point-result,
// --shared-libs, -O0..-O3 (default -O3), ...) on MLIR's ExecutionEngine, with the upstream
// runner utils (printMemref*, rtclock, vector.print support) and the
// project's CPU runtime and LLVM's OpenMP runtime (threads of parallel
// loops) linked in, so that
//
//   amp-opt model.mlir --amp-cpu-pipeline | amp-runner -e main \
//       --entry-point-result=void
//
// needs no --shared-libs. Input that is not fully lowered to the LLVM
// dialect is rejected with the location of the first op left over.
// --amp-memory-stats prints, after the run, the peak and the final bytes of
// the buffers the JIT code allocated (the CPU runtime's counter).
//
//===----------------------------------------------------------------------===//

#include "amp/InitAmp.h"
#include "amp/Runtime/CPU/CpuRuntime.h"

#include "mlir/ExecutionEngine/JitRunner.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/LLVMTranslationInterface.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/TargetSelect.h"

#include <cstdio>

using namespace mlir;

/// Prints `file:line:col: error: message`, as amp-opt does (JitRunnerMain
/// installs no source-manager handler, so MLIR's default one would print
/// `loc("file":line:col)`).
static LogicalResult reportError(Location loc, const Twine &message) {
  if (auto fileLoc = loc->findInstanceOf<FileLineColLoc>())
    llvm::errs() << fileLoc.getFilename().getValue() << ":" << fileLoc.getLine() << ":"
                 << fileLoc.getColumn() << ": ";
  llvm::errs() << "error: " << message << "\n";
  return failure();
}

/// Fails, with an error at the op's location, on an empty module and on the
/// first op that the LLVM IR translation cannot take (its dialect has no
/// translation interface).
static LogicalResult checkFullyLowered(Operation *module, JitRunnerOptions &) {
  // An empty module is what a failed compiler upstream of a pipe leaves.
  if (module->getRegion(0).front().empty())
    return reportError(module->getLoc(),
                       "amp-runner: the input module is empty (did the "
                       "command that produced it fail?)");
  Operation *leftover = nullptr;
  module->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op == module)
      return WalkResult::advance();
    Dialect *dialect = op->getDialect();
    if (dialect &&
        dialect->getRegisteredInterface<LLVMTranslationDialectInterface>())
      return WalkResult::advance();
    leftover = op;
    return WalkResult::interrupt();
  });
  if (!leftover)
    return success();
  return reportError(leftover->getLoc(),
                     "amp-runner: '" + leftover->getName().getStringRef() +
                         "' is not lowered to the LLVM dialect; compile the "
                         "input with amp-opt --amp-cpu-pipeline first");
}

static llvm::cl::opt<bool> memoryStats(
    "amp-memory-stats",
    llvm::cl::desc("After the run, print the peak and live bytes of the "
                   "buffers the JIT code allocated (amp-cpu-pipeline code)"),
    llvm::cl::init(false));

static llvm::cl::opt<bool> profile(
    "amp-profile",
    llvm::cl::desc("After the run, print the time per op of code compiled "
                   "with amp-cpu-pipeline{profile=true}, the most expensive "
                   "first"),
    llvm::cl::init(false));

int main(int argc, char **argv) {
  llvm::InitLLVM y(argc, argv);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::InitializeNativeTargetAsmParser();

  // Every dialect parses, so that input that is not lowered gets a located
  // error instead of a parse failure.
  DialectRegistry registry;
  registerAllDialects(registry);
  amp::registerAllAmpDialects(registry);
  registerAllToLLVMIRTranslations(registry);

  // The runtime's constructor has requested AMX permission already; keep the
  // library linked even with --as-needed.
  (void)&amp_cpu_has_amx;

  // Without an -O flag, JitRunnerMain runs no LLVM optimisation pipeline.
  // Default to -O3, as a compiler would.
  SmallVector<char *> args(argv, argv + argc);
  static char defaultOptLevel[] = "-O3";
  if (llvm::none_of(args, [](StringRef arg) {
        return llvm::is_contained({"-O0", "-O1", "-O2", "-O3", "--O0", "--O1",
                                   "--O2", "--O3"},
                                  arg);
      }))
    args.push_back(defaultOptLevel);

  JitRunnerConfig config;
  config.mlirTransformer = checkFullyLowered;
  int status = JitRunnerMain(static_cast<int>(args.size()), args.data(),
                             registry, config);
  if (memoryStats) {
    uint64_t current = 0, peak = 0;
    ampCpuMemoryStats(&current, &peak);
    // After what the JIT code printed (C stdio, buffered).
    std::fflush(stdout);
    llvm::outs().flush();
    llvm::errs() << "amp-runner: JIT buffers: peak " << peak
                 << " bytes, live at exit " << current << " bytes\n";
  }
  if (profile) {
    std::fflush(stdout);
    llvm::outs().flush();
    ampCpuProfilePrint();
  }
  // A cf.assert that failed (amp-cpu-recoverable-asserts): the run's output
  // is not to be trusted.
  if (const char *failure = ampCpuTakeAssertFailure()) {
    std::fflush(stdout);
    llvm::outs().flush();
    llvm::errs() << "amp-runner: error: runtime check failed: " << failure
                 << "\n";
    return status ? status : 1;
  }
  return status;
}
