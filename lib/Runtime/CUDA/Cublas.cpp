//===- Cublas.cpp - cuBLAS GEMM for amp-cuda-pipeline ---------------------===//
//
// The GEMM entry points of amp-cuda-pipeline{gemm=cublas}: cublasGemmEx with
// f16/bf16/f32 inputs, f32 outputs and CUBLAS_COMPUTE_32F (fp32
// accumulation); cuBLAS is opened with dlopen on first use, like the driver.
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"

#include <cublas_api.h>
#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#ifndef AMP_CUDA_TOOLKIT_LIB64
#define AMP_CUDA_TOOLKIT_LIB64 "/usr/local/cuda/lib64"
#endif

using namespace amp::cuda;

namespace {

using CublasHandle = cublasHandle_t;
using CublasStatus = cublasStatus_t;
constexpr CublasStatus kCublasSuccess = CUBLAS_STATUS_SUCCESS;
constexpr cudaDataType kCudaR32F = CUDA_R_32F, kCudaR16F = CUDA_R_16F,
                       kCudaR16BF = CUDA_R_16BF;

/// cuBLAS entry points (cublasGemmEx is overloaded in C++: its type is
/// spelled out).
struct Cublas {
  CublasStatus (*create)(CublasHandle *) = nullptr;
  CublasStatus (*gemmEx)(CublasHandle, cublasOperation_t, cublasOperation_t,
                         int, int, int, const void *, const void *,
                         cudaDataType, int, const void *, cudaDataType, int,
                         const void *, void *, cudaDataType, int,
                         cublasComputeType_t, cublasGemmAlgo_t) = nullptr;
  const char *(*statusString)(CublasStatus) = nullptr;
  CublasHandle handle = nullptr;
};

const Cublas &cublas() {
  static Cublas c;
  static std::once_flag once;
  std::call_once(once, [] {
    // The loader's search path first, then the toolkit found at configure
    // time (its lib64 is often not on the search path).
    void *lib = nullptr;
    for (const char *name :
         {"libcublas.so.13", "libcublas.so.12",
          AMP_CUDA_TOOLKIT_LIB64 "/libcublas.so.13",
          AMP_CUDA_TOOLKIT_LIB64 "/libcublas.so.12"})
      if ((lib = dlopen(name, RTLD_NOW | RTLD_GLOBAL)))
        break;
    if (!lib) {
      std::fprintf(stderr, "amp-cuda-runtime: cannot load cuBLAS "
                           "(libcublas.so.13 or .12, also in %s): %s\n",
                   AMP_CUDA_TOOLKIT_LIB64, dlerror());
      std::exit(EXIT_FAILURE);
    }
    c.create = reinterpret_cast<decltype(c.create)>(dlsym(lib, "cublasCreate_v2"));
    c.gemmEx = reinterpret_cast<decltype(c.gemmEx)>(dlsym(lib, "cublasGemmEx"));
    c.statusString = reinterpret_cast<decltype(c.statusString)>(
        dlsym(lib, "cublasGetStatusString"));
    if (!c.create || !c.gemmEx || !c.statusString)
      fail("cuBLAS lacks cublasCreate_v2/cublasGemmEx/cublasGetStatusString");
    CublasStatus status = c.create(&c.handle);
    if (status != kCublasSuccess) {
      std::fprintf(stderr, "amp-cuda-runtime: cublasCreate failed: %s\n",
                   c.statusString(status));
      std::exit(EXIT_FAILURE);
    }
  });
  return c;
}

/// A rank-2 memref descriptor.
struct MemRef2D {
  char *allocated;
  char *aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
};

/// C[m, n] = A[m, k] * B[k, n] + beta * C[m, n] on row-major buffers (unit
/// inner strides), fp32 accumulation; beta is 1 (accumulate) or 0 (C is
/// overwritten, its old contents, NaN included, ignored). cuBLAS is
/// column-major: it computes C^T = B^T A^T + beta C^T.
void gemm(const MemRef2D *a, const MemRef2D *b, const MemRef2D *c, float beta,
          cudaDataType abType, int elementBytes, const char *name,
          bool queued) {
  int64_t m = c->sizes[0], n = c->sizes[1], k = a->sizes[1];
  if (a->sizes[0] != m || b->sizes[0] != k || b->sizes[1] != n) {
    std::fprintf(stderr, "amp-cuda-runtime: %s: shapes %ldx%ld * %ldx%ld -> "
                         "%ldx%ld do not match\n",
                 name, (long)a->sizes[0], (long)a->sizes[1], (long)b->sizes[0],
                 (long)b->sizes[1], (long)m, (long)n);
    std::exit(EXIT_FAILURE);
  }
  if (m == 0 || n == 0)
    return; // no C
  if (k == 0 && beta != 0.0f)
    return; // C += nothing
  if (k == 0) {
    // C = 0 (cuBLAS leaves C alone when k is 0): amp-gpu-cublas-contractions
    // passes beta = 0 only for a static k > 0.
    std::fprintf(stderr,
                 "amp-cuda-runtime: %s: beta = 0 with k = 0 would leave C "
                 "unwritten\n",
                 name);
    std::exit(EXIT_FAILURE);
  }
  for (const MemRef2D *x : {a, b, c})
    if (x->strides[1] != 1 && x->sizes[1] > 1) {
      std::fprintf(stderr, "amp-cuda-runtime: %s: inner stride must be 1\n",
                   name);
      std::exit(EXIT_FAILURE);
    }
  const Cublas &blas = cublas();
  ScopedContext scope;
  float alpha = 1.0f;
  const char *pa = a->aligned + a->offset * elementBytes;
  const char *pb = b->aligned + b->offset * elementBytes;
  char *pc = c->aligned + c->offset * 4;
  auto ld = [](const MemRef2D *x) {
    return static_cast<int>(x->strides[0] > 0 ? x->strides[0] : x->sizes[1]);
  };
  CublasStatus status = blas.gemmEx(
      blas.handle, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(n),
      static_cast<int>(m), static_cast<int>(k), &alpha, pb, abType, ld(b), pa,
      abType, ld(a), &beta, pc, kCudaR32F, ld(c), CUBLAS_COMPUTE_32F,
      CUBLAS_GEMM_DEFAULT);
  if (status != kCublasSuccess) {
    std::fprintf(stderr, "amp-cuda-runtime: cublasGemmEx (%s) failed: %s\n",
                 name, blas.statusString(status));
    std::exit(EXIT_FAILURE);
  }
  // The GEMM runs on the legacy default stream, which the device orders
  // after the earlier work of every blocking stream (mgpuStreamCreate's)
  // and before their later work. Queued: the host code waits for it with
  // its next stream synchronization (amp-gpu-async-launches); otherwise the
  // host and kernels launched on other streams read C now.
  if (!queued)
    AMP_CHECK(cuStreamSynchronize(nullptr));
}

} // namespace

