//===- CudaRuntime.cpp - the mgpu* runtime ABI on the CUDA driver API -----===//
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
// or the one given to mgpuSetDefaultDevice), pushed for the call and popped
// after it.
//
//===----------------------------------------------------------------------===//

#include <cuda.h>

#include <dlfcn.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>

#define AMP_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

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
  X(cuMemcpyAsync)                                                             \
  X(cuMemsetD32Async)                                                          \
  X(cuMemsetD16Async)                                                          \
  X(cuMemHostRegister)                                                         \
  X(cuMemHostUnregister)
#define AMP_DECLARE(name) decltype(&::name) name = nullptr;
  AMP_CU_FUNCTIONS(AMP_DECLARE)
#undef AMP_DECLARE
};

int defaultDevice = 0;

[[noreturn]] void fail(const char *what) {
  std::fprintf(stderr, "amp-cuda-runtime: %s\n", what);
  std::fflush(stderr);
  std::exit(EXIT_FAILURE);
}

/// The driver, loaded on first use.
const Driver &driver() {
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

/// Reports a failed driver call and exits.
void check(CUresult result, const char *call) {
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

#define AMP_CHECK(call) check(driver().call, #call)

/// Pushes the default device's primary context for one runtime call.
class ScopedContext {
public:
  ScopedContext() {
    static CUcontext context = [] {
      AMP_CHECK(cuInit(0));
      int count = 0;
      AMP_CHECK(cuDeviceGetCount(&count));
      if (count == 0)
        fail("the CUDA driver sees no device");
      if (defaultDevice >= count) {
        std::fprintf(stderr,
                     "amp-cuda-runtime: device %d requested, %d present\n",
                     defaultDevice, count);
        std::exit(EXIT_FAILURE);
      }
      CUdevice device;
      AMP_CHECK(cuDeviceGet(&device, defaultDevice));
      CUcontext ctx;
      AMP_CHECK(cuDevicePrimaryCtxRetain(&ctx, device));
      return ctx;
    }();
    AMP_CHECK(cuCtxPushCurrent(context));
  }
  ~ScopedContext() {
    CUcontext popped;
    AMP_CHECK(cuCtxPopCurrent(&popped));
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// Modules and kernels
//===----------------------------------------------------------------------===//

AMP_EXPORT CUmodule mgpuModuleLoad(void *data, size_t /*gpuBlobSize*/) {
  ScopedContext scope;
  CUmodule module = nullptr;
  AMP_CHECK(cuModuleLoadData(&module, data));
  return module;
}

AMP_EXPORT CUmodule mgpuModuleLoadJIT(void *data, int optLevel) {
  ScopedContext scope;
  CUmodule module = nullptr;
  char log[8192] = {0};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_OPTIMIZATION_LEVEL};
  void *values[] = {log, reinterpret_cast<void *>(sizeof(log)),
                    reinterpret_cast<void *>(static_cast<intptr_t>(optLevel))};
  CUresult result =
      driver().cuModuleLoadDataEx(&module, data, 3, options, values);
  if (result != CUDA_SUCCESS && log[0])
    std::fprintf(stderr, "amp-cuda-runtime: PTX JIT log:\n%s\n", log);
  check(result, "cuModuleLoadDataEx(PTX)");
  return module;
}

AMP_EXPORT void mgpuModuleUnload(CUmodule module) {
  ScopedContext scope;
  AMP_CHECK(cuModuleUnload(module));
}

AMP_EXPORT CUfunction mgpuModuleGetFunction(CUmodule module,
                                            const char *name) {
  ScopedContext scope;
  CUfunction function = nullptr;
  check(driver().cuModuleGetFunction(&function, module, name),
        "cuModuleGetFunction");
  return function;
}

AMP_EXPORT void mgpuLaunchKernel(CUfunction function, intptr_t gridX,
                                 intptr_t gridY, intptr_t gridZ,
                                 intptr_t blockX, intptr_t blockY,
                                 intptr_t blockZ, int32_t smem,
                                 CUstream stream, void **params, void **extra,
                                 size_t /*paramsCount*/) {
  ScopedContext scope;
  AMP_CHECK(cuLaunchKernel(function, gridX, gridY, gridZ, blockX, blockY,
                           blockZ, smem, stream, params, extra));
}

//===----------------------------------------------------------------------===//
// Streams and events
//===----------------------------------------------------------------------===//

AMP_EXPORT CUstream mgpuStreamCreate() {
  ScopedContext scope;
  CUstream stream = nullptr;
  AMP_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  return stream;
}

AMP_EXPORT void mgpuStreamDestroy(CUstream stream) {
  ScopedContext scope;
  AMP_CHECK(cuStreamDestroy(stream));
}

AMP_EXPORT void mgpuStreamSynchronize(CUstream stream) {
  ScopedContext scope;
  AMP_CHECK(cuStreamSynchronize(stream));
}

AMP_EXPORT void mgpuStreamWaitEvent(CUstream stream, CUevent event) {
  ScopedContext scope;
  AMP_CHECK(cuStreamWaitEvent(stream, event, 0));
}

AMP_EXPORT CUevent mgpuEventCreate() {
  ScopedContext scope;
  CUevent event = nullptr;
  AMP_CHECK(cuEventCreate(&event, CU_EVENT_DISABLE_TIMING));
  return event;
}

AMP_EXPORT void mgpuEventDestroy(CUevent event) {
  ScopedContext scope;
  AMP_CHECK(cuEventDestroy(event));
}

AMP_EXPORT void mgpuEventSynchronize(CUevent event) {
  ScopedContext scope;
  AMP_CHECK(cuEventSynchronize(event));
}

AMP_EXPORT void mgpuEventRecord(CUevent event, CUstream stream) {
  ScopedContext scope;
  AMP_CHECK(cuEventRecord(event, stream));
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

/// Device memory (managed memory when `isHostShared`, as `gpu.alloc
/// host_shared`). Zero bytes give a null pointer.
AMP_EXPORT void *mgpuMemAlloc(uint64_t sizeBytes, CUstream /*stream*/,
                              bool isHostShared) {
  if (sizeBytes == 0)
    return nullptr;
  ScopedContext scope;
  CUdeviceptr ptr = 0;
  if (isHostShared)
    AMP_CHECK(cuMemAllocManaged(&ptr, sizeBytes, CU_MEM_ATTACH_GLOBAL));
  else
    AMP_CHECK(cuMemAlloc(&ptr, sizeBytes));
  return reinterpret_cast<void *>(ptr);
}

AMP_EXPORT void mgpuMemFree(void *ptr, CUstream /*stream*/) {
  if (!ptr)
    return;
  ScopedContext scope;
  AMP_CHECK(cuMemFree(reinterpret_cast<CUdeviceptr>(ptr)));
}

AMP_EXPORT void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                           CUstream stream) {
  ScopedContext scope;
  AMP_CHECK(cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                          reinterpret_cast<CUdeviceptr>(src), sizeBytes,
                          stream));
}

AMP_EXPORT void mgpuMemset32(void *dst, unsigned int value, size_t count,
                             CUstream stream) {
  ScopedContext scope;
  AMP_CHECK(cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst), value, count,
                             stream));
}

