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
// or the one given to mgpuSetDefaultDevice before the first call), pushed
// for the call and popped after it.
//
// It also has the GEMM entry points of amp-cuda-pipeline{gemm=cublas}:
// cublasGemmEx with f16/bf16/f32 inputs, f32 outputs and CUBLAS_COMPUTE_32F
// (fp32 accumulation), cuBLAS opened with dlopen on first use as well.
//
//===----------------------------------------------------------------------===//

#include <cublas_api.h>
#include <cuda.h>

#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <tuple>
#include <unordered_map>
#include <vector>

#define AMP_EXPORT extern "C" __attribute__((visibility("default")))

#ifndef AMP_CUDA_TOOLKIT_LIB64
#define AMP_CUDA_TOOLKIT_LIB64 "/usr/local/cuda/lib64"
#endif

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

namespace {
/// The dynamic shared memory each kernel has been opted in to above 48 KiB
/// (mgpuLaunchKernel), so that launches of the same size skip the driver
/// call. Cleared when a module is unloaded (a later function may get a
/// freed handle).
struct SharedMemoryOptIns {
  std::mutex mutex;
  std::unordered_map<CUfunction, int32_t> bytes;
};

SharedMemoryOptIns &sharedMemoryOptIns() {
  static SharedMemoryOptIns optIns;
  return optIns;
}
} // namespace

AMP_EXPORT void mgpuModuleUnload(CUmodule module) {
  ScopedContext scope;
  AMP_CHECK(cuModuleUnload(module));
  SharedMemoryOptIns &optIns = sharedMemoryOptIns();
  std::lock_guard<std::mutex> lock(optIns.mutex);
  optIns.bytes.clear();
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
  // A kernel over an empty iteration space (a buffer with a zero-size
  // dimension) has nothing to do, and CUDA rejects a zero grid or block
  // dimension (CUDA_ERROR_INVALID_VALUE).
  if (gridX == 0 || gridY == 0 || gridZ == 0 || blockX == 0 || blockY == 0 ||
      blockZ == 0)
    return;
  ScopedContext scope;
  // Above 48 KiB of dynamic shared memory (the tensor-core kernels' shared
  // stages, amp-gpu-tensor-core-contractions) a kernel must opt in, once
  // per size; the chip's limit (sm_90: 227 KiB) is checked by the call.
  if (smem > 48 * 1024) {
    SharedMemoryOptIns &optIns = sharedMemoryOptIns();
    std::lock_guard<std::mutex> lock(optIns.mutex);
    int32_t &optedIn = optIns.bytes[function];
    if (optedIn < smem) {
      AMP_CHECK(cuFuncSetAttribute(
          function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem));
      optedIn = smem;
    }
  }
  AMP_CHECK(cuLaunchKernel(function, gridX, gridY, gridZ, blockX, blockY,
                           blockZ, smem, stream, params, extra));
}

//===----------------------------------------------------------------------===//
// Streams and events
//===----------------------------------------------------------------------===//

namespace {
/// Streams that mgpuStreamDestroy gave back, for the next mgpuStreamCreate:
/// the host code creates and destroys one per run of queued launches
/// (amp-gpu-async-launches), and cuStreamCreate/cuStreamDestroy cost
/// microseconds each. Kept until the process exits.
struct StreamPool {
  std::mutex mutex;
  std::vector<CUstream> streams;
};

StreamPool &streamPool() {
  static StreamPool pool;
  return pool;
}
} // namespace

AMP_EXPORT CUstream mgpuStreamCreate() {
  {
    StreamPool &pool = streamPool();
    std::lock_guard<std::mutex> lock(pool.mutex);
    if (!pool.streams.empty()) {
      CUstream stream = pool.streams.back();
      pool.streams.pop_back();
      return stream;
    }
  }
  ScopedContext scope;
  CUstream stream = nullptr;
  // A blocking stream: the device orders it with the legacy default
  // stream, where the cuBLAS GEMM runs (the ...Queued entry points).
  AMP_CHECK(cuStreamCreate(&stream, CU_STREAM_DEFAULT));
  return stream;
}

/// Gives the stream back to the pool (gpu-to-llvm destroys a stream right
/// after synchronizing it, so it has no work left).
AMP_EXPORT void mgpuStreamDestroy(CUstream stream) {
  StreamPool &pool = streamPool();
  std::lock_guard<std::mutex> lock(pool.mutex);
  pool.streams.push_back(stream);
}

