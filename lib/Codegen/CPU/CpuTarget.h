//===- CpuTarget.h - the CPU features code generation targets --*- C++ -*-===//
//
// What amp-cpu-pipeline's `cpu-features` option means: the instruction set
// features of the CPU the code is generated for (the JIT host's, or forced),
// as the CPU passes consult them.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_CODEGEN_CPU_CPUTARGET_H
#define AMP_LIB_CODEGEN_CPU_CPUTARGET_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir {
class Operation;
namespace amp {

/// The features of the target CPU that change the code.
struct CpuTarget {
  /// AVX-512 (F, BW, VL, DQ): oneDNN's bf16 matmul needs at least this.
  bool avx512 = false;
  /// AVX512-BF16 (vdpbf16ps): bf16 arithmetic.
  bool avx512bf16 = false;
  /// AMX-TILE and AMX-BF16.
  bool amx = false;

  /// Whether the CPU computes with bf16 (rather than widening it to f32).
  bool hasBf16Arithmetic() const { return avx512bf16 || amx; }
};

/// The target for `features`: "host" (the features LLVM detects on this
/// machine, which runs the JIT), "generic" (none of them), "avx512bf16"
/// (AVX-512 with BF16) or "amx" (AVX512-BF16 and AMX). Fails for another
/// name.
FailureOr<CpuTarget> getCpuTarget(llvm::StringRef features);

/// Marks a bf16 x bf16 -> f32 contraction generic in the packed form of the
/// AVX512-BF16 path (loops [batch] x N/n_r x M x n_r x K/2 x 2, B in VNNI
/// layout) until amp-cpu-tile-and-vectorize tiles it with the dot register
/// tiles: set by that pass's own packing and by amp-cpu-conv-bf16-dot.
constexpr llvm::StringLiteral kBf16DotContractionMarker = "__amp_bf16_dot__";

/// A one-line description of `target` ("AVX-512, AVX512-BF16, no AMX").
std::string describeCpuTarget(const CpuTarget &target);

} // namespace amp
} // namespace mlir

#endif // AMP_LIB_CODEGEN_CPU_CPUTARGET_H
