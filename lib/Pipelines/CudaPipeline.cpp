//===- CudaPipeline.cpp - amp-cuda-pipeline -------------------------------===//
//
// Autocast IR to the LLVM dialect with NVVM kernels, for the CUDA JIT
// (amp-runner + libamp_cuda_runtime). The stages:
//   1-2. the device-independent front end (cast policy, linalg on tensors);
//   3. one-shot bufferization across functions, deallocation;
//   4. matmuls to cuBLAS calls (gemm=cublas: amp-gpu-cublas-contractions),
//      f16 -> f32 matmuls left to tensor-core kernels (mma.sync m16n8k16,
//      f32 accumulators): amp-gpu-tensor-core-contractions;
//   5. everything else, bufferization's copies included
//      (amp-gpu-copies-to-linalg), through parallel loops to gpu.launch (SIMT
//      kernels, innermost dimensions on threadIdx.x/y:
//      amp-gpu-map-parallel-loops; reductions loop inside a thread, full
//      reductions on the host);
//   6. host buffers in CUDA managed memory, host-memory function ABI:
//      amp-gpu-managed-memory;
//   7. upstream gpu-lower-to-nvvm-pipeline: kernel outlining, NVVM, PTX
//      (and cubin/fatbin with ptxas), gpu-to-llvm for the host side.
//
//===----------------------------------------------------------------------===//

#include "amp/Pipelines/CudaPipeline.h"

#include "PipelineRegistration.h"

#include "amp/Codegen/GPU/Passes.h"
#include "amp/Pipelines/FrontEnd.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"

using namespace mlir;
using namespace mlir::amp;

std::optional<std::string> mlir::amp::getPtxFeatures(StringRef chip) {
  // The chips CUDA 13's ptxas accepts, with the first PTX ISA version that
  // has each (PTX ISA release notes). Architecture-specific `a` targets
  // exist for sm_90, sm_100 and sm_120 only; family `f` targets need PTX
  // 8.8. sm_70/sm_72 are gone from CUDA 13.
  std::optional<StringRef> ptx =
      llvm::StringSwitch<std::optional<StringRef>>(chip)
          .Case("sm_75", "+ptx63")
          .Case("sm_80", "+ptx70")
          .Case("sm_86", "+ptx71")
          .Case("sm_87", "+ptx74")
          .Case("sm_89", "+ptx78")
          .Cases({"sm_90", "sm_90a"}, "+ptx80")
          .Cases({"sm_100", "sm_100a"}, "+ptx86")
          .Cases({"sm_100f", "sm_101", "sm_101a", "sm_103", "sm_103a"},
                 "+ptx88")
          .Cases({"sm_120", "sm_120a"}, "+ptx87")
          .Cases({"sm_120f", "sm_121", "sm_121a"}, "+ptx88")
          .Default(std::nullopt);
  if (!ptx)
    return std::nullopt;
  return ptx->str();
}