/// Waits for the stream, and for the legacy default stream: a queued cuBLAS
/// GEMM (..Queued, on the legacy stream) may be the last work of the chain
/// that the host code waits for.
AMP_EXPORT void mgpuStreamSynchronize(CUstream stream) {
  ScopedContext scope;
  AMP_CHECK(cuStreamSynchronize(stream));
  AMP_CHECK(cuStreamSynchronize(nullptr));
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

namespace {
/// The buffers of mgpuMemAlloc: the ones in use, and freed ones kept for
/// reuse, by kind (managed or device) and exact size, as PyTorch's caching
/// allocator does. A training step allocates the same buffers every step,
/// and going to the driver each time is slow twice over: cuMemFree
/// synchronizes the device, and a fresh managed buffer's pages are created
/// one GPU page fault at a time (on an H200 the cache took the cuBLAS-path
/// GEMM, whose loop allocates its output every product, from 0.21-0.39x to
/// 0.69-1.01x of cuBLAS called directly). A reused buffer's pages stay
/// where the last kernel left them. The cache goes back to the driver when
/// an allocation fails for lack of memory.
///
/// It also counts the bytes in use now and the most in use at once since
/// the last reset (cached buffers are not in use).
class BufferCache {
public:
  void *allocate(uint64_t bytes, bool managed) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto &pool = freeBuffers[managed];
      auto it = pool.find(bytes);
      if (it != pool.end()) {
        CUdeviceptr ptr = it->second;
        pool.erase(it);
        take(ptr, bytes, managed);
        return reinterpret_cast<void *>(ptr);
      }
    }
    CUdeviceptr ptr = 0;
    CUresult result = allocateFromDriver(&ptr, bytes, managed);
    if (result == CUDA_ERROR_OUT_OF_MEMORY) {
      release();
      result = allocateFromDriver(&ptr, bytes, managed);
    }
    check(result, managed ? "cuMemAllocManaged" : "cuMemAlloc");
    if (managed) {
      // Create the pages on the device now, at copy speed, rather than by
      // the first kernel's page faults; the host may touch the buffer as
      // soon as this returns, so wait for it. Only a hint: a device without
      // concurrent managed access refuses it, and the faults still work.
      // On a non-blocking stream of its own: the legacy default stream
      // would wait for every kernel queued on the blocking streams.
      CUmemLocation device = {CU_MEM_LOCATION_TYPE_DEVICE, defaultDevice};
      CUstream prefetch = prefetchStream();
      if (driver().cuMemPrefetchAsync(ptr, bytes, device, 0, prefetch) ==
          CUDA_SUCCESS)
        AMP_CHECK(cuStreamSynchronize(prefetch));
    }
    std::lock_guard<std::mutex> lock(mutex);
    take(ptr, bytes, managed);
    return reinterpret_cast<void *>(ptr);
  }

  void free(void *p) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = live.find(reinterpret_cast<CUdeviceptr>(p));
    if (it == live.end())
      fail("mgpuMemFree of a pointer mgpuMemAlloc did not return");
    auto [bytes, managed] = it->second;
    freeBuffers[managed].emplace(bytes, it->first);
    live.erase(it);
    current -= bytes;
  }

  /// Bytes in use now and at most since the last resetPeak.
  std::pair<uint64_t, uint64_t> stats() {
    std::lock_guard<std::mutex> lock(mutex);
    return {current, peak};
  }

  void resetPeak() {
    std::lock_guard<std::mutex> lock(mutex);
    peak = current;
  }

  bool empty() {
    std::lock_guard<std::mutex> lock(mutex);
    return freeBuffers[0].empty() && freeBuffers[1].empty();
  }

  /// Returns every cached buffer to the driver, once the device is idle:
  /// the host frees a buffer when it reaches the free, and kernels queued
  /// before it may still use it (amp-gpu-async-launches).
  void release() {
    std::lock_guard<std::mutex> lock(mutex);
    if (!freeBuffers[0].empty() || !freeBuffers[1].empty())
      AMP_CHECK(cuCtxSynchronize());
    for (auto &pool : freeBuffers) {
      for (auto &entry : pool)
        AMP_CHECK(cuMemFree(entry.second));
      pool.clear();
    }
  }

