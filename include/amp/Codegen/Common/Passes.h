//===- Passes.h - codegen passes of both targets ----------------*- C++ -*-===//
//
// Code-generation passes that amp-cpu-pipeline and amp-cuda-pipeline both
// run on upstream IR: decomposition of aggregated linalg ops, one fill per
// destination, fusion of multi-use elementwise producers; validation of
// the TOSA input.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_CODEGEN_COMMON_PASSES_H
#define AMP_CODEGEN_COMMON_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::amp {

#define GEN_PASS_DECL
#include "amp/Codegen/Common/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "amp/Codegen/Common/Passes.h.inc"

} // namespace mlir::amp

#endif // AMP_CODEGEN_COMMON_PASSES_H
