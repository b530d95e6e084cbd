//===- CpuTarget.cpp - the CPU features code generation targets -----------===//
//
// `cpu-features=host` reads the features of the machine that compiles, which
// is the machine that runs the JIT (amp-runner, the Python package), from
// LLVM's host detection (CPUID).
//
//===----------------------------------------------------------------------===//

#include "CpuTarget.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/TargetParser/Host.h"

#if defined(__x86_64__) && defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

using namespace mlir;
using namespace mlir::amp;

/// True when the Linux kernel supports the AMX tile data state
/// (arch_prctl(ARCH_GET_XCOMP_SUPP) lists XFEATURE_XTILEDATA): CPUID can
/// report AMX where the kernel (or a hypervisor) does not enable it, and a
/// tile instruction then dies with SIGILL. The process still has to ask for
/// it (ARCH_REQ_XCOMP_PERM): the CPU runtime does when it is loaded.
static bool kernelSupportsAmx() {
#if defined(__x86_64__) && defined(__linux__)
  constexpr long kArchGetXcompSupp = 0x1021;
  constexpr int kXfeatureXtiledata = 18;
  unsigned long long features = 0;
  if (syscall(SYS_arch_prctl, kArchGetXcompSupp, &features) != 0)
    return false;
  return features >> kXfeatureXtiledata & 1;
#else
  return false;
#endif
}

FailureOr<CpuTarget> mlir::amp::getCpuTarget(llvm::StringRef features) {
  CpuTarget target;
  if (features == "generic")
    return target;
  if (features == "avx512bf16" || features == "amx") {
    target.avx512 = target.avx512bf16 = true;
    target.amx = features == "amx";
    return target;
  }
  if (features != "host")
    return failure();
  llvm::StringMap<bool> host = llvm::sys::getHostCPUFeatures();
  auto has = [&](llvm::StringRef name) { return host.lookup(name); };
  target.avx512 =
      has("avx512f") && has("avx512bw") && has("avx512vl") && has("avx512dq");
  target.avx512bf16 = target.avx512 && has("avx512bf16");
  target.amx = has("amx-tile") && has("amx-bf16") && kernelSupportsAmx();
  return target;
}

FailureOr<CpuTarget> mlir::amp::getCpuTarget(llvm::StringRef features,
                                             Operation *op,
                                             llvm::StringRef pass) {
  FailureOr<CpuTarget> target = getCpuTarget(features);
  if (failed(target))
    emitError(op->getLoc())
        << pass << ": cpu-features must be host, generic, avx512bf16 or amx, "
        << "got '" << features << "'";
  return target;
}

std::string mlir::amp::describeCpuTarget(const CpuTarget &target) {
  std::string s = target.avx512 ? "AVX-512" : "no AVX-512";
  s += target.avx512bf16 ? ", AVX512-BF16" : ", no AVX512-BF16";
  s += target.amx ? ", AMX" : ", no AMX";
  return s;
}
