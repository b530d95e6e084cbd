//===- CudaPipeline.h - amp-cuda-pipeline -----------------------*- C++ -*-===//
//
// Autocast IR to the LLVM dialect with NVVM kernels: the options of
// `amp-cuda-pipeline`, building it into a pass manager, registering it.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_PIPELINES_CUDAPIPELINE_H
#define AMP_PIPELINES_CUDAPIPELINE_H

#include "mlir/Pass/PassOptions.h"

#ifndef AMP_CUDA_TOOLKIT_DEFAULT
#define AMP_CUDA_TOOLKIT_DEFAULT ""
#endif

#include <optional>
#include <string>

namespace mlir {
class OpPassManager;
namespace amp {

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

#endif // AMP_PIPELINES_CUDAPIPELINE_H
