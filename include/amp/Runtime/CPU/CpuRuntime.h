//===- CpuRuntime.h - runtime support for amp-cpu-pipeline code ---*- C -*-===//
//
// The C ABI of libamp_cpu_runtime.so: AMX permission, the allocation
// counter of the JIT's buffers, and whether the oneDNN contractions
// (amp-cpu-pipeline{gemm=onednn}) are built in.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_RUNTIME_CPU_CPURUNTIME_H
#define AMP_RUNTIME_CPU_CPURUNTIME_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// 1 when the CPU has AMX-TILE and AMX-BF16 (CPUID leaf 7), else 0.
int amp_cpu_has_amx(void);

/// Requests the AMX tile data permission for the process (Linux
/// arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA)). Returns 1 when
/// granted, 0 when the CPU has no AMX, -1 when the kernel refused. Called by
/// the library's constructor; calling it again is harmless.
int amp_cpu_request_amx_permission(void);

/// The bytes of the JIT's buffers (memref.alloc of amp-cpu-pipeline code,
/// through `_mlir_memref_to_llvm_alloc`) live now, and the most live at once
/// since the start or the last ampCpuResetPeakMemory. Either pointer may be
/// null.
void ampCpuMemoryStats(uint64_t *current, uint64_t *peak);

/// Starts a new peak at the bytes live now.
void ampCpuResetPeakMemory(void);

/// Allocation and release of the lowered code's buffers
/// (finalize-memref-to-llvm{use-generic-functions}), counted. A buffer that
/// compiled code returns is freed with _mlir_memref_to_llvm_free.
void *_mlir_memref_to_llvm_alloc(uint64_t size);
void *_mlir_memref_to_llvm_aligned_alloc(uint64_t alignment, uint64_t size);
void _mlir_memref_to_llvm_free(void *ptr);

/// 1 when the library was built with oneDNN (the _mlir_ciface_ampOnednn*
/// entry points compute with it), else 0 (they compute with a reference
/// loop and say so once).
int ampCpuHasOnednn(void);
/// Called by code compiled by amp-cpu-pipeline when a `cf.assert` fails
/// (amp-cpu-recoverable-asserts): keeps a copy of the first message until
/// ampCpuTakeAssertFailure; the compiled code continues. Thread-safe (OpenMP
/// workers may call it).
void amp_cpu_assert_failed(const char *message);
/// The first failed assert's message since the last call (valid until the
/// next call), and forgets it; null when none failed. Callers of compiled
/// code call it after each call.
const char *ampCpuTakeAssertFailure(void);

/// The per-op profile of amp-cpu-pipeline{profile=true} code
/// (amp-cpu-profile-ops): a monotonic clock in nanoseconds, and the time
/// since `start` added to the op named `name` (a constant string of the
/// JIT code; entries are kept by name, in the order first seen).
int64_t ampProfileNow(void);
void ampProfileRecord(const char *name, int64_t start);
/// The entries recorded since the start or the last ampCpuProfileReset:
/// their number, and entry `index`'s name, nanoseconds and calls (0 when
/// index is out of range).
int64_t ampCpuProfileCount(void);
int ampCpuProfileEntry(int64_t index, const char **name, uint64_t *ns,
                       uint64_t *calls);
void ampCpuProfileReset(void);
/// The table on stderr, the most expensive op first.
void ampCpuProfilePrint(void);

#ifdef __cplusplus
}
#endif

#endif // AMP_RUNTIME_CPU_CPURUNTIME_H
