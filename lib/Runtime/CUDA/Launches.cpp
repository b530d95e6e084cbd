//===- Launches.cpp - modules, kernels, streams and events ----------------===//
//
// The mgpu* functions that load kernels and launch them: modules (cubin,
// fatbin or PTX JIT-compiled by the driver), kernel launches (with the
// opt-in to more than 48 KiB of dynamic shared memory), streams (pooled)
// and events.
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"

#include <cstdint>
#include <cstdio>
#include <mutex>
#include <unordered_map>
#include <vector>

using namespace amp::cuda;

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
