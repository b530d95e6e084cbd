//===- CpuRuntime.cpp - runtime support for amp-cpu-pipeline code ---------===//
//
// libamp_cpu_runtime.so: linked into amp-runner, and loadable by mlir-runner
// (--shared-libs) for code compiled by amp-cpu-pipeline.
//
// Linux gives a process the AMX tile data state only on request: the first
// tile instruction of a process that did not call
// arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) dies with SIGILL. The
// library's constructor makes that request when the CPU has AMX, before any
// JIT-compiled code runs.
//
//===----------------------------------------------------------------------===//

#include "amp/Runtime/CPU/CpuRuntime.h"

#include <mutex>
#include <string>

#if defined(__x86_64__) && defined(__linux__)
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace {
constexpr long kArchReqXcompPerm = 0x1023;
constexpr long kXfeatureXtiledata = 18;
} // namespace

extern "C" int amp_cpu_has_amx(void) {
#if defined(__x86_64__) && defined(__linux__)
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx))
    return 0;
  // CPUID.(EAX=7,ECX=0):EDX bit 24 = AMX-TILE, bit 22 = AMX-BF16.
  return (edx >> 24 & 1) && (edx >> 22 & 1);
#else
  return 0;
#endif
}

extern "C" int amp_cpu_request_amx_permission(void) {
#if defined(__x86_64__) && defined(__linux__)
  if (!amp_cpu_has_amx())
    return 0;
  return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0
             ? 1
             : -1;
#else
  return 0;
#endif
}

namespace {
// The first failed assert's message since the last take, copied: the
// module's string goes away with the module (amp-runner's JitRunnerMain
// destroys it before returning).
std::mutex assertMutex;
bool assertFailed = false;
std::string assertMessage, assertTaken;
} // namespace

extern "C" void amp_cpu_assert_failed(const char *message) {
  std::lock_guard<std::mutex> lock(assertMutex);
  if (assertFailed)
    return;
  assertFailed = true;
  assertMessage = message ? message : "";
}

extern "C" const char *ampCpuTakeAssertFailure(void) {
  std::lock_guard<std::mutex> lock(assertMutex);
  if (!assertFailed)
    return nullptr;
  assertFailed = false;
  assertTaken = std::move(assertMessage);
  assertMessage.clear();
  return assertTaken.c_str();
}

__attribute__((constructor)) static void ampCpuRuntimeInit() {
  (void)amp_cpu_request_amx_permission();
}
