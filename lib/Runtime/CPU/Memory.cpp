//===- Memory.cpp - the allocation counter of amp-cpu-pipeline code -------===//
//
// amp-cpu-pipeline lowers memref.alloc/dealloc with
// finalize-memref-to-llvm{use-generic-functions}: the JIT's buffers come
// from `_mlir_memref_to_llvm_alloc` / `_aligned_alloc` and go back through
// `_mlir_memref_to_llvm_free`, defined here over malloc. Every call updates
// the bytes held now and the most held at once (malloc_usable_size of each
// block: within a few bytes of the requested size, or of the page for large
// blocks), which amp-runner (--amp-memory-stats) and the Python API
// (amp_mlir.cpu_memory_stats) report. Buffers that compiled code returns
// must be freed with `_mlir_memref_to_llvm_free` (the Python package does).
//
//===----------------------------------------------------------------------===//

#include "amp/Runtime/CPU/CpuRuntime.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <malloc.h>

namespace {
std::atomic<uint64_t> currentBytes{0};
std::atomic<uint64_t> peakBytes{0};

void *track(void *ptr) {
  if (!ptr)
    return ptr;
  uint64_t now = currentBytes.fetch_add(malloc_usable_size(ptr)) +
                 malloc_usable_size(ptr);
  uint64_t peak = peakBytes.load(std::memory_order_relaxed);
  while (now > peak && !peakBytes.compare_exchange_weak(peak, now))
    ;
  return ptr;
}
} // namespace

extern "C" void *_mlir_memref_to_llvm_alloc(uint64_t size) {
  return track(std::malloc(size ? size : 1));
}

extern "C" void *_mlir_memref_to_llvm_aligned_alloc(uint64_t alignment,
                                                    uint64_t size) {
  // aligned_alloc wants a power-of-two alignment of at least a pointer and a
  // size that is a multiple of it.
  uint64_t align = alignment < sizeof(void *) ? sizeof(void *) : alignment;
  uint64_t rounded = (size + align - 1) / align * align;
  return track(std::aligned_alloc(align, rounded ? rounded : align));
}

extern "C" void _mlir_memref_to_llvm_free(void *ptr) {
  if (!ptr)
    return;
  currentBytes.fetch_sub(malloc_usable_size(ptr));
  std::free(ptr);
}

extern "C" void ampCpuMemoryStats(uint64_t *current, uint64_t *peak) {
  if (current)
    *current = currentBytes.load();
  if (peak)
    *peak = peakBytes.load();
}

extern "C" void ampCpuResetPeakMemory(void) {
  peakBytes.store(currentBytes.load());
}
