//===- OnednnMatch.h - which linalg ops oneDNN takes ------------*- C++ -*-===//
//
// The one decision both oneDNN passes make (amp-cpu-select-onednn on
// tensors, amp-cpu-onednn-contractions on buffers): whether a linalg op is
// a contraction or convolution that a oneDNN primitive of the CPU runtime
// computes on the target CPU, and how its operands map onto it.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_LIB_CODEGEN_CPU_ONEDNNMATCH_H
#define AMP_LIB_CODEGEN_CPU_ONEDNNMATCH_H

#include "CpuTarget.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"

#include <string>

namespace mlir::amp {

/// The marker amp-cpu-select-onednn puts on the ops that become oneDNN calls;
/// amp-cpu-tile-and-vectorize leaves them alone.
constexpr llvm::StringLiteral kOnednnMarker = "amp_cpu.onednn";

/// A oneDNN call for a linalg op.
struct OnednnCall {
  enum class Kind { Matmul, Conv2dNchwFchw, PoolNchwMax };
  Kind kind = Kind::Matmul;
  /// Element types of the two inputs and the output.
  Type a, b, c;
  /// The loops of A, B and C in the runtime's order, for a matmul: A is
  /// [batch, m, k], B [batch, k, n], C [batch, m, n]; -1 for no batch loop.
  int64_t batch = -1, m = 0, n = 0, k = 0;

  /// `ampOnednnMatmul_f32_f32_f32`, `ampOnednnPoolNchwMax_f32`, ...: the
  /// runtime's entry point.
  std::string functionName() const;
};

/// The oneDNN call that computes `op` on `target`, or failure with the
/// reason in `whyNot` (empty when `op` is neither a contraction nor a
/// convolution, so nothing needs saying). Works on tensors and buffers.
FailureOr<OnednnCall> matchOnednnCall(linalg::LinalgOp op,
                                      const CpuTarget &target,
                                      std::string &whyNot);

} // namespace mlir::amp

#endif // AMP_LIB_CODEGEN_CPU_ONEDNNMATCH_H
