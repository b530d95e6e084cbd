//===- Memory.cpp - device memory for the runtime -------------------------===//
//
// mgpuMemAlloc/Free through a caching allocator (as PyTorch's), the memory
// statistics the Python package reads, copies, sets and host registration.
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"

#include <cstdint>
#include <mutex>
#include <tuple>
#include <unordered_map>

using namespace amp::cuda;

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
      CUmemLocation device = {CU_MEM_LOCATION_TYPE_DEVICE, defaultDevice()};
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