/// `linalg.matmul` f16 x f16 -> f32, for amp-cuda-pipeline{gemm=cublas}:
/// C = A * B + beta * C, beta 1 (accumulating into C) or 0 (a zero fill of
/// C fused, amp-gpu-cublas-contractions); returns when C is written.
AMP_EXPORT void _mlir_ciface_ampCublasMatmulF16F32(MemRef2D *a, MemRef2D *b,
                                                   MemRef2D *c, float beta) {
  gemm(a, b, c, beta, kCudaR16F, 2, "f16 x f16 -> f32", /*queued=*/false);
}

/// `linalg.matmul` bf16 x bf16 -> f32.
AMP_EXPORT void _mlir_ciface_ampCublasMatmulBF16F32(MemRef2D *a, MemRef2D *b,
                                                    MemRef2D *c, float beta) {
  gemm(a, b, c, beta, kCudaR16BF, 2, "bf16 x bf16 -> f32", /*queued=*/false);
}

/// `linalg.matmul` f32 x f32 -> f32.
AMP_EXPORT void _mlir_ciface_ampCublasMatmulF32(MemRef2D *a, MemRef2D *b,
                                                MemRef2D *c, float beta) {
  gemm(a, b, c, beta, kCudaR32F, 4, "f32 x f32 -> f32", /*queued=*/false);
}

/// The queued variants (amp.queued_variant, called by the host code of
/// amp-gpu-async-launches): the GEMM is enqueued on the legacy default
/// stream and the call returns at once.
AMP_EXPORT void _mlir_ciface_ampCublasMatmulF16F32Queued(MemRef2D *a,
                                                         MemRef2D *b,
                                                         MemRef2D *c,
                                                         float beta) {
  gemm(a, b, c, beta, kCudaR16F, 2, "f16 x f16 -> f32", /*queued=*/true);
}

AMP_EXPORT void _mlir_ciface_ampCublasMatmulBF16F32Queued(MemRef2D *a,
                                                          MemRef2D *b,
                                                          MemRef2D *c,
                                                          float beta) {
  gemm(a, b, c, beta, kCudaR16BF, 2, "bf16 x bf16 -> f32", /*queued=*/true);
}

AMP_EXPORT void _mlir_ciface_ampCublasMatmulF32Queued(MemRef2D *a, MemRef2D *b,
                                                      MemRef2D *c, float beta) {
  gemm(a, b, c, beta, kCudaR32F, 4, "f32 x f32 -> f32", /*queued=*/true);
}
