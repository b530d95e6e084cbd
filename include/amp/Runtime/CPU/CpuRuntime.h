//===- CpuRuntime.h - runtime support for amp-cpu-pipeline code ---*- C -*-===//

#ifndef AMP_RUNTIME_CPU_CPURUNTIME_H
#define AMP_RUNTIME_CPU_CPURUNTIME_H

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

#ifdef __cplusplus
}
#endif

#endif // AMP_RUNTIME_CPU_CPURUNTIME_H