private:
  /// The stream fresh managed buffers are prefetched on (created once; the
  /// context is current).
  static CUstream prefetchStream() {
    static CUstream stream = [] {
      CUstream created = nullptr;
      AMP_CHECK(cuStreamCreate(&created, CU_STREAM_NON_BLOCKING));
      return created;
    }();
    return stream;
  }

  /// Marks a buffer in use (the mutex held).
  void take(CUdeviceptr ptr, uint64_t bytes, bool managed) {
    live[ptr] = {bytes, managed};
    current += bytes;
    peak = std::max(peak, current);
  }

  static CUresult allocateFromDriver(CUdeviceptr *ptr, uint64_t bytes,
                                     bool managed) {
    return managed
               ? driver().cuMemAllocManaged(ptr, bytes, CU_MEM_ATTACH_GLOBAL)
               : driver().cuMemAlloc(ptr, bytes);
  }

  std::mutex mutex;
  std::unordered_multimap<uint64_t, CUdeviceptr> freeBuffers[2];
  std::unordered_map<CUdeviceptr, std::pair<uint64_t, bool>> live;
  uint64_t current = 0, peak = 0;
};

BufferCache &bufferCache() {
  static BufferCache cache;
  return cache;
}
} // namespace

/// Device memory (managed memory when `isHostShared`, as `gpu.alloc
/// host_shared`), from the buffer cache. Zero bytes give a null pointer.
AMP_EXPORT void *mgpuMemAlloc(uint64_t sizeBytes, CUstream /*stream*/,
                              bool isHostShared) {
  if (sizeBytes == 0)
    return nullptr;
  ScopedContext scope;
  return bufferCache().allocate(sizeBytes, isHostShared);
}

/// Gives the buffer back to the cache, at once: kernels queued before the
/// free may still use it, but the buffer's next user (an mgpuMemAlloc of
/// the same size) is queued after them on the same stream, or is host code
/// that amp-gpu-async-launches makes wait for the stream first.
AMP_EXPORT void mgpuMemFree(void *ptr, CUstream /*stream*/) {
  if (!ptr)
    return;
  bufferCache().free(ptr);
}

/// Returns the buffers that mgpuMemFree kept for reuse to the driver (as
/// torch.cuda.empty_cache). Buffers in use are not touched. With nothing
/// cached (no GPU code ran) it needs no device.
AMP_EXPORT void ampCudaReleaseCachedMemory() {
  if (bufferCache().empty())
    return;
  ScopedContext scope;
  bufferCache().release();
}

/// The device memory (bytes, managed allocations included) that the
/// program's mgpuMemAlloc calls hold now (`currentBytes`) and the most they
/// held at once since the start or the last ampCudaResetPeakMemory
/// (`peakBytes`): the peak device memory of what ran in between. Needs no
/// device.
AMP_EXPORT void ampCudaMemoryStats(uint64_t *currentBytes,
                                   uint64_t *peakBytes) {
  std::tie(*currentBytes, *peakBytes) = bufferCache().stats();
}

/// Starts a new peak: the peak becomes the memory held now.
AMP_EXPORT void ampCudaResetPeakMemory() { bufferCache().resetPeak(); }

AMP_EXPORT void mgpuMemcpy(void *dst, void *src, size_t sizeBytes,
                           CUstream stream) {
  // Zero-size buffers have null pointers (mgpuMemAlloc).
  if (sizeBytes == 0)
    return;
  ScopedContext scope;
  AMP_CHECK(cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                          reinterpret_cast<CUdeviceptr>(src), sizeBytes,
                          stream));
}

AMP_EXPORT void mgpuMemset32(void *dst, unsigned int value, size_t count,
                             CUstream stream) {
  if (count == 0)
    return;
  ScopedContext scope;
  AMP_CHECK(cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst), value, count,
                             stream));
}

AMP_EXPORT void mgpuMemset16(void *dst, unsigned short value, size_t count,
                             CUstream stream) {
  if (count == 0)
    return;
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

//===----------------------------------------------------------------------===//
// cuBLAS GEMM (amp-cuda-pipeline{gemm=cublas})
//===----------------------------------------------------------------------===//

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
