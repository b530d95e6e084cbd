//===- CpuPipeline.h - amp-cpu-pipeline -------------------------*- C++ -*-===//
//
// Autocast IR to the LLVM dialect for the CPU JIT: the options of
// `amp-cpu-pipeline`, building it into a pass manager, registering it.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_PIPELINES_CPUPIPELINE_H
#define AMP_PIPELINES_CPUPIPELINE_H

#include "mlir/Pass/PassOptions.h"

#include <string>

namespace mlir {
class OpPassManager;
namespace amp {

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
                     "(op by op as PyTorch eager; deviations: docs/Autocast.md)"),
      llvm::cl::init("graph")};
  PassOptions::Option<std::string> cpuFeatures{
      *this, "cpu-features",
      llvm::cl::desc("Target CPU features: host (detected), generic (none), "
                     "avx512bf16 or amx. With AVX512-BF16 (or AMX), bf16 "
                     "contractions are generated as vdpbf16ps on VNNI-packed "
                     "B (generic: FMA vector code); they also decide which "
                     "bf16 contractions go to oneDNN (gemm=onednn) and the "
                     "remark on emulated bf16"),
      llvm::cl::init("host")};
  PassOptions::Option<std::string> gemm{
      *this, "gemm",
      llvm::cl::desc("Contractions and convolutions: codegen (tiled vector "
                     "code) or onednn (oneDNN primitives of the CPU runtime "
                     "where it has them, code generation for the rest)"),
      llvm::cl::init("codegen")};
  PassOptions::Option<bool> onednnPostOps{
      *this, "onednn-post-ops",
      llvm::cl::desc("With gemm=onednn: fold the elementwise consumer of a "
                     "convolution or matmul (batch norm, ReLU, bias, GELU, "
                     "residual add) into the oneDNN call as post-ops "
                     "(amp-cpu-onednn-contractions post-ops)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> parallel{
      *this, "parallel",
      llvm::cl::desc("Run the cache tiles of contractions on threads (an "
                     "OpenMP parallel loop, LLVM's libomp)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> packRhs{
      *this, "pack-rhs",
      llvm::cl::desc("Pack the B operand of large matmuls into panels as "
                     "wide as the register tile (see "
                     "amp-cpu-tile-and-vectorize)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> approximateMath{
      *this, "approximate-math",
      llvm::cl::desc("f32 erf and tanh as polynomial approximations that "
                     "vectorize (false: libm calls, one per element)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> profile{
      *this, "profile",
      llvm::cl::desc("Time every top-level op of each function "
                     "(amp-cpu-profile-ops; amp-runner --amp-profile, "
                     "amp_mlir.cpu_profile())"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> mpiImplementation{
      *this, "mpi-implementation",
      llvm::cl::desc("ABI of the MPI library that data-parallel steps "
                     "(shard.all_reduce, lowered to MPI calls) run on: "
                     "OpenMPI or MPICH (empty: the one found when amp-mlir "
                     "was configured, else OpenMPI)"),
      llvm::cl::init("")};
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

#endif // AMP_PIPELINES_CPUPIPELINE_H
