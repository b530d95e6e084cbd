//===- CudaDriver.h - the CUDA driver for the runtime -----------*- C++ -*-===//
//
// What every part of libamp_cuda_runtime.so shares: the CUDA driver's entry
// points, opened with dlopen on first use (so the library loads on
// machines without a GPU), the error reporting of driver calls, and the
// default device's primary context that each runtime call runs in.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_RUNTIME_CUDA_CUDADRIVER_H
#define AMP_LIB_RUNTIME_CUDA_CUDADRIVER_H

#include <cuda.h>

/// The functions of the mgpu* ABI and the amp entry points are the
/// library's only exported symbols (it is built with hidden visibility).
#define AMP_EXPORT extern "C" __attribute__((visibility("default")))

namespace amp::cuda {

// Versioned driver symbols: cuda.h maps cuMemAlloc to cuMemAlloc_v2 etc.
#define AMP_STR(x) #x
#define AMP_XSTR(x) AMP_STR(x)

/// Driver entry points, resolved by their versioned names.
struct Driver {
#define AMP_CU_FUNCTIONS(X)                                                    \
  X(cuInit)                                                                    \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetCount)                                                          \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuCtxPushCurrent)                                                          \
  X(cuCtxPopCurrent)                                                           \
  X(cuModuleLoadData)                                                          \
  X(cuModuleLoadDataEx)                                                        \
  X(cuModuleUnload)                                                            \
  X(cuModuleGetFunction)                                                       \
  X(cuLaunchKernel)                                                            \
  X(cuFuncSetAttribute)                                                        \
  X(cuStreamCreate)                                                            \
  X(cuStreamDestroy)                                                           \
  X(cuStreamSynchronize)                                                       \
  X(cuStreamWaitEvent)                                                         \
  X(cuEventCreate)                                                             \
  X(cuEventDestroy)                                                            \
  X(cuEventRecord)                                                             \
  X(cuEventSynchronize)                                                        \
  X(cuMemAlloc)                                                                \
  X(cuMemAllocManaged)                                                         \
  X(cuMemFree)                                                                 \
  X(cuMemPrefetchAsync)                                                        \
  X(cuMemcpyAsync)                                                             \
  X(cuMemsetD32Async)                                                          \
  X(cuMemsetD16Async)                                                          \
  X(cuMemHostRegister)                                                         \
  X(cuMemHostUnregister)                                                       \
  X(cuCtxSynchronize)
#define AMP_DECLARE(name) decltype(&::name) name = nullptr;
  AMP_CU_FUNCTIONS(AMP_DECLARE)
#undef AMP_DECLARE
};

/// The driver, loaded on first use; exits with a clear message where there
/// is none.
const Driver &driver();

/// The device whose primary context the runtime uses (mgpuSetDefaultDevice;
/// 0 by default).
int &defaultDevice();

/// Prints "amp-cuda-runtime: <what>" and exits with status 1.
[[noreturn]] void fail(const char *what);

/// Reports a failed driver call (its name, the CUDA error name and message)
/// and exits with status 1: the mgpu* ABI has no error results.
void check(CUresult result, const char *call);

#define AMP_CHECK(call) ::amp::cuda::check(::amp::cuda::driver().call, #call)

/// Pushes the default device's primary context for one runtime call.
class ScopedContext {
public:
  ScopedContext();
  ~ScopedContext();
};

} // namespace amp::cuda

#endif // AMP_LIB_RUNTIME_CUDA_CUDADRIVER_H
