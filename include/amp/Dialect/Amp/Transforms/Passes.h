//===- Passes.h - autocast core passes --------------------------*- C++ -*-===//
//
// The autocast core: amp-autocast (cast-policy type propagation),
// amp-fp32-accumulation and amp-keep-narrow-rounding. They depend on the amp
// dialect and its cast policy only.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_TRANSFORMS_PASSES_H
#define AMP_DIALECT_AMP_TRANSFORMS_PASSES_H

#include "amp/Dialect/Amp/IR/Amp.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::amp {

#define GEN_PASS_DECL
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "amp/Dialect/Amp/Transforms/Passes.h.inc"

} // namespace mlir::amp

#endif // AMP_DIALECT_AMP_TRANSFORMS_PASSES_H
