/*===- Amp.h - C API of amp-mlir ------------------------------------*- C -*-===
 *
 * The C API of amp-mlir, next to MLIR's own C API (mlir-c/IR.h, Pass.h,
 * ExecutionEngine.h, RegisterEverything.h), all exported by one shared
 * library, libAmpMLIRCAPI.so. The Python package `amp_mlir` is built on it
 * with ctypes.
 *
 *===----------------------------------------------------------------------===*/

#ifndef AMP_C_AMP_H
#define AMP_C_AMP_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The amp dialect handle (mlirDialectHandleRegisterDialect etc.). */
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Amp, amp);

/** Registers every upstream dialect and extension (mlirRegisterAllDialects),
 * the amp dialect and the cast-policy external models that amp attaches to
 * upstream ops (tosa, linalg, arith, math, tensor), into `registry`. */
MLIR_CAPI_EXPORTED void ampRegisterAllDialects(MlirDialectRegistry registry);

/** Registers every upstream pass and the amp passes and pipelines
 * (`amp-autocast`, ..., `amp-cpu-pipeline`) in the global pass registry, so
 * that mlirParsePassPipeline understands them. Safe to call more than once. */
MLIR_CAPI_EXPORTED void ampRegisterAllPasses(void);

/** Sets `llvm.emit_c_interface` on every public `func.func` with a body in
 * `module`, so that the JIT exposes `_mlir_ciface_<name>` wrappers taking
 * memref descriptors by pointer. Run it before lowering to LLVM. */
MLIR_CAPI_EXPORTED void ampModuleEmitCInterface(MlirModule module);

/** The runtime libraries that JIT-compiled amp code needs, as one string of
 * absolute paths separated by ';': MLIR's runner utils, LLVM's OpenMP runtime
 * and the project's CPU runtime (the ones amp-runner links). The string is
 * static; do not free it. */
MLIR_CAPI_EXPORTED const char *ampGetJitRuntimeLibraries(void);

/** The MPI library found when amp-mlir was configured (absolute path of
 * libmpi.so), which JIT-compiled data-parallel steps call
 * (amp-cpu-pipeline{data-parallel=N}); "" when the build found no MPI. The
 * string is static; do not free it. */
MLIR_CAPI_EXPORTED const char *ampGetMpiLibrary(void);

/** The ABI of that library: "OpenMPI", "MPICH", or "" (no MPI). */
MLIR_CAPI_EXPORTED const char *ampGetMpiImplementation(void);

#ifdef __cplusplus
}
#endif

#endif /* AMP_C_AMP_H */
