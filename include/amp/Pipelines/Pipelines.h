//===- Pipelines.h - amp-mlir pass pipelines --------------------*- C++ -*-===//
//
// Registered pass pipelines that take autocast IR (tosa, linalg on tensors,
// arith/math/tensor, with amp.autocast regions) down to a target.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_PIPELINES_PIPELINES_H
#define AMP_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

#ifndef AMP_CUDA_TOOLKIT_DEFAULT
#define AMP_CUDA_TOOLKIT_DEFAULT ""
#endif

#include <optional>
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
                     "(PyTorch-exact)"),
      llvm::cl::init("graph")};
  PassOptions::Option<std::string> cpuFeatures{
      *this, "cpu-features",
      llvm::cl::desc("Features for bf16 contractions: host, generic, "
                     "avx512bf16 or amx (the last two are not implemented "
                     "yet: FMA vector code, with a warning)"),
      llvm::cl::init("host")};
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
  PassOptions::ListOption<int64_t> cacheTile{
      *this, "cache-tile",
      llvm::cl::desc("Cache tile sizes (m, n, k) of contractions")};
  PassOptions::ListOption<int64_t> registerTile{
      *this, "register-tile",
      llvm::cl::desc("Register tile sizes (m, n, k) of contractions")};
};

/// Adds the CPU pipeline to `pm` (anchored on builtin.module). Fails, with
/// a message in `errorMessage`, on an invalid option value.
/// Adds a textual list of passes (not wrapped in builtin.module) to `pm`.
LogicalResult addPassList(OpPassManager &pm, llvm::StringRef passes,
                          std::string &errorMessage);

/// Fails with "<pipeline>: mode must be 'graph' or 'eager', got ..." unless
/// `mode` is an amp-autocast mode.
LogicalResult checkAutocastMode(llvm::StringRef pipeline, llvm::StringRef mode,
                                std::string &errorMessage);

/// The device-independent start of the pipelines: amp-autocast (when
/// `autocast`, in `mode`), amp-fp32-accumulation, amp-lower-cast,
/// amp-lower-loss-scaling, amp-decompose-aggregated-ops, tosa -> linalg,
/// tosa-to-tensor (reshape, slice, concat, pad),
/// tosa-to-arith, convert-elementwise-to-linalg, elementwise fusion.
LogicalResult addAmpFrontEnd(OpPassManager &pm, bool autocast,
                             llvm::StringRef mode, std::string &errorMessage);

/// One-shot bufferization across function boundaries (identity layouts,
/// loops may return new buffers), buffer hoisting and the ownership-based
/// deallocation pipeline.
LogicalResult addAmpBufferization(OpPassManager &pm, std::string &errorMessage);

LogicalResult buildCpuPipeline(OpPassManager &pm,
                               const CpuPipelineOptions &options,
                               std::string &errorMessage);

/// Registers `amp-cpu-pipeline`.
void registerCpuPipeline();

struct CudaPipelineOptions : public PassPipelineOptions<CudaPipelineOptions> {
  PassOptions::Option<bool> autocast{
      *this, "autocast",
      llvm::cl::desc("Apply the cast policy to autocast regions"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> mode{
      *this, "mode",
      llvm::cl::desc("amp-autocast mode: graph or eager"),
      llvm::cl::init("graph")};
  PassOptions::Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("Target GPU: sm_75, sm_80, sm_86, sm_87, sm_89, "
                     "sm_90[a], sm_100[a|f], sm_101[a], sm_103[a], "
                     "sm_120[a|f], sm_121[a] (mma.sync needs sm_80+)"),
      llvm::cl::init("sm_90")};
  PassOptions::Option<std::string> gemm{
      *this, "gemm",
      llvm::cl::desc("Matmuls: codegen (mma.sync / SIMT kernels) or cublas "
                     "(cublasGemmEx, fp32 compute, in the CUDA runtime)"),
      llvm::cl::init("codegen")};
  PassOptions::Option<std::string> format{
      *this, "format",
      llvm::cl::desc("Kernel binary: isa (PTX, JIT-compiled by the driver), "
                     "bin (cubin, needs ptxas) or fatbin"),
      llvm::cl::init("fatbin")};
  PassOptions::Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit directory (libdevice, ptxas); default: "
                     "the one found when amp-mlir was configured"),
      llvm::cl::init(AMP_CUDA_TOOLKIT_DEFAULT)};
};

/// The PTX ISA version feature LLVM needs for `chip` ("+ptx80" for sm_90),
/// or nothing for an unknown chip.
std::optional<std::string> getPtxFeatures(llvm::StringRef chip);

LogicalResult buildCudaPipeline(OpPassManager &pm,
                                const CudaPipelineOptions &options,
                                std::string &errorMessage);

void registerCudaPipeline();

} // namespace amp
} // namespace mlir

#endif // AMP_PIPELINES_PIPELINES_H