LogicalResult mlir::amp::buildCudaPipeline(OpPassManager &pm,
                                           const CudaPipelineOptions &options,
                                           std::string &errorMessage) {
  if (failed(checkAutocastMode("amp-cuda-pipeline", options.mode, errorMessage)))
    return failure();
  std::optional<std::string> ptx = getPtxFeatures(options.chip);
  if (!ptx) {
    errorMessage = "amp-cuda-pipeline: unknown chip '" + options.chip +
                   "' (sm_75, sm_80, sm_86, sm_87, sm_89, sm_90[a], "
                   "sm_100[a|f], sm_101[a], sm_103[a], sm_120[a|f], "
                   "sm_121[a])";
    return failure();
  }
  // Without the toolkit, kernels would call libdevice functions (__nv_expf)
  // that nothing links, and bin/fatbin would have no ptxas.
  std::string toolkit = options.toolkit;
  if (toolkit.empty()) {
    errorMessage = "amp-cuda-pipeline: no CUDA toolkit: pass toolkit=<dir> "
                   "(the directory with nvvm/libdevice and bin/ptxas)";
    return failure();
  }
  if (StringRef(toolkit).contains(' ')) {
    errorMessage = "amp-cuda-pipeline: the toolkit path may not contain "
                   "spaces: '" + toolkit + "'";
    return failure();
  }
  if (!llvm::sys::fs::exists(toolkit + "/nvvm/libdevice/libdevice.10.bc")) {
    errorMessage = "amp-cuda-pipeline: toolkit '" + toolkit +
                   "' has no nvvm/libdevice/libdevice.10.bc";
    return failure();
  }
  if (options.gemm != "codegen" && options.gemm != "cublas") {
    errorMessage = "amp-cuda-pipeline: gemm must be codegen or cublas, got '" +
                   options.gemm + "'";
    return failure();
  }
  if (!llvm::is_contained({"isa", "bin", "fatbin"}, StringRef(options.format))) {
    errorMessage = "amp-cuda-pipeline: format must be isa, bin or fatbin, got '" +
                   options.format + "'";
    return failure();
  }

  // 1-2. Cast policy, linalg on tensors.
  if (failed(addAmpFrontEnd(pm, options.autocast, options.mode, errorMessage)))
    return failure();

  // 3. Buffers.
  if (failed(addAmpBufferization(pm, errorMessage)))
    return failure();

  // 4. Contractions: cuBLAS calls (gemm=cublas), then tensor-core kernels
  // for what remains.
  if (options.gemm == "cublas")
    pm.addPass(createAmpGpuCublasContractions());
  AmpGpuTensorCoreContractionsOptions tcOptions;
  tcOptions.chip = options.chip;
  pm.addPass(createAmpGpuTensorCoreContractions(tcOptions));

  // 5. SIMT kernels for the rest, buffer copies included: 32 x 8 threads
  // per block over the two innermost parallel dimensions (coalesced
  // accesses).
  if (failed(addPassList(
          pm,
          "func.func(amp-gpu-copies-to-linalg,amp-gpu-parallel-dims-outer,"
          "amp-gpu-scalar-kernels,amp-gpu-reduction-kernels,"
          "amp-gpu-tiled-transpose,"
          "convert-linalg-to-parallel-loops,"
          "amp-gpu-map-parallel-loops,convert-parallel-loops-to-gpu),"
          "canonicalize,cse",
          errorMessage)))
    return failure();

  // 6. Memory the kernels can read.
  pm.addPass(createAmpGpuManagedMemory());

  // 7. Kernels to NVVM and a binary, host code to LLVM: upstream's
  // gpu-lower-to-nvvm-pipeline, spelled out so that gpu-module-to-binary
  // gets the CUDA toolkit (libdevice for __nv_* math functions, ptxas)
  // without relying on PATH or CUDA_HOME. After outlining, the launches,
  // copies and frees of each block are queued on one stream
  // (amp-gpu-async-launches). One more change: arith and index ops
  // are converted to LLVM on the host functions only, and inside kernels
  // by convert-gpu-to-nvvm, which maps ops NVPTX cannot select to libdevice
  // (arith.remf to __nv_fmodf; upstream's module-wide convert-arith-to-llvm
  // turns it into llvm.frem first, which convert-gpu-to-nvvm rejects).
  // amp-convert-scf-to-cf: upstream's convert-scf-to-cf in linear time
  // (quadratic on a whole model's function; CpuPipeline.cpp).
  std::string lower =
      "lower-affine,convert-nvgpu-to-nvvm,gpu-kernel-outlining,"
      "amp-gpu-async-launches,"
      "convert-vector-to-scf,amp-convert-scf-to-cf,convert-nvvm-to-llvm,"
      "convert-func-to-llvm,expand-strided-metadata,"
      "nvvm-attach-target{chip=" +
      options.chip + " features=" + *ptx +
      " O=3},lower-affine,"
      "llvm.func(convert-arith-to-llvm,convert-index-to-llvm),"
      "canonicalize,cse,"
      "gpu.module(amp-gpu-align-workgroup-memory,convert-gpu-to-nvvm,"
      "canonicalize,cse,"
      "reconcile-unrealized-casts),"
      "gpu-to-llvm,gpu-module-to-binary{format=" +
      options.format + " toolkit=" + toolkit +
      "},convert-math-to-llvm,canonicalize,cse,reconcile-unrealized-casts";
  return addPassList(pm, lower, errorMessage);
}

void mlir::amp::registerCudaPipeline() {
  registerAmpPipeline<CudaPipelineOptions>(
      "amp-cuda-pipeline",
      "Autocast IR (tosa, linalg on tensors, arith/math/tensor) to the LLVM "
      "dialect with NVVM kernels: cast policy, fp32 accumulation, tensor-core "
      "matmuls (mma.sync), SIMT kernels for the rest, managed memory, PTX",
      buildCudaPipeline);
}
