//===- CudaDriver.cpp - the CUDA driver for the runtime -------------------===//
//
// libamp_cuda_runtime.so implements the host-side functions that MLIR 22's
// `gpu-to-llvm` and the `#gpu.select_object` translation emit calls to
// (mgpuModuleLoad, mgpuLaunchKernel, mgpuMemAlloc, ...), on the CUDA driver
// API. MLIR ships no CUDA runtime in Debian's packages; this is the
// project's own.
//
// The driver (libcuda.so.1) is opened with dlopen on the first call, so the
// library loads and links on machines without a GPU (CI): there, the first
// call prints a clear error and exits with status 1. Every failing driver
// call is reported with its name, the CUDA error name and message, and
// exits with status 1 too: the mgpu* ABI has no error results, and going on
// with a null module, function or pointer would crash later with no
// explanation.
//
// Each call runs in the primary context of the default device (device 0,
// or the one given to mgpuSetDefaultDevice before the first call), pushed
// for the call and popped after it.
//
// The library's files: this one (the driver, the context, the default
// device), Launches.cpp (modules, kernels, streams, events), Memory.cpp
// (the caching allocator, copies, host registration) and Cublas.cpp (the
// GEMM entry points of amp-cuda-pipeline{gemm=cublas}).
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>

using namespace amp::cuda;

int &amp::cuda::defaultDevice() {
  static int device = 0;
  return device;
}

void amp::cuda::fail(const char *what) {
  std::fprintf(stderr, "amp-cuda-runtime: %s\n", what);
  std::fflush(stderr);
  std::exit(EXIT_FAILURE);
}

const Driver &amp::cuda::driver() {
  static Driver d;
  static std::once_flag once;
  std::call_once(once, [] {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!lib) {
      std::fprintf(stderr,
                   "amp-cuda-runtime: cannot load the CUDA driver "
                   "(libcuda.so.1): %s\n",
                   dlerror());
      fail("no NVIDIA driver on this machine: GPU code cannot run here");
    }
#define AMP_RESOLVE(name)                                                      \
  d.name = reinterpret_cast<decltype(d.name)>(dlsym(lib, AMP_XSTR(name)));     \
  if (!d.name)                                                                 \
    fail("the CUDA driver has no " AMP_XSTR(name) " (driver too old?)");
    AMP_CU_FUNCTIONS(AMP_RESOLVE)
#undef AMP_RESOLVE
  });
  return d;
}

void amp::cuda::check(CUresult result, const char *call) {
  if (result == CUDA_SUCCESS)
    return;
  const char *name = "unknown error", *text = "";
  const Driver &d = driver();
  d.cuGetErrorName(result, &name);
  d.cuGetErrorString(result, &text);
  std::fprintf(stderr, "amp-cuda-runtime: %s failed: %s (%d): %s\n", call, name,
               static_cast<int>(result), text);
  std::fflush(stderr);
  std::exit(EXIT_FAILURE);
}

ScopedContext::ScopedContext() {
  static CUcontext context = [] {
    AMP_CHECK(cuInit(0));
    int count = 0;
    AMP_CHECK(cuDeviceGetCount(&count));
    if (count == 0)
      fail("the CUDA driver sees no device");
    if (defaultDevice() >= count) {
      std::fprintf(stderr,
                   "amp-cuda-runtime: device %d requested, %d present\n",
                   defaultDevice(), count);
      std::exit(EXIT_FAILURE);
    }
    CUdevice device;
    AMP_CHECK(cuDeviceGet(&device, defaultDevice()));
    CUcontext ctx;
    AMP_CHECK(cuDevicePrimaryCtxRetain(&ctx, device));
    return ctx;
  }();
  AMP_CHECK(cuCtxPushCurrent(context));
}

ScopedContext::~ScopedContext() {
  CUcontext popped;
  AMP_CHECK(cuCtxPopCurrent(&popped));
}

AMP_EXPORT void mgpuSetDefaultDevice(int32_t device) {
  if (device < 0)
    fail("mgpuSetDefaultDevice: negative device number");
  defaultDevice() = device;
}