AMP_EXPORT void mgpuMemset16(void *dst, unsigned short value, size_t count,
                             CUstream stream) {
  ScopedContext scope;
  AMP_CHECK(cuMemsetD16Async(reinterpret_cast<CUdeviceptr>(dst), value, count,
                             stream));
}

AMP_EXPORT void mgpuMemHostRegister(void *ptr, uint64_t sizeBytes) {
  ScopedContext scope;
  AMP_CHECK(cuMemHostRegister(ptr, sizeBytes, /*Flags=*/0));
}

AMP_EXPORT void mgpuMemHostUnregister(void *ptr) {
  ScopedContext scope;
  AMP_CHECK(cuMemHostUnregister(ptr));
}

namespace {
/// The layout of a ranked memref descriptor: two pointers, the offset, then
/// `rank` sizes and `rank` strides.
struct MemRefHeader {
  char *allocated;
  char *aligned;
  int64_t offset;
  int64_t sizesAndStrides[1];
};

/// Bytes spanned by a memref, from its aligned pointer + offset.
uint64_t memrefSpan(int64_t rank, const MemRefHeader *desc,
                    int64_t elementSizeBytes) {
  if (rank == 0)
    return elementSizeBytes;
  int64_t extent = 1;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t size = desc->sizesAndStrides[i];
    int64_t stride = desc->sizesAndStrides[rank + i];
    if (size == 0)
      return 0;
    extent += (size - 1) * (stride < 0 ? -stride : stride);
  }
  return static_cast<uint64_t>(extent) * elementSizeBytes;
}
} // namespace

AMP_EXPORT void mgpuMemHostRegisterMemRef(int64_t rank, void *descriptor,
                                          int64_t elementSizeBytes) {
  auto *desc = static_cast<MemRefHeader *>(descriptor);
  uint64_t bytes = memrefSpan(rank, desc, elementSizeBytes);
  if (bytes)
    mgpuMemHostRegister(desc->aligned + desc->offset * elementSizeBytes, bytes);
}

AMP_EXPORT void mgpuMemHostUnregisterMemRef(int64_t rank, void *descriptor,
                                            int64_t elementSizeBytes) {
  auto *desc = static_cast<MemRefHeader *>(descriptor);
  if (memrefSpan(rank, desc, elementSizeBytes))
    mgpuMemHostUnregister(desc->aligned + desc->offset * elementSizeBytes);
}

AMP_EXPORT void mgpuSetDefaultDevice(int32_t device) {
  if (device < 0)
    fail("mgpuSetDefaultDevice: negative device number");
  defaultDevice = device;
}
