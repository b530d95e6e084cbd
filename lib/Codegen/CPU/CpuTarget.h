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
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mlir::vector {
class ContractionOp;
} // namespace mlir::vector
namespace mlir::func {
class FuncOp;
} // namespace mlir::func

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

/// getCpuTarget for the `cpu-features` option of the pass `pass` run on
/// `op`: an error at `op`'s location naming the pass and the valid values
/// when `features` is none of them.
FailureOr<CpuTarget> getCpuTarget(llvm::StringRef features, Operation *op,
                                  llvm::StringRef pass);

/// A one-line description of `target` ("AVX-512, AVX512-BF16, no AMX").
std::string describeCpuTarget(const CpuTarget &target);

/// True when `contract` is a bf16 x bf16 -> f32 contraction in the VNNI
/// layout of tdpbf16ps that fits AMX tiles: A indexed (m, k, pair), B
/// (k, n, pair), C (m, n), a pair dimension of 2, at most 16 rows of 64
/// bytes per operand (AmxTiles.cpp; amp-cpu-amx-tiles converts it).
bool isAmxContraction(vector::ContractionOp contract);

/// The register tiles of `func` that amp-cpu-amx-tiles converts: those
/// that fit AMX tiles (amp::isAmxContraction), as long as the function's
/// tiles fit the 8 tile registers. LLVM configures each tile register for
/// one shape (rows x bytes per row) per function, so every shape in use
/// needs registers of its own: as many as the most operands of that shape
/// one contraction has live at once (its accumulator, A and B). Whole
/// tiles (16 x 64 bytes each operand: 3 registers) go first, then the
/// peeled remainders (M, K or both) in order while the registers last; the
/// others take the AVX512-BF16 path. (With a tile per distinct shape,
/// squeezenet1_1's convolutions needed 10: LLVM stopped with "ran out of
/// registers during register allocation".)
llvm::DenseSet<Operation *> selectAmxContractions(func::FuncOp func);

} // namespace amp
} // namespace mlir

#endif // AMP_LIB_CODEGEN_CPU_CPUTARGET_H
