//===- Amp.h - amp dialect --------------------------------------*- C++ -*-===//
//
// The amp dialect: autocast regions (`amp.autocast`), the `amp.cast` op, and
// the `#amp.autocast` / `#amp.policy` attributes.
//
//===----------------------------------------------------------------------===//

#ifndef AMP_DIALECT_AMP_IR_AMP_H
#define AMP_DIALECT_AMP_IR_AMP_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/CastInterfaces.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "amp/Dialect/Amp/IR/AmpOpsDialect.h.inc"

#include "amp/Dialect/Amp/IR/AmpEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "amp/Dialect/Amp/IR/AmpAttrs.h.inc"

namespace mlir::amp {
class YieldOp;
} // namespace mlir::amp

#define GET_OP_CLASSES
#include "amp/Dialect/Amp/IR/AmpOps.h.inc"

namespace mlir::amp {

/// The default lower-precision type of a device: f16 for cuda, bf16 for cpu
/// (PyTorch `autocast_dtype` defaults).
FloatType getDefaultLowerPrecisionType(MLIRContext *ctx, DeviceType device);

/// Why the cast policy never decides ops named `name` (so that naming them
/// in a policy option or an #amp.policy has no effect), or nothing:
/// terminators, scf control flow whose bodies autocast processes op by op,
/// functions and modules, constants (converted where their users need
/// them), amp.autocast and amp.cast.
std::optional<StringRef> whyNeverDecided(OperationName name);

/// `value` rounded to `type` as the hardware conversion does at run time:
/// round to nearest, ties to even, subnormals kept, overflow to infinity.
llvm::APFloat roundToFloatType(llvm::APFloat value, FloatType type);

/// Replaces `autocast` by its body; its results become the yielded values.
void inlineAutocastRegion(AutocastOp autocast);

/// Replaces every amp.autocast op nested in `root` by its body (inner
/// regions first; results become the yielded values) and removes the
/// `amp.autocast` decorator from every function under `root`.
void inlineAutocastRegions(Operation *root);

/// True when every value of `from` is exactly representable in `to` (the
/// conversion widens: f16/bf16 -> f32 -> f64).
bool isExactFloatConversion(FloatType from, FloatType to);

/// `type` (a float scalar or a shaped type of floats) with element type
/// `elem`.
Type withElementType(Type type, Type elem);

} // namespace mlir::amp

#endif // AMP_DIALECT_AMP_IR_AMP_H
