//===- Pipelines.h - amp-mlir pass pipelines --------------------*- C++ -*-===//
//
// Registered pass pipelines that take autocast IR (tosa, linalg on tensors,
// arith/math/tensor, with amp.autocast regions) down to a target.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_PIPELINES_PIPELINES_H
#define AMP_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

#include <string>

namespace mlir {
class OpPassManager;
namespace amp {

/// Instruction-set features the CPU pipeline may use for bf16 contractions.
enum class CpuFeatures { Generic, Avx512Bf16, Amx };

/// The features of the machine the compiler runs on (LLVM's host feature
/// detection): Amx when it has amx-tile and amx-bf16, Avx512Bf16 when it
/// has avx512bf16, Generic otherwise.
CpuFeatures detectHostCpuFeatures();

/// Options of `amp-cpu-pipeline`.
struct CpuPipelineOptions : public PassPipelineOptions<CpuPipelineOptions> {
  PassOptions::Option<bool> autocast{
      *this, "autocast",
      llvm::cl::desc("Apply the cast policy to autocast regions (false: the "
                     "regions run in the input types, as enabled=False)"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> mode{
      *this, "mode",
      llvm::cl::desc("amp-autocast mode: graph (fewest casts) or eager "
                     "(PyTorch-exact)"),
      llvm::cl::init("graph")};
  PassOptions::Option<std::string> cpuFeatures{
      *this, "cpu-features",
      llvm::cl::desc("Features for bf16 contractions: host (detect), generic, "
                     "avx512bf16 or amx"),
      llvm::cl::init("host")};
  PassOptions::ListOption<int64_t> cacheTile{
      *this, "cache-tile",
      llvm::cl::desc("Cache tile sizes (m, n, k) of contractions")};
  PassOptions::ListOption<int64_t> registerTile{
      *this, "register-tile",
      llvm::cl::desc("Register tile sizes (m, n, k) of contractions")};
};

/// Adds the CPU pipeline to `pm` (anchored on builtin.module). Fails, with
/// a message in `errorMessage`, on an invalid option value.
LogicalResult buildCpuPipeline(OpPassManager &pm,
                               const CpuPipelineOptions &options,
                               std::string &errorMessage);

/// Registers `amp-cpu-pipeline`.
void registerCpuPipeline();

} // namespace amp
} // namespace mlir

#endif // AMP_PIPELINES_PIPELINES_H
